package fakebus

// Test-side controls of a Server, in the manner of miniredis's direct.go:
// unit files, the played release, inspecting units and jobs, finishing
// jobs, injecting signals and connection faults.

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/sdbus-go/sdbus"
)

// Faults in the life of client connections, on demand.

// DropAfterReply ends the connection of each of the next n calls of the
// method member, right after its reply: the reply (and whatever was
// queued before it) reaches the client, then the connection is closed and
// nothing sent later reaches it. It counts calls on every connection, to
// the bus driver (Hello, AddMatch, GetNameOwner, ...) as well as to the
// manager (Subscribe, GetUnit, StartUnit, ...); error replies count too.
// A test arms it once a client is set up to cut the client's next
// connection right after that call, e.g. a reconnecting client's second
// connection after its AddMatch. n <= 0 disarms it for member.
func (s *Server) DropAfterReply(member string, n int) { s.bus.DropAfterReply(member, n) }

// Clients returns the number of client connections the fake serves (bus
// and private, authenticated). A connection that ended is no longer
// counted once the manager has forgotten it: its subscription and its
// part in the jobs it requested.
func (s *Server) Clients() int { return len(s.bus.Peers()) }

// DropConnections closes every client connection at once, as if the bus
// or systemd went away. Jobs keep running.
func (s *Server) DropConnections() { s.bus.DropPeers() }

// UnitFile describes a unit the fake can load by name, as if a unit file
// existed: its properties use the same names and types as
// StartTransientUnit's.
type UnitFile struct {
	Name       string
	Properties []sdbus.Property
	// Aliases are the unit's other names, as Alias= in its [Install]
	// section or symlinks to its file give them: once the unit is loaded
	// (by any name) every name finds it, but it is announced, listed and
	// signalled under Name only (docs/fakebus.md, "Aliases").
	Aliases []string
	// Masked makes the unit masked: starting it fails with UnitMasked.
	Masked bool
	// Active makes the unit active from the start, as a booted system's
	// units are (systemd-journald.service, say): it is loaded and started
	// when the Server starts (WithUnitFile; AddUnitFile ignores it), with
	// no job, its slices with it; a service runs its command.
	Active bool
}

// AddUnitFile makes a unit loadable by name (see UnitFile).
func (s *Server) AddUnitFile(f UnitFile) error {
	s.m.lock()
	defer s.m.unlock()
	return s.m.addFileLocked(f)
}

// SetUnitProperties sets properties of a unit as a privileged client's
// SetUnitProperties does with the runtime flag set, with its
// checks and its errors: the unit is loaded for the call if it is not
// (and collected after it unless something keeps it); a unit that did not
// load is refused (UnitMasked, not found, ...), and so is a property
// systemd does not let a loaded unit change (PropertyReadOnly: only
// Description and the control-group settings, MemoryMax, CPUWeight, ...)
// or a value it refuses (InvalidArgs). A unit that is not transient keeps
// them across daemon-reload and its unloading, as systemd keeps them in a
// drop-in (in the runtime system.control; DropInPaths lists it).
// Subscribers get the PropertiesChanged systemd sends. The error
// is a D-Bus error's name and text, as systemd's reply would give them.
// Nothing is set unless every property is taken.
func (s *Server) SetUnitProperties(name string, props ...sdbus.Property) error {
	set := make([]setProp, len(props))
	for i, p := range props {
		if err := p.Err(); err != nil {
			return fmt.Errorf("fakebus: SetUnitProperties %s: %w", name, err)
		}
		v, err := normalize(p.Value)
		if err != nil {
			return fmt.Errorf("fakebus: SetUnitProperties %s: property %s: %w", name, p.Name, err)
		}
		set[i] = setProp{p.Name, v}
	}
	s.m.lock()
	defer s.m.unlock()
	if err := s.m.setUnitPropertiesLocked(name, true, set, nil); err != nil {
		return fmt.Errorf("fakebus: SetUnitProperties %s: %w", name, err)
	}
	return nil
}

// SetVersion changes the Manager.Version string. The behaviour (which
// properties and methods exist) stays that of the version the Server
// started with.
func (s *Server) SetVersion(v string) error {
	if _, err := sdbus.ParseVersion(v); err != nil {
		return fmt.Errorf("fakebus: %w", err)
	}
	s.m.lock()
	defer s.m.unlock()
	s.m.version = v
	return nil
}

// SetReloadDuration makes each daemon-reload last d: JobRemoved signals
// of jobs that end meanwhile are held back until Reloading(false), and
// calls are answered after it.
func (s *Server) SetReloadDuration(d time.Duration) {
	s.m.lock()
	defer s.m.unlock()
	s.m.reloadFor = d
}

// UnitInfo is the fake's view of a loaded unit, for assertions in tests.
type UnitInfo struct {
	Name        string
	LoadState   string
	ActiveState string
	SubState    string
	Result      string
	Transient   bool
	JobID       uint32
	PIDs        []uint32
}

// Unit returns the state of a loaded unit, and false when no unit of that
// name is loaded.
func (s *Server) Unit(name string) (UnitInfo, bool) {
	s.m.lock()
	defer s.m.unlock()
	u := s.m.unitLocked(name)
	if u == nil {
		return UnitInfo{}, false
	}
	info := UnitInfo{Name: u.name, LoadState: u.load, ActiveState: u.active, SubState: u.sub,
		Result: u.result, Transient: u.transient, PIDs: append([]uint32(nil), u.pids...)}
	if u.job != nil {
		info.JobID = u.job.id
	}
	return info, true
}

// Jobs returns the number of queued or running jobs.
func (s *Server) Jobs() int {
	s.m.lock()
	defer s.m.unlock()
	return len(s.m.jobs)
}

// WaitIdle waits until no job is queued or running (Jobs returns 0): the
// jobs a test's calls queued, and those they pulled in, have ended and
// sent their JobRemoved. It returns ctx's error if ctx ends first, and
// an error if the Server closes first. A job that never ends by itself
// (a service's start that runs "sleep infinity" in ExecStartPre=, a
// unit stuck activating) keeps it waiting: end it with FinishJob.
func (s *Server) WaitIdle(ctx context.Context) error {
	s.m.lock()
	if s.m.closed {
		s.m.unlock()
		return errors.New("fakebus: server closed")
	}
	if len(s.m.jobs) == 0 {
		s.m.unlock()
		return nil
	}
	ch := make(chan struct{})
	s.m.idle = append(s.m.idle, ch)
	s.m.unlock()
	select {
	case <-ch:
	case <-ctx.Done():
		return ctx.Err()
	}
	s.m.lock()
	defer s.m.unlock()
	if s.m.closed {
		return errors.New("fakebus: server closed")
	}
	return nil
}

// wakeIdleLocked ends every WaitIdle.
func (m *manager) wakeIdleLocked() {
	for _, ch := range m.idle {
		close(ch)
	}
	m.idle = nil
}

// RemoveUnitFile removes a unit file AddUnitFile or WithUnitFile gave
// (and its aliases), and reports whether there was one. A unit loaded
// from it stays loaded as it is, as systemd keeps a unit whose file was
// deleted, until it is unloaded: loading the name again then finds no
// file (not-found, NoSuchUnit for a start). The files in the unit
// directories are the test's to delete.
func (s *Server) RemoveUnitFile(name string) bool {
	s.m.lock()
	defer s.m.unlock()
	f, ok := s.m.files[name]
	if !ok {
		return false
	}
	for _, a := range f.Aliases {
		delete(s.m.aliases, a)
	}
	delete(s.m.files, name)
	return true
}

// FinishJob ends a queued or running job now with the given result, as
// if it had run that way, and applies the result to its unit as a Script
// result does. It returns false when no such job exists.
func (s *Server) FinishJob(id uint32, result sdbus.JobResult) bool {
	s.m.lock()
	defer s.m.unlock()
	j, ok := s.m.jobs[id]
	if !ok {
		return false
	}
	s.m.scriptedLocked(j, result)
	return true
}

// EmitJobRemoved sends a JobRemoved signal from systemd's name with any
// body, for fault tests: values of the wrong types make a malformed
// signal.
func (s *Server) EmitJobRemoved(body ...any) {
	s.m.lock()
	defer s.m.unlock()
	s.bus.Emit(managerPath, managerIface, "JobRemoved", body...)
}

// EmitJobRemovedFrom sends a JobRemoved signal that claims sender, a bus
// name other than systemd's, as a foreign bus client could.
func (s *Server) EmitJobRemovedFrom(sender string, id uint32, job dbus.ObjectPath, unit string, result string) {
	s.m.lock()
	defer s.m.unlock()
	s.bus.EmitFrom(sender, managerPath, managerIface, "JobRemoved", id, job, unit, result)
}

// UnitDir returns the fake's persistent unit directory, where it plays
// /etc/systemd/system (see WithUnitDir).
func (s *Server) UnitDir() string { return s.m.dirs.persistent }

// RuntimeUnitDir returns the fake's runtime unit directory, where it plays
// /run/systemd/system (see WithRuntimeUnitDir).
func (s *Server) RuntimeUnitDir() string { return s.m.dirs.runtime }

// MakeSubcgroup creates the sub-cgroup sub (an absolute, normalized path
// such as "/payload") and its parents below a loaded unit's control group,
// as the payload of a delegated unit does with mkdir, so that
// AttachProcessesToUnit can move processes into it.
func (s *Server) MakeSubcgroup(unit, sub string) error {
	if !strings.HasPrefix(sub, "/") || !normalizedPath(sub) || sub == "/" {
		return fmt.Errorf("fakebus: sub-cgroup %q: want an absolute, normalized path below the unit's cgroup", sub)
	}
	s.m.lock()
	defer s.m.unlock()
	u := s.m.unitLocked(unit)
	if u == nil {
		return fmt.Errorf("fakebus: unit %s is not loaded", unit)
	}
	if u.subcgroups == nil {
		u.subcgroups = map[string]bool{}
	}
	for p := strings.TrimSuffix(sub, "/"); p != ""; p = p[:strings.LastIndexByte(p, '/')] {
		u.subcgroups[p] = true
	}
	return nil
}

// UnitFileError is the error of WithUnitFile and AddUnitFile for a property
// the release the fake plays refuses in a unit file: an unknown name, a
// wrong D-Bus type or a value out of range, checked as StartTransientUnit
// checks them.
type UnitFileError struct {
	Unit, Property string
	Err            error
}

func (e *UnitFileError) Error() string {
	return fmt.Sprintf("fakebus: unit file %s: property %s: %v", e.Unit, e.Property, e.Err)
}

func (e *UnitFileError) Unwrap() error { return e.Err }
