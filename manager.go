package sdbus

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/godbus/dbus/v5"
)

// SystemState is the manager's overall state, as systemctl
// is-system-running prints it.
type SystemState string

// System states. The set is open: a newer manager may report others.
const (
	SystemInitializing SystemState = "initializing" // early boot, before basic.target
	SystemStarting     SystemState = "starting"     // late boot, jobs still queued
	SystemRunning      SystemState = "running"      // booted, no unit failed
	SystemDegraded     SystemState = "degraded"     // booted, some unit failed
	SystemMaintenance  SystemState = "maintenance"  // rescue or emergency target
	SystemStopping     SystemState = "stopping"     // shutting down
	SystemOffline      SystemState = "offline"      // the manager is not running
	SystemUnknown      SystemState = "unknown"
)

// ManagerProperties are the org.freedesktop.systemd1.Manager properties
// programs commonly read. Properties an older manager does not have are
// left at their zero values; ManagerProperty reads any other.
type ManagerProperties struct {
	// Version is the raw version string ("252.38-1~deb12u1"); Conn.Version
	// parses it.
	Version string
	// Features is the compile-time feature list ("+PAM +AUDIT ...").
	Features string
	// Virtualization is the detected virtualization ("kvm", "docker",
	// ...), "" on bare metal.
	Virtualization string
	// Architecture is systemd's name of the architecture ("x86-64").
	Architecture string
	// Tainted lists reasons the system is tainted, ":"-separated.
	Tainted string
	// ControlGroup is the manager's own cgroup: "" for the system
	// manager, the user manager's cgroup for a user manager (rootless
	// container runtimes place their scopes under it).
	ControlGroup string
	SystemState  SystemState
	// NNames is the number of loaded unit names (aliases count),
	// NFailedUnits the number of failed units, NJobs the number of queued
	// jobs.
	NNames, NFailedUnits, NJobs uint32
	// DefaultStandardOutput and DefaultStandardError are the defaults of
	// StandardOutput= and StandardError= ("journal", "inherit").
	DefaultStandardOutput, DefaultStandardError string
	// DefaultTasksMax is the TasksMax of units that set none.
	DefaultTasksMax Limit
	// LogLevel and LogTarget are the manager's own logging settings.
	LogLevel, LogTarget string
	// Environment is the environment the manager passes to units.
	Environment []string
	// UserspaceTimestamp is when the manager started; FinishTimestamp when
	// start-up finished (zero while still booting).
	UserspaceTimestamp, FinishTimestamp time.Time
}

// ManagerProperties reads the manager's commonly used properties in one
// call.
func (c *Conn) ManagerProperties(ctx context.Context) (ManagerProperties, error) {
	const op = "ManagerProperties"
	m, err := c.getAll(ctx, managerPath, managerIface, "")
	if err != nil {
		return ManagerProperties{}, err
	}
	var p ManagerProperties
	var userspace, finish uint64
	d := propDecoder{op: op, m: m}
	d.str("Version", &p.Version)
	d.str("Features", &p.Features)
	d.str("Virtualization", &p.Virtualization)
	d.str("Architecture", &p.Architecture)
	d.str("Tainted", &p.Tainted)
	d.str("ControlGroup", &p.ControlGroup)
	d.typed("SystemState", (*string)(&p.SystemState))
	d.any("NNames", &p.NNames)
	d.any("NFailedUnits", &p.NFailedUnits)
	d.any("NJobs", &p.NJobs)
	d.str("DefaultStandardOutput", &p.DefaultStandardOutput)
	d.str("DefaultStandardError", &p.DefaultStandardError)
	d.limit("DefaultTasksMax", &p.DefaultTasksMax)
	d.str("LogLevel", &p.LogLevel)
	d.str("LogTarget", &p.LogTarget)
	d.any("Environment", &p.Environment)
	d.any("UserspaceTimestamp", &userspace)
	d.any("FinishTimestamp", &finish)
	p.UserspaceTimestamp, p.FinishTimestamp = usecTime(userspace), usecTime(finish)
	return p, d.err
}

// ManagerProperty reads one property of the org.freedesktop.systemd1.Manager
// interface, for the properties ManagerProperties does not decode. A name
// the manager does not have is an error matching ErrNotSupported.
func (c *Conn) ManagerProperty(ctx context.Context, name string) (dbus.Variant, error) {
	return c.rawProperty(ctx, "ManagerProperty", managerPath, managerIface, name, "")
}

// UnitProperty reads one property of a unit, for the properties the typed
// reads do not decode. iface is the interface, in full
// ("org.freedesktop.systemd1.Service") or short ("Service", "Unit").
//
// It returns what systemd answers, as go-systemd's GetUnitProperty and
// GetUnitTypeProperty do: reading a unit that is not loaded makes systemd
// load it, and a unit without a unit file reads as not-found with every
// property at its default (check LoadState). The typed reads
// (UnitProperties, ServiceProperties, ...) report such a unit as
// ErrNoSuchUnit instead. A property the interface does not have, or an
// interface the unit does not have, is an error matching ErrNotSupported.
func (c *Conn) UnitProperty(ctx context.Context, unit, iface, name string) (dbus.Variant, error) {
	const op = "UnitProperty"
	if err := checkUnitName(op, unit); err != nil {
		return dbus.Variant{}, err
	}
	return c.rawProperty(ctx, op, UnitPath(unit), fullInterface(iface), name, unit)
}

// UnitTypeProperties reads every property of the interface of the unit's
// type, taken from its name: org.freedesktop.systemd1.Service for
// "a.service", Scope for "a.scope", Socket, Mount, Timer, ... (go-systemd's
// GetUnitTypeProperties, without having to name the type). Like
// UnitProperty it returns what systemd answers, defaults for a unit that is
// not loaded included; ServiceProperties, ScopeProperties and
// SliceProperties decode the common types.
func (c *Conn) UnitTypeProperties(ctx context.Context, unit string) (map[string]dbus.Variant, error) {
	const op = "UnitTypeProperties"
	if err := checkUnitName(op, unit); err != nil {
		return nil, err
	}
	t, _ := UnitTypeOf(unit)
	return c.getAll(ctx, UnitPath(unit), typeInterface(t), unit)
}

// fullInterface expands a short interface name ("Service") into
// org.freedesktop.systemd1.Service.
func fullInterface(iface string) string {
	if iface != "" && !strings.Contains(iface, ".") {
		return systemdName + "." + iface
	}
	return iface
}

// validInterface reports whether s is a valid D-Bus interface name: at
// most 255 bytes, two or more dot-separated elements of [A-Za-z0-9_], none
// empty or starting with a digit.
func validInterface(s string) bool {
	if len(s) > 255 {
		return false
	}
	elems := strings.Split(s, ".")
	if len(elems) < 2 {
		return false
	}
	for _, e := range elems {
		if e == "" || e[0] >= '0' && e[0] <= '9' {
			return false
		}
		for i := 0; i < len(e); i++ {
			c := e[i]
			if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
				return false
			}
		}
	}
	return true
}

// rawProperty reads one property as a variant.
func (c *Conn) rawProperty(ctx context.Context, op string, path dbus.ObjectPath, iface, name, unit string) (dbus.Variant, error) {
	if iface == "" || name == "" {
		return dbus.Variant{}, invalidArg(op, unit, "empty interface or property name")
	}
	if err := checkWire(op, unit, []string{"interface", "name"}, []any{iface, name}); err != nil {
		return dbus.Variant{}, err
	}
	if !validInterface(iface) {
		return dbus.Variant{}, invalidArg(op, unit, "%q is not a D-Bus interface name", iface)
	}
	var v dbus.Variant
	err := c.do(ctx, op, unit, true, func(s *session) error {
		return storeCall(s.bus.Object(systemdName, path).CallWithContext(ctx, propsIface+".Get", c.flags(), iface, name), &v)
	})
	return v, err
}

// ExecCode says how a service's main process ended (the si_code of its
// SIGCHLD): ExecMainStatus is an exit status or a signal accordingly.
type ExecCode int32

// Exec codes.
const (
	// ExecNotExited: the process has not ended (or never ran).
	ExecNotExited ExecCode = 0
	// ExecExited: it exited; the status is its exit status (CLD_EXITED).
	ExecExited ExecCode = 1
	// ExecKilled: a signal killed it; the status is the signal
	// (CLD_KILLED).
	ExecKilled ExecCode = 2
	// ExecDumped: a signal killed it and it dumped core (CLD_DUMPED).
	ExecDumped ExecCode = 3
)

// String returns "exited", "killed" or "dumped", as systemctl status
// prints them, or "not-exited" for ExecNotExited.
func (c ExecCode) String() string {
	switch c {
	case ExecNotExited:
		return "not-exited"
	case ExecExited:
		return "exited"
	case ExecKilled:
		return "killed"
	case ExecDumped:
		return "dumped"
	}
	return "code " + strconv.Itoa(int(c))
}

// Signaled reports whether a signal ended the process.
func (c ExecCode) Signaled() bool { return c == ExecKilled || c == ExecDumped }

// unitExtra decodes the Unit properties added for consumers that read
// install state and capabilities.
func (d *propDecoder) unitExtra(u *UnitProperties) {
	d.str("UnitFileState", &u.UnitFileState)
	d.str("SourcePath", &u.SourcePath)
	d.any("CanStart", &u.CanStart)
	d.any("CanStop", &u.CanStop)
	d.any("CanReload", &u.CanReload)
	d.any("TriggeredBy", &u.TriggeredBy)
}

// serviceExtra decodes a service's main-process history.
func (d *propDecoder) serviceExtra(s *ServiceProperties) {
	var code int32
	var start, exit uint64
	d.any("ExecMainCode", &code)
	d.any("ExecMainPID", &s.ExecMainPID)
	d.any("ExecMainStartTimestamp", &start)
	d.any("ExecMainExitTimestamp", &exit)
	s.ExecMainCode = ExecCode(code)
	s.ExecMainStartTimestamp, s.ExecMainExitTimestamp = usecTime(start), usecTime(exit)
}
