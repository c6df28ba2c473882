package sdbus

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/godbus/dbus/v5"
)

// Limit is a resource limit as systemd reports it: a value, or no limit.
// systemd's 2^64-1 ("infinity") is decoded as Unlimited, never as a huge
// number.
type Limit struct {
	Value     uint64 // the limit when Unlimited is false
	Unlimited bool
}

func limitOf(v uint64) Limit {
	if v == Infinity {
		return Limit{Unlimited: true}
	}
	return Limit{Value: v}
}

// String returns "infinity" or the value in decimal.
func (l Limit) String() string {
	if l.Unlimited {
		return "infinity"
	}
	return strconv.FormatUint(l.Value, 10)
}

// Less reports whether l is a stricter limit than m.
func (l Limit) Less(m Limit) bool { return !l.Unlimited && (m.Unlimited || l.Value < m.Value) }

// UnitProperties is what the org.freedesktop.systemd1.Unit interface says
// about a unit.
type UnitProperties struct {
	ID           string
	Names        []string
	Description  string
	LoadState    LoadState
	ActiveState  ActiveState
	SubState     string
	FreezerState string
	Following    string
	FragmentPath string
	Transient    bool
	CollectMode  CollectMode
	// JobID is the unit's queued job, 0 when there is none.
	JobID uint32
	// InvocationID identifies the current run of the unit (32 hex
	// digits), "" when it is not running.
	InvocationID    string
	ConditionResult bool
	AssertResult    bool
	Requires        []string
	Wants           []string
	BindsTo         []string
	After           []string
	Before          []string
	// StateChangeTimestamp is when ActiveState last changed;
	// ActiveEnterTimestamp when the unit last became active (zero if
	// never).
	StateChangeTimestamp time.Time
	ActiveEnterTimestamp time.Time
	// UnitFileState is the install state of the unit's file: "enabled",
	// "disabled", "static", "masked", "transient", ... ("" without one).
	UnitFileState string
	// SourcePath is the file a generator made the unit from ("" for
	// most units).
	SourcePath string
	// CanStart, CanStop and CanReload say whether the unit takes those
	// jobs.
	CanStart, CanStop, CanReload bool
	// TriggeredBy lists the units (timers, sockets, paths) that start
	// this one.
	TriggeredBy []string
}

// CgroupProperties are the resource-control properties services, scopes
// and slices share. Properties the manager does not have (an older
// release) are left at their zero values. Properties the manager answers
// but leaves out of GetAll (systemd 262 does this for CPUAccounting) are
// read one by one, so they never read as zero values by mistake.
type CgroupProperties struct {
	// Slice is the slice the unit is in ("" for -.slice).
	Slice string
	// ControlGroup is the unit's cgroup path, "" while it has none.
	ControlGroup string
	// Current usage; Unlimited means unknown (accounting off).
	MemoryCurrent Limit
	TasksCurrent  Limit
	// CPUUsageNSec is the CPU time used, in ns; Unlimited means unknown
	// (accounting off).
	CPUUsageNSec Limit
	// The unit's own limits. A leaf scope usually has none: see
	// Conn.EffectiveLimits for the limits its ancestors impose.
	MemoryMin          Limit
	MemoryLow          Limit
	MemoryHigh         Limit
	MemoryMax          Limit
	MemorySwapMax      Limit
	TasksMax           Limit
	CPUQuotaPerSecUSec Limit
	// CPUQuotaPeriodUSec is Unlimited when the default period (100 ms)
	// applies.
	CPUQuotaPeriodUSec Limit
	// CPUWeight and IOWeight are Unlimited when not set (the default,
	// 100, applies). A CPUWeight of 0 is the idle class.
	CPUWeight           Limit
	IOWeight            Limit
	AllowedCPUs         CPUSet
	AllowedMemoryNodes  CPUSet
	Delegate            bool
	DelegateControllers []string
	DelegateSubgroup    string
	DevicePolicy        DevicePolicy
	DeviceAllow         []DeviceRule
	IODeviceWeight      []IODeviceLimit
	IOReadBandwidthMax  []IODeviceLimit
	IOWriteBandwidthMax []IODeviceLimit
	IOReadIOPSMax       []IODeviceLimit
	IOWriteIOPSMax      []IODeviceLimit
	CPUAccounting       bool
	MemoryAccounting    bool
	IOAccounting        bool
	TasksAccounting     bool
	// The limits that apply once the ancestors' are taken into account,
	// as the manager computes them (systemd 256, or a backport); nil when
	// the manager does not have them.
	EffectiveMemoryMax  *Limit
	EffectiveMemoryHigh *Limit
	EffectiveTasksMax   *Limit
}

// KillProperties say how systemd stops a service's or scope's processes.
type KillProperties struct {
	KillMode   KillMode
	KillSignal syscall.Signal
	OOMPolicy  OOMPolicy
}

// ServiceProperties is what the org.freedesktop.systemd1.Service interface
// says about a service.
type ServiceProperties struct {
	CgroupProperties
	KillProperties
	Type            ServiceType
	Result          string // "success", "exit-code", "signal", "oom-kill", ...
	MainPID         uint32
	ExecMainStatus  int32
	NRestarts       uint32
	RemainAfterExit bool
	// ExecMainCode says how the main process last ended (ExecExited,
	// ExecKilled, ExecDumped), ExecNotExited while it runs; ExecMainStatus
	// is then its exit status or signal. ExecMainPID is its PID, kept
	// after it ended (MainPID is 0 then); the timestamps are when it
	// started and ended (zero if not).
	ExecMainCode           ExecCode
	ExecMainPID            uint32
	ExecMainStartTimestamp time.Time
	ExecMainExitTimestamp  time.Time
}

// ScopeProperties is what the org.freedesktop.systemd1.Scope interface
// says about a scope.
type ScopeProperties struct {
	CgroupProperties
	KillProperties
	Result     string
	Controller string
}

// SliceProperties is what the org.freedesktop.systemd1.Slice interface
// says about a slice.
type SliceProperties struct {
	CgroupProperties
}

// UnitProperties reads a unit's Unit interface. A unit that does not exist
// is returned with LoadState not-found and an error matching
// ErrNoSuchUnit; a masked one with ErrUnitMasked; one whose settings could
// not be loaded with ErrBadUnitSetting.
func (c *Conn) UnitProperties(ctx context.Context, name string) (UnitProperties, error) {
	const op = "UnitProperties"
	if err := checkUnitName(op, name); err != nil {
		return UnitProperties{}, err
	}
	u, err := readTyped(ctx, c, op, name, unitIface, unitProps)
	if err != nil {
		return u, err
	}
	return u, loadStateError(op, name, u.LoadState)
}

// readTyped reads the interface iface of a unit with GetAll and decodes
// it. Properties decode wants that GetAll left out are read one by one with
// Get: systemd 262 leaves CPUAccounting (and other deprecated cgroup-v1
// settings) out of GetAll and introspection while Get still answers them,
// so a GetAll alone would read them as zero values. A property Get answers
// with UnknownProperty is genuinely absent (a release that predates it):
// decode leaves it at its zero value (nil for the Effective* limits), and
// the Conn does not ask for it again until it reconnects.
func readTyped[T any](ctx context.Context, c *Conn, op, unit, iface string, decode func(*propDecoder) T) (T, error) {
	path := UnitPath(unit)
	m, err := c.getAll(ctx, path, iface, unit)
	if err != nil {
		var zero T
		return zero, err
	}
	d := propDecoder{op: op, unit: unit, m: m, missing: []string{}}
	v := decode(&d)
	if d.err != nil || len(d.missing) == 0 {
		return v, d.err
	}
	c.mu.Lock()
	gen := c.gen
	var ask []string
	for _, name := range d.missing {
		if !c.absent[iface+"\x00"+name] {
			ask = append(ask, name)
		}
	}
	c.mu.Unlock()
	var gone []string
	for _, name := range ask {
		var pv dbus.Variant
		err := c.getProperty(ctx, path, iface, name, unit, &pv)
		switch {
		case err == nil:
			m[name] = pv
		case isUnknownProperty(err):
			gone = append(gone, name)
		default:
			var zero T
			return zero, err
		}
	}
	if len(gone) > 0 {
		c.cacheIfCurrent(gen, func() {
			if c.absent == nil {
				c.absent = make(map[string]bool)
			}
			for _, name := range gone {
				c.absent[iface+"\x00"+name] = true
			}
		})
	}
	if len(gone) == len(ask) {
		return v, nil
	}
	d = propDecoder{op: op, unit: unit, m: m}
	v = decode(&d)
	return v, d.err
}

// isUnknownProperty reports a manager's answer that an object has no such
// property or interface.
func isUnknownProperty(err error) bool {
	var se *Error
	return errors.As(err, &se) && (strings.HasSuffix(se.Name, ".UnknownProperty") || strings.HasSuffix(se.Name, ".UnknownInterface"))
}

// decodeUnitProperties decodes a GetAll of the Unit interface.
func decodeUnitProperties(op, name string, m map[string]dbus.Variant) (UnitProperties, error) {
	d := propDecoder{op: op, unit: name, m: m}
	u := unitProps(&d)
	return u, d.err
}

func unitProps(d *propDecoder) UnitProperties {
	var u UnitProperties
	var job struct {
		ID   uint32
		Path dbus.ObjectPath
	}
	var inv []byte
	var changed, entered uint64
	d.str("Id", &u.ID)
	d.any("Names", &u.Names)
	d.str("Description", &u.Description)
	d.typed("LoadState", (*string)(&u.LoadState))
	d.typed("ActiveState", (*string)(&u.ActiveState))
	d.str("SubState", &u.SubState)
	d.str("FreezerState", &u.FreezerState)
	d.str("Following", &u.Following)
	d.str("FragmentPath", &u.FragmentPath)
	d.any("Transient", &u.Transient)
	d.typed("CollectMode", (*string)(&u.CollectMode))
	d.any("Job", &job)
	d.any("InvocationID", &inv)
	d.any("ConditionResult", &u.ConditionResult)
	d.any("AssertResult", &u.AssertResult)
	d.any("Requires", &u.Requires)
	d.any("Wants", &u.Wants)
	d.any("BindsTo", &u.BindsTo)
	d.any("After", &u.After)
	d.any("Before", &u.Before)
	d.any("StateChangeTimestamp", &changed)
	d.any("ActiveEnterTimestamp", &entered)
	u.JobID = job.ID
	if len(inv) > 0 {
		u.InvocationID = hex.EncodeToString(inv)
	}
	u.StateChangeTimestamp = usecTime(changed)
	u.ActiveEnterTimestamp = usecTime(entered)
	d.unitExtra(&u)
	return u
}

// usecTime converts systemd's microseconds since the epoch; 0 stays the
// zero time.
func usecTime(us uint64) time.Time {
	if us == 0 || us == Infinity {
		return time.Time{}
	}
	return time.UnixMicro(int64(us))
}

// loadStateError reports a unit that could not be loaded as the error
// systemd would give for it.
func loadStateError(op, name string, s LoadState) error {
	switch s {
	case LoadNotFound:
		return &Error{Op: op, Unit: name, Message: "unit not found (LoadState not-found)", Err: ErrNoSuchUnit}
	case LoadMasked:
		return &Error{Op: op, Unit: name, Message: "unit is masked", Err: ErrUnitMasked}
	case LoadBadSetting, LoadError:
		return &Error{Op: op, Unit: name, Message: "unit could not be loaded (LoadState " + string(s) + ")", Err: ErrBadUnitSetting}
	}
	return nil
}

// typeProperties reads the type interface of a unit after checking that
// the unit exists (see readTyped).
func typeProperties[T any](ctx context.Context, c *Conn, op, name string, t UnitType, decode func(*propDecoder) T) (T, error) {
	var zero T
	if err := checkUnitName(op, name); err != nil {
		return zero, err
	}
	if ut, _ := UnitTypeOf(name); ut != t {
		return zero, invalidArg(op, name, "not a %s unit", t)
	}
	var load string
	if err := c.getProperty(ctx, UnitPath(name), unitIface, "LoadState", name, &load); err != nil {
		return zero, err
	}
	if err := loadStateError(op, name, LoadState(load)); err != nil {
		return zero, err
	}
	return readTyped(ctx, c, op, name, typeInterface(t), decode)
}

// typeInterface returns the D-Bus interface of a unit type, e.g.
// org.freedesktop.systemd1.Scope.
func typeInterface(t UnitType) string {
	s := string(t)
	return "org.freedesktop.systemd1." + strings.ToUpper(s[:1]) + s[1:]
}

// ServiceProperties reads a service's Service interface (see
// UnitProperties for the errors of a unit that does not exist).
func (c *Conn) ServiceProperties(ctx context.Context, name string) (ServiceProperties, error) {
	return typeProperties(ctx, c, "ServiceProperties", name, UnitTypeService, serviceProps)
}

// decodeServiceProperties decodes a GetAll of the Service interface.
func decodeServiceProperties(op, name string, m map[string]dbus.Variant) (ServiceProperties, error) {
	d := propDecoder{op: op, unit: name, m: m}
	s := serviceProps(&d)
	return s, d.err
}

func serviceProps(d *propDecoder) ServiceProperties {
	var s ServiceProperties
	d.cgroup(&s.CgroupProperties)
	d.kill(&s.KillProperties)
	d.typed("Type", (*string)(&s.Type))
	d.str("Result", &s.Result)
	d.any("MainPID", &s.MainPID)
	d.any("ExecMainStatus", &s.ExecMainStatus)
	d.any("NRestarts", &s.NRestarts)
	d.any("RemainAfterExit", &s.RemainAfterExit)
	d.serviceExtra(&s)
	return s
}

// ScopeProperties reads a scope's Scope interface (see UnitProperties for
// the errors of a unit that does not exist).
func (c *Conn) ScopeProperties(ctx context.Context, name string) (ScopeProperties, error) {
	return typeProperties(ctx, c, "ScopeProperties", name, UnitTypeScope, func(d *propDecoder) ScopeProperties {
		var s ScopeProperties
		d.cgroup(&s.CgroupProperties)
		d.kill(&s.KillProperties)
		d.str("Result", &s.Result)
		d.str("Controller", &s.Controller)
		return s
	})
}

// SliceProperties reads a slice's Slice interface (see UnitProperties for
// the errors of a unit that does not exist).
func (c *Conn) SliceProperties(ctx context.Context, name string) (SliceProperties, error) {
	return typeProperties(ctx, c, "SliceProperties", name, UnitTypeSlice, func(d *propDecoder) SliceProperties {
		var s SliceProperties
		d.cgroup(&s.CgroupProperties)
		return s
	})
}

// kill decodes the kill settings.
func (d *propDecoder) kill(k *KillProperties) {
	var sig int32
	d.typed("KillMode", (*string)(&k.KillMode))
	d.any("KillSignal", &sig)
	d.typed("OOMPolicy", (*string)(&k.OOMPolicy))
	k.KillSignal = syscall.Signal(sig)
}

// cgroup decodes the resource-control properties.
func (d *propDecoder) cgroup(p *CgroupProperties) {
	d.str("Slice", &p.Slice)
	d.str("ControlGroup", &p.ControlGroup)
	for name, l := range map[string]*Limit{
		"MemoryCurrent": &p.MemoryCurrent, "TasksCurrent": &p.TasksCurrent,
		"MemoryMin": &p.MemoryMin, "MemoryLow": &p.MemoryLow, "MemoryHigh": &p.MemoryHigh,
		"MemoryMax": &p.MemoryMax, "MemorySwapMax": &p.MemorySwapMax, "TasksMax": &p.TasksMax,
		"CPUQuotaPerSecUSec": &p.CPUQuotaPerSecUSec, "CPUQuotaPeriodUSec": &p.CPUQuotaPeriodUSec,
		"CPUWeight": &p.CPUWeight, "IOWeight": &p.IOWeight,
	} {
		d.limit(name, l)
	}
	for name, l := range map[string]**Limit{
		"EffectiveMemoryMax": &p.EffectiveMemoryMax, "EffectiveMemoryHigh": &p.EffectiveMemoryHigh,
		"EffectiveTasksMax": &p.EffectiveTasksMax,
	} {
		if d.has(name) {
			*l = new(Limit)
			d.limit(name, *l)
		}
	}
	d.limit("CPUUsageNSec", &p.CPUUsageNSec)
	var cpus, mems []byte
	d.any("AllowedCPUs", &cpus)
	d.any("AllowedMemoryNodes", &mems)
	p.AllowedCPUs, p.AllowedMemoryNodes = cpuSetFromBitmap(cpus), cpuSetFromBitmap(mems)
	d.any("Delegate", &p.Delegate)
	d.any("DelegateControllers", &p.DelegateControllers)
	d.str("DelegateSubgroup", &p.DelegateSubgroup)
	d.typed("DevicePolicy", (*string)(&p.DevicePolicy))
	d.any("DeviceAllow", &p.DeviceAllow)
	d.any("IODeviceWeight", &p.IODeviceWeight)
	d.any("IOReadBandwidthMax", &p.IOReadBandwidthMax)
	d.any("IOWriteBandwidthMax", &p.IOWriteBandwidthMax)
	d.any("IOReadIOPSMax", &p.IOReadIOPSMax)
	d.any("IOWriteIOPSMax", &p.IOWriteIOPSMax)
	d.any("CPUAccounting", &p.CPUAccounting)
	d.any("MemoryAccounting", &p.MemoryAccounting)
	d.any("IOAccounting", &p.IOAccounting)
	d.any("TasksAccounting", &p.TasksAccounting)
}

func (d *propDecoder) limit(name string, out *Limit) {
	var v uint64
	if !d.has(name) {
		return
	}
	d.any(name, &v)
	*out = limitOf(v)
}

// propDecoder copies values out of a GetAll map, keeping the first error.
// Missing properties are left alone (and listed in missing, when it is not
// nil); a value of the wrong type is an error.
type propDecoder struct {
	op, unit string
	m        map[string]dbus.Variant
	err      error
	missing  []string
}

// has reports whether the map holds name, and notes it as missing if not.
func (d *propDecoder) has(name string) bool {
	_, ok := d.m[name]
	if !ok && d.missing != nil {
		d.missing = append(d.missing, name)
	}
	return ok
}

func (d *propDecoder) any(name string, out any) {
	if !d.has(name) || d.err != nil {
		return
	}
	v := d.m[name]
	if err := dbus.Store([]any{v.Value()}, out); err != nil {
		d.err = &Error{Op: d.op, Unit: d.unit, Message: fmt.Sprintf("property %s has unexpected type %s", name, v.Signature()), Err: err}
	}
}

func (d *propDecoder) str(name string, out *string)   { d.any(name, out) }
func (d *propDecoder) typed(name string, out *string) { d.any(name, out) }
