package fakebus

// The D-Bus errors the manager answers, as systemd names and words them
// (src/libsystemd/sd-bus/bus-common-errors.h, and the texts of the
// functions that raise them). The model raises them; the D-Bus surface
// (dbus_*.go) sends them.

import (
	"fmt"

	"github.com/sdbus-go/sdbus/fakebus/internal/sdversions"
)

// callErr is a D-Bus error reply.
type callErr struct{ name, msg string }

func (e *callErr) Error() string { return e.name + ": " + e.msg }

func errInvalidArgs(format string, args ...any) *callErr {
	return &callErr{dbusErr + "InvalidArgs", fmt.Sprintf(format, args...)}
}

func errNoSuchUnit(name string) *callErr {
	return &callErr{errPrefix + "NoSuchUnit", "Unit " + name + " not loaded."}
}

func errNotFound(name string) *callErr {
	return &callErr{errPrefix + "NoSuchUnit", "Unit " + name + " not found."}
}

// errNoIsolation refuses an isolate job for a unit without
// AllowIsolate=yes.
func errNoIsolation() *callErr {
	return &callErr{errPrefix + "NoIsolation", "Operation refused, unit may not be isolated."}
}

// errOnlyByDependency refuses a job a client asked for of a unit whose
// RefuseManualStart= or RefuseManualStop= says so (refuseManual).
func errOnlyByDependency(name string) *callErr {
	return &callErr{errPrefix + "OnlyByDependency", "Operation refused, unit " + name + " may be requested by dependency only (it is configured to refuse manual start/stop)."}
}

func noSuchJob(id uint32) *callErr {
	return &callErr{errPrefix + "NoSuchJob", fmt.Sprintf("Job %d does not exist.", id)}
}

// errNoFD is systemd's answer to a call whose unix fd argument did not
// come with it: sd-bus fails to read the message (EBADMSG). The fake
// gives it for pidfds too, which it does not resolve.
func errNoFD() *callErr { return &callErr{dbusErr + "InconsistentMessage", "Bad message"} }

func errFileInvalid(f string) *callErr {
	return errInvalidArgs("File %s: Invalid argument", f)
}

// errNoUnitFileLocked is a unit-file method's answer for a unit that has
// no file: "Unit file F does not exist." before 257, "Unit F does not
// exist" from 257 (sdversions.NoUnitFileWordedAsUnit).
func (m *manager) errNoUnitFileLocked(f string) *callErr {
	if m.behaves(sdversions.NoUnitFileWordedAsUnit) {
		return &callErr{errPrefix + "NoSuchUnit", "Unit " + f + " does not exist"}
	}
	return &callErr{errPrefix + "NoSuchUnit", "Unit file " + f + " does not exist."}
}

// errMaskedFileLocked refuses a unit-file method for a masked unit file:
// path is the mask (its symlink to /dev/null) on the unit path. From 257
// worded as a unit, without a period (sdversions.NoUnitFileWordedAsUnit:
// the same rewording; measured by the differential tester).
func (m *manager) errMaskedFileLocked(path string) *callErr {
	if m.behaves(sdversions.NoUnitFileWordedAsUnit) {
		return &callErr{errPrefix + "UnitMasked", "Unit " + path + " is masked"}
	}
	return &callErr{errPrefix + "UnitMasked", "Unit file " + path + " is masked."}
}

// sysError is an error text worded as systemd words it.
type sysError string

func (e sysError) Error() string { return string(e) }

func sysErrorf(format string, args ...any) error { return sysError(fmt.Sprintf(format, args...)) }

func errNotRoot() *callErr { return &callErr{dbusErr + "AccessDenied", "Access denied"} }
