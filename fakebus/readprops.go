package fakebus

import (
	"time"

	"github.com/godbus/dbus/v5"
)

// si_code values of a child's end (ExecMainCode).
const (
	cldExited int32 = 1
	cldKilled int32 = 2
)

// execMain is what systemd keeps of a service's main process after it
// ended: ExecMainPID, ExecMainCode, ExecMainStatus and the timestamps.
type execMain struct {
	pid          uint32
	code, status int32
	start, exit  time.Time
}

func (e *execMain) ended(code, status int32) {
	e.code, e.status, e.exit = code, status, time.Now()
}

func usec(t time.Time) uint64 {
	if t.IsZero() {
		return 0
	}
	return uint64(t.UnixMicro())
}

// readPropsLocked adds the properties programs read for status and
// install state to the properties of one interface: u is nil for the
// manager. Types are systemd 252's.
func (m *manager) readPropsLocked(u *unit, iface string, props map[string]dbus.Variant) map[string]dbus.Variant {
	switch {
	case u == nil:
		props["DefaultStandardOutput"] = dbus.MakeVariant("journal")
		props["DefaultStandardError"] = dbus.MakeVariant("inherit")
		props["LogLevel"] = dbus.MakeVariant("info")
		props["LogTarget"] = dbus.MakeVariant("journal-or-kmsg")
		props["Environment"] = dbus.MakeVariant(append([]string{}, m.environment...))
		props["UserspaceTimestamp"] = dbus.MakeVariant(usec(m.started))
		props["FinishTimestamp"] = dbus.MakeVariant(usec(m.started))
	case iface == unitIface:
		state := ""
		switch {
		case u.load == "masked" || u.masked:
			state = "masked"
		case u.transient:
			state = "transient"
		case u.fromFile:
			state = "static"
		}
		props["UnitFileState"] = dbus.MakeVariant(state)
		props["SourcePath"] = dbus.MakeVariant("")
		props["TriggeredBy"] = dbus.MakeVariant([]string{})
	case u.kind == "service":
		props["ExecMainPID"] = dbus.MakeVariant(u.exec.pid)
		props["ExecMainCode"] = dbus.MakeVariant(u.exec.code)
		props["ExecMainStatus"] = dbus.MakeVariant(u.exec.status)
		props["ExecMainStartTimestamp"] = dbus.MakeVariant(usec(u.exec.start))
		props["ExecMainExitTimestamp"] = dbus.MakeVariant(usec(u.exec.exit))
	}
	return props
}
