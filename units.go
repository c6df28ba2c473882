package sdbus

import (
	"context"
	"errors"
	"fmt"
	"path"
	"reflect"
	"strings"
	"syscall"

	"github.com/godbus/dbus/v5"
)

const unitIface = "org.freedesktop.systemd1.Unit"

// LoadState is a unit's LoadState property.
type LoadState string

// Load states (the set is open; unknown values are kept verbatim).
const (
	LoadLoaded     LoadState = "loaded"
	LoadNotFound   LoadState = "not-found"
	LoadBadSetting LoadState = "bad-setting"
	LoadError      LoadState = "error"
	LoadMasked     LoadState = "masked"
	LoadStub       LoadState = "stub"
	LoadMerged     LoadState = "merged"
)

// ActiveState is a unit's ActiveState property.
type ActiveState string

// Active states (the set is open; unknown values are kept verbatim).
const (
	StateActive       ActiveState = "active"
	StateReloading    ActiveState = "reloading"
	StateInactive     ActiveState = "inactive"
	StateFailed       ActiveState = "failed"
	StateActivating   ActiveState = "activating"
	StateDeactivating ActiveState = "deactivating"
	StateMaintenance  ActiveState = "maintenance"
	StateRefreshing   ActiveState = "refreshing"
)

// UnitStatus is the summary of a unit that ListUnits returns, and
// UnitStatus reads.
type UnitStatus struct {
	Name        string
	Description string
	LoadState   LoadState
	ActiveState ActiveState
	SubState    string
	// Following is the unit this one follows in its state, if any.
	Following string
	Path      dbus.ObjectPath
	// JobID, JobType and JobPath describe the unit's queued job; JobID is
	// 0 when there is none.
	JobID   uint32
	JobType string
	JobPath dbus.ObjectPath
}

// unitStatusWire is one row of ListUnits, (ssssssouso).
type unitStatusWire struct {
	Name, Description, LoadState, ActiveState, SubState, Following string
	Path                                                           dbus.ObjectPath
	JobID                                                          uint32
	JobType                                                        string
	JobPath                                                        dbus.ObjectPath
}

func (w unitStatusWire) status() UnitStatus {
	return UnitStatus{
		Name: w.Name, Description: w.Description, LoadState: LoadState(w.LoadState),
		ActiveState: ActiveState(w.ActiveState), SubState: w.SubState, Following: w.Following,
		Path: w.Path, JobID: w.JobID, JobType: w.JobType, JobPath: w.JobPath,
	}
}

func (c *Conn) listUnits(ctx context.Context, op string, args ...any) ([]UnitStatus, error) {
	var rows []unitStatusWire
	if err := c.call(ctx, op, "", args, &rows); err != nil {
		return nil, err
	}
	out := make([]UnitStatus, len(rows))
	for i, r := range rows {
		out[i] = r.status()
	}
	return out, nil
}

// ListUnits lists the units the manager has loaded (Manager.ListUnits).
func (c *Conn) ListUnits(ctx context.Context) ([]UnitStatus, error) {
	return c.listUnits(ctx, "ListUnits")
}

// ListUnitsByPatterns lists loaded units whose ActiveState is one of
// states (all when empty) and whose name matches one of the glob patterns
// (all when empty) (Manager.ListUnitsByPatterns):
//
//	failed, err := c.ListUnitsByPatterns(ctx, []sdbus.ActiveState{sdbus.StateFailed}, []string{"run-*.scope"})
//
// systemd also matches each state against LoadState and SubState; to
// filter by those, list with no states and look at the fields.
func (c *Conn) ListUnitsByPatterns(ctx context.Context, states []ActiveState, patterns []string) ([]UnitStatus, error) {
	s := make([]string, len(states))
	for i, st := range states {
		s[i] = string(st)
	}
	return c.listUnits(ctx, "ListUnitsByPatterns", s, nonNil(patterns))
}

// ListUnitsByNames returns the status of the named units, loading them if
// needed (Manager.ListUnitsByNames, systemd 230 and later). A unit that
// does not exist is listed with LoadState not-found.
func (c *Conn) ListUnitsByNames(ctx context.Context, names []string) ([]UnitStatus, error) {
	return c.listUnits(ctx, "ListUnitsByNames", nonNil(names))
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// GetUnit returns the object path of a loaded unit (Manager.GetUnit). A unit
// that is not loaded fails with ErrNoSuchUnit.
func (c *Conn) GetUnit(ctx context.Context, name string) (dbus.ObjectPath, error) {
	return c.unitPathCall(ctx, "GetUnit", name)
}

// LoadUnit loads a unit from disk if needed and returns its object path
// (Manager.LoadUnit). A missing unit file is not an error: the unit then
// has LoadState not-found.
func (c *Conn) LoadUnit(ctx context.Context, name string) (dbus.ObjectPath, error) {
	return c.unitPathCall(ctx, "LoadUnit", name)
}

func (c *Conn) unitPathCall(ctx context.Context, op, name string) (dbus.ObjectPath, error) {
	if err := checkUnitName(op, name); err != nil {
		return "", err
	}
	var p dbus.ObjectPath
	err := c.call(ctx, op, name, []any{name}, &p)
	return p, err
}

// UnitByPID returns the name of the unit a process belongs to
// (Manager.GetUnitByPID). A PID outside any unit fails with
// ErrNoUnitForPID.
func (c *Conn) UnitByPID(ctx context.Context, pid uint32) (string, error) {
	return c.unitBy(ctx, "GetUnitByPID", pid)
}

// unitBy returns the name of the unit a Manager method that answers a
// unit's object path finds for arg.
func (c *Conn) unitBy(ctx context.Context, method string, arg any) (string, error) {
	var p dbus.ObjectPath
	if err := c.call(ctx, method, "", []any{arg}, &p); err != nil {
		return "", err
	}
	var id string
	err := c.getProperty(ctx, p, unitIface, "Id", "", &id)
	return id, err
}

// UnitByControlGroup returns the name of the unit whose control group is
// cgroup, a path below the cgroup file system's root such as
// "/user.slice/user-1000.slice/user@1000.service"
// (Manager.GetUnitByControlGroup). A cgroup below a unit's (a delegated
// scope's sub-cgroup) names that unit. A cgroup no unit owns is an error
// matching ErrNoSuchUnit.
func (c *Conn) UnitByControlGroup(ctx context.Context, cgroup string) (string, error) {
	return c.unitBy(ctx, "GetUnitByControlGroup", cgroup)
}

// UnitStatus reads the unit's status from its Unit interface. Reading a
// unit that is not loaded makes systemd try to load it: a unit that does
// not exist is returned with LoadState not-found and no error.
func (c *Conn) UnitStatus(ctx context.Context, name string) (UnitStatus, error) {
	const op = "UnitStatus"
	if err := checkUnitName(op, name); err != nil {
		return UnitStatus{}, err
	}
	upath := UnitPath(name)
	m, err := c.getAll(ctx, upath, unitIface, name)
	if err != nil {
		return UnitStatus{}, err
	}
	var job struct {
		ID   uint32
		Path dbus.ObjectPath
	}
	st := UnitStatus{Path: upath}
	d := propDecoder{op: op, unit: name, m: m}
	d.str("Id", &st.Name)
	d.str("Description", &st.Description)
	d.typed("LoadState", (*string)(&st.LoadState))
	d.typed("ActiveState", (*string)(&st.ActiveState))
	d.str("SubState", &st.SubState)
	d.str("Following", &st.Following)
	d.any("Job", &job)
	if d.err != nil {
		return UnitStatus{}, d.err
	}
	if job.ID != 0 {
		st.JobID, st.JobPath = job.ID, job.Path
	}
	return st, nil
}

// ResetFailedUnit clears the failed state of a unit and its restart and
// start-rate counters (Manager.ResetFailedUnit). For a failed transient
// unit this unloads it and frees its name. A unit that is not loaded fails
// with ErrNoSuchUnit.
func (c *Conn) ResetFailedUnit(ctx context.Context, name string) error {
	if err := checkUnitName("ResetFailedUnit", name); err != nil {
		return err
	}
	return c.call(ctx, "ResetFailedUnit", name, []any{name})
}

// KillWhom selects the processes KillUnit signals.
type KillWhom string

// Targets for KillUnit.
const (
	KillMain    KillWhom = "main"    // the main process
	KillControl KillWhom = "control" // the control process (e.g. ExecReload=)
	KillAll     KillWhom = "all"     // every process of the unit
	// The -fail variants also fail when no process was signalled
	// (systemd 252 and later).
	KillMainFail    KillWhom = "main-fail"
	KillControlFail KillWhom = "control-fail"
	KillAllFail     KillWhom = "all-fail"
)

// KillUnit sends a signal to the unit's processes (Manager.KillUnit). With
// KillMain or KillControl and no such process it fails with
// ErrNoSuchProcess. An empty whom is KillAll, as for systemd (247 to 262
// take it).
func (c *Conn) KillUnit(ctx context.Context, name string, whom KillWhom, sig syscall.Signal) error {
	const op = "KillUnit"
	if err := checkUnitName(op, name); err != nil {
		return err
	}
	if sig <= 0 || sig >= 65 {
		return invalidArg(op, name, "signal %d out of range", int(sig))
	}
	return c.call(ctx, op, name, []any{name, string(whom), int32(sig)})
}

// SetUnitProperties changes properties of a loaded unit
// (Manager.SetUnitProperties). With runtime true the change lasts until the
// next reboot only. Array properties such as DeviceAllow usually append to
// the current value. A property the manager does not know or cannot change
// fails with ErrNotSupported (naming the D-Bus property and builder when
// the name is a unit-file setting's, see StartTransientUnit); properties
// are validated before sending.
func (c *Conn) SetUnitProperties(ctx context.Context, name string, runtime bool, props ...Property) error {
	const op = "SetUnitProperties"
	if err := checkUnitName(op, name); err != nil {
		return err
	}
	p, err := encodeProperties(op, name, props)
	if err != nil {
		return err
	}
	if err := checkWire(op, name, wireArgNames(op), []any{name, runtime, p}); err != nil {
		return err
	}
	// Sending it again after a lost reply would append to a list twice.
	return withPropertyHint(c.do(ctx, op, name, !appendsToList(p), func(s *session) error {
		return storeCall(s.mgr.CallWithContext(ctx, managerIface+"."+op, c.flags(), name, runtime, p))
	}))
}

// appendsToList reports whether a property sets a list that systemd
// appends to (DeviceAllow, IO limits, dependencies, ...): a non-empty
// array other than a bitmask (ay: AllowedCPUs and friends, which replace).
// An empty array resets such a list, which is safe to repeat.
func appendsToList(props []propertyWire) bool {
	for _, p := range props {
		sig := p.Value.Signature().String()
		if strings.HasPrefix(sig, "a") && sig != "ay" && reflect.ValueOf(p.Value.Value()).Len() > 0 {
			return true
		}
	}
	return false
}

// AttachProcessesToUnit moves processes into a unit's cgroup, or into the
// sub-cgroup subcgroup ("" for the unit's own cgroup, otherwise an absolute
// path such as "/container") of a unit with Delegate=yes
// (Manager.AttachProcessesToUnit, systemd 238 and later; older managers fail
// with ErrNotSupported). With no PIDs it does nothing: systemd (247 to
// 262) answers success.
func (c *Conn) AttachProcessesToUnit(ctx context.Context, unit, subcgroup string, pids ...uint32) error {
	const op = "AttachProcessesToUnit"
	if err := checkUnitName(op, unit); err != nil {
		return err
	}
	if subcgroup != "" && (subcgroup[0] != '/' || path.Clean(subcgroup) != subcgroup) {
		return invalidArg(op, unit, "sub-cgroup %q is not a clean absolute path", subcgroup)
	}
	if pids == nil {
		pids = []uint32{}
	}
	return c.call(ctx, op, unit, []any{unit, subcgroup, pids})
}

// call invokes a Manager method with ctx and stores the reply in out.
func (c *Conn) call(ctx context.Context, method, unit string, args []any, out ...any) error {
	if err := checkWire(method, unit, wireArgNames(method), args); err != nil {
		return err
	}
	return c.do(ctx, method, unit, idempotentMethod(method), func(s *session) error {
		return storeCall(s.mgr.CallWithContext(ctx, managerIface+"."+method, c.flags(), args...), out...)
	})
}

// getAll reads every property of one interface of an object
// (Properties.GetAll through CallWithContext: godbus's own property helpers
// ignore contexts).
func (c *Conn) getAll(ctx context.Context, path dbus.ObjectPath, iface, unit string) (map[string]dbus.Variant, error) {
	var m map[string]dbus.Variant
	err := c.do(ctx, "GetAll "+iface, unit, true, func(s *session) error {
		return storeCall(s.bus.Object(systemdName, path).CallWithContext(ctx, propsIface+".GetAll", c.flags(), iface), &m)
	})
	return m, err
}

// getProperty reads one property into out, which must match its type.
func (c *Conn) getProperty(ctx context.Context, path dbus.ObjectPath, iface, name, unit string, out any) error {
	op := "Get " + iface + "." + name
	var v dbus.Variant
	err := c.do(ctx, op, unit, true, func(s *session) error {
		return storeCall(s.bus.Object(systemdName, path).CallWithContext(ctx, propsIface+".Get", c.flags(), iface, name), &v)
	})
	if err != nil {
		return err
	}
	if err := dbus.Store([]any{v.Value()}, out); err != nil {
		return &Error{Op: op, Unit: unit, Message: fmt.Sprintf("unexpected type %s", v.Signature()), Err: err}
	}
	return nil
}

// Reload makes the manager reload its configuration (daemon-reload). It
// returns when the reload has finished. Jobs keep running; their JobRemoved
// signals, held back while the manager reloads, follow.
func (c *Conn) Reload(ctx context.Context) error {
	return c.call(ctx, "Reload", "", nil)
}

// Reexecute makes the manager serialize its state and re-execute itself
// (daemon-reexec). systemd does not answer: it drops its connections, so
// on a bus the call ends with the bus's NoReply error, and a peer-to-peer
// Conn is disconnected. Reexecute reports both as success. Jobs survive;
// on a bus this Conn follows the manager's new connection and keeps
// receiving their results.
func (c *Conn) Reexecute(ctx context.Context) error {
	err := c.call(ctx, "Reexecute", "", nil)
	if errors.Is(err, ErrTimeout) || errors.Is(err, ErrDisconnected) {
		return nil
	}
	return err
}

// FreezeUnit freezes every process of an active unit with the cgroup
// freezer (Manager.FreezeUnit, systemd 246 and later; ErrNotSupported
// before). An inactive unit is refused. systemd may abort a freeze before
// it completes and answer org.freedesktop.systemd1.FreezeCancelled
// (Error.Name; seen on 262); FreezerState then tells where it stopped,
// and the call may be made again.
func (c *Conn) FreezeUnit(ctx context.Context, name string) error {
	if err := checkUnitName("FreezeUnit", name); err != nil {
		return err
	}
	return c.call(ctx, "FreezeUnit", name, []any{name})
}

// ThawUnit thaws a frozen unit (Manager.ThawUnit, systemd 246 and later).
func (c *Conn) ThawUnit(ctx context.Context, name string) error {
	if err := checkUnitName("ThawUnit", name); err != nil {
		return err
	}
	return c.call(ctx, "ThawUnit", name, []any{name})
}
