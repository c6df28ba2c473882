package fakebus

import (
	"os"
	"runtime"
	"strings"

	"github.com/godbus/dbus/v5"
	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus/internal/busd"
)

// typeIface returns the D-Bus interface of a unit type.
func typeIface(kind string) string {
	switch kind {
	case "service":
		return "org.freedesktop.systemd1.Service"
	case "scope":
		return "org.freedesktop.systemd1.Scope"
	case "slice":
		return "org.freedesktop.systemd1.Slice"
	case "target":
		return "org.freedesktop.systemd1.Target"
	case "socket":
		return "org.freedesktop.systemd1.Socket"
	case "mount":
		return "org.freedesktop.systemd1.Mount"
	}
	return ""
}

func errUnknownProperty() *callErr {
	return &callErr{dbusErr + "UnknownProperty", "Unknown property or interface."}
}

// propertiesCallLocked answers org.freedesktop.DBus.Properties.
func (m *manager) propertiesCallLocked(c *busd.Call) ([]any, error) {
	switch c.Member {
	case "Get":
		if err := args(c, "ss"); err != nil {
			return nil, err
		}
		props, err := m.objectPropsLocked(c.Path, c.Body[0].(string))
		if err != nil {
			return nil, err
		}
		v, ok := props[c.Body[1].(string)]
		if !ok {
			return nil, errUnknownProperty()
		}
		return []any{v}, nil
	case "GetAll":
		if err := args(c, "s"); err != nil {
			return nil, err
		}
		props, err := m.objectPropsLocked(c.Path, c.Body[0].(string))
		if err != nil {
			return nil, err
		}
		for name := range props {
			if m.hidden(name) {
				delete(props, name) // Get still answers it
			}
		}
		return []any{props}, nil
	case "Set":
		if err := args(c, "ssv"); err != nil {
			return nil, err
		}
		return nil, &callErr{dbusErr + "PropertyReadOnly", "Property '" + c.Body[1].(string) + "' is not writable."}
	}
	return nil, errUnknownMethod(c)
}

// objectPropsLocked returns the properties of one interface of an object.
func (m *manager) objectPropsLocked(p dbus.ObjectPath, iface string) (map[string]dbus.Variant, error) {
	switch {
	case p == managerPath:
		if iface != managerIface {
			return nil, errUnknownProperty()
		}
		return m.readPropsLocked(nil, iface, m.managerPropsLocked()), nil
	case strings.HasPrefix(string(p), jobPathBase):
		j, ok := m.jobs[jobIDOf(p)]
		if !ok {
			return nil, &callErr{dbusErr + "UnknownObject", "Unknown object '" + string(p) + "'."}
		}
		if iface != jobIface {
			return nil, errUnknownProperty()
		}
		return map[string]dbus.Variant{
			"Id": dbus.MakeVariant(j.id),
			"Unit": dbus.MakeVariant(struct {
				Name string
				Path dbus.ObjectPath
			}{j.unit.name, j.unit.path()}),
			"JobType": dbus.MakeVariant(string(j.typ)),
			"State":   dbus.MakeVariant(j.state),
		}, nil
	}
	name, err := sdbus.UnitNameFromPath(p)
	if u := m.unitByInvocationPathLocked(p); u != nil {
		name, err = u.name, nil // a unit's object by its invocation ID
	}
	if err != nil {
		return nil, &callErr{dbusErr + "UnknownObject", "Unknown object '" + string(p) + "'."}
	}
	// Reading a unit's properties loads it; a unit without a file shows
	// up as not-found (and is collected again). systemd collects a unit
	// loaded this way soon after; the fake does it once it has answered.
	_, loaded := m.units[m.primaryLocked(name)]
	u := m.loadLocked(name)
	if u != nil && !loaded {
		defer m.collectLocked(u)
	}
	if u == nil {
		if sdbus.ValidateUnitName(name) != nil {
			return nil, &callErr{dbusErr + "UnknownObject", "Unknown object '" + string(p) + "'."}
		}
		u = &unit{name: name, kind: name[strings.LastIndexByte(name, '.')+1:], load: "not-found",
			active: "inactive", sub: "dead", props: map[string]dbus.Variant{}, condition: true, assert: true}
	}
	switch iface {
	case unitIface:
		return m.readPropsLocked(u, iface, m.unitPropsLocked(u)), nil
	case typeIface(u.kind):
		return m.readPropsLocked(u, iface, m.typePropsLocked(u)), nil
	}
	return nil, errUnknownProperty()
}

func (m *manager) managerPropsLocked() map[string]dbus.Variant {
	nFailed := uint32(0)
	for _, u := range m.units {
		if u.active == "failed" {
			nFailed++
		}
	}
	virt := "none"
	if os.Getenv("container") != "" {
		virt = "container-other"
	}
	return map[string]dbus.Variant{
		"Version":         dbus.MakeVariant(m.version),
		"Features":        dbus.MakeVariant("+PAM -SELINUX default-hierarchy=unified"),
		"Virtualization":  dbus.MakeVariant(virt),
		"Architecture":    dbus.MakeVariant(goarchToSystemd(runtime.GOARCH)),
		"Tainted":         dbus.MakeVariant(""),
		"ControlGroup":    dbus.MakeVariant(""),
		"SystemState":     dbus.MakeVariant("running"),
		"NNames":          dbus.MakeVariant(uint32(len(m.units))),
		"NFailedUnits":    dbus.MakeVariant(nFailed),
		"NJobs":           dbus.MakeVariant(uint32(len(m.jobs))),
		"DefaultTasksMax": dbus.MakeVariant(infinity),
	}
}

func goarchToSystemd(a string) string {
	switch a {
	case "amd64":
		return "x86-64"
	case "386":
		return "x86"
	}
	return a
}

func (m *manager) unitPropsLocked(u *unit) map[string]dbus.Variant {
	job := jobRef{0, "/"}
	if u.job != nil {
		job = jobRef{u.job.id, u.job.path()}
	}
	inv := u.invocation
	if inv == nil {
		inv = []byte{}
	}
	collect := u.str("CollectMode")
	if collect == "" {
		collect = "inactive"
	}
	lists := func(name string) dbus.Variant {
		l := u.list(name)
		if l == nil {
			l = []string{}
		}
		return dbus.MakeVariant(l)
	}
	ts := func(t bool) uint64 {
		if !t || u.activeAt.IsZero() {
			return 0
		}
		return uint64(u.activeAt.UnixMicro())
	}
	props := map[string]dbus.Variant{
		"Id":                   dbus.MakeVariant(u.name),
		"Names":                dbus.MakeVariant(m.namesLocked(u)),
		"Following":            dbus.MakeVariant(""),
		"Description":          dbus.MakeVariant(description(u)),
		"LoadState":            dbus.MakeVariant(u.load),
		"ActiveState":          dbus.MakeVariant(u.active),
		"SubState":             dbus.MakeVariant(u.sub),
		"FreezerState":         dbus.MakeVariant(strOr(u.freezer, "running")),
		"FragmentPath":         dbus.MakeVariant(""),
		"Transient":            dbus.MakeVariant(u.transient),
		"CollectMode":          dbus.MakeVariant(collect),
		"Job":                  dbus.MakeVariant(job),
		"InvocationID":         dbus.MakeVariant(inv),
		"ConditionResult":      dbus.MakeVariant(u.condition),
		"AssertResult":         dbus.MakeVariant(u.assert),
		"Requires":             lists("Requires"),
		"Wants":                lists("Wants"),
		"BindsTo":              lists("BindsTo"),
		"After":                lists("After"),
		"Before":               lists("Before"),
		"Conflicts":            lists("Conflicts"),
		"DefaultDependencies":  dbus.MakeVariant(u.boolProp("DefaultDependencies", true)),
		"RefuseManualStart":    dbus.MakeVariant(u.boolProp("RefuseManualStart", false)),
		"RefuseManualStop":     dbus.MakeVariant(u.boolProp("RefuseManualStop", false)),
		"StopWhenUnneeded":     dbus.MakeVariant(u.boolProp("StopWhenUnneeded", false)),
		"CanStart":             dbus.MakeVariant(u.load == "loaded"),
		"CanStop":              dbus.MakeVariant(u.load == "loaded" && !u.perpetual),
		"CanReload":            dbus.MakeVariant(u.props["ExecReload"].Value() != nil),
		"ActiveEnterTimestamp": dbus.MakeVariant(ts(true)),
		"StateChangeTimestamp": dbus.MakeVariant(uint64(u.changed.UnixMicro())),
		"NeedDaemonReload":     dbus.MakeVariant(false),
	}
	if !m.has("CollectMode") {
		delete(props, "CollectMode")
	}
	return props
}

// u64 returns a t property or its default.
func (u *unit) u64(name string, def uint64) uint64 {
	if v, ok := u.props[name]; ok {
		if n, ok := v.Value().(uint64); ok {
			return n
		}
	}
	return def
}

func (u *unit) bytesProp(name string) []byte {
	if v, ok := u.props[name]; ok {
		if b, ok := v.Value().([]byte); ok {
			return b
		}
	}
	return []byte{}
}

// typePropsLocked returns the properties of a unit's type interface.
func (m *manager) typePropsLocked(u *unit) map[string]dbus.Variant {
	props := map[string]dbus.Variant{}
	add := func(name string, v any) {
		if m.has(name) {
			props[name] = dbus.MakeVariant(v)
		}
	}
	withSig := func(name, sig string, def any) {
		if v, ok := u.props[name]; ok {
			props[name] = v
			return
		}
		props[name] = dbus.MakeVariantWithSignature(def, dbus.ParseSignatureMust(sig))
	}
	if u.kind == "service" || u.kind == "scope" {
		add("Result", u.result)
		add("KillMode", strOr(u.str("KillMode"), "control-group"))
		add("KillSignal", int32Or(u, "KillSignal", 15))
		add("TimeoutStopUSec", u.u64("TimeoutStopUSec", 90_000_000))
		add("Delegate", u.boolProp("Delegate", false))
		if l := u.list("DelegateControllers"); l != nil {
			add("DelegateControllers", l)
		} else {
			add("DelegateControllers", []string{})
		}
		add("DelegateSubgroup", u.str("DelegateSubgroup"))
		add("OOMPolicy", strOr(u.str("OOMPolicy"), "stop"))
	}
	if u.kind == "service" {
		mainPID := uint32(0)
		if u.proc != nil {
			mainPID = u.proc.pid
		}
		add("Type", serviceType(u))
		add("MainPID", mainPID)
		add("ExecMainPID", mainPID)
		add("RemainAfterExit", u.boolProp("RemainAfterExit", false))
		add("Restart", strOr(u.str("Restart"), "no"))
		add("NRestarts", uint32(0))
		add("StatusErrno", int32(0))
	}
	if u.kind == "mount" {
		add("Where", u.str("Where"))
	}
	if u.kind == "service" || u.kind == "scope" || u.kind == "slice" || u.kind == "mount" {
		cg := ""
		if u.isActive() || u.active == "activating" || u.active == "deactivating" {
			cg = u.cgroup()
		}
		add("Slice", u.slice())
		add("ControlGroup", cg)
		add("MemoryCurrent", infinity)
		add("TasksCurrent", infinity)
		add("CPUUsageNSec", infinity)
		for _, a := range []string{"CPUAccounting", "MemoryAccounting", "IOAccounting", "TasksAccounting", "BlockIOAccounting"} {
			add(a, u.boolProp(a, false))
		}
		add("CPUWeight", u.u64("CPUWeight", infinity))
		add("StartupCPUWeight", u.u64("StartupCPUWeight", infinity))
		add("CPUShares", u.u64("CPUShares", infinity))
		add("CPUQuotaPerSecUSec", u.u64("CPUQuotaPerSecUSec", infinity))
		add("CPUQuotaPeriodUSec", u.u64("CPUQuotaPeriodUSec", infinity))
		add("AllowedCPUs", u.bytesProp("AllowedCPUs"))
		add("AllowedMemoryNodes", u.bytesProp("AllowedMemoryNodes"))
		add("EffectiveCPUs", []byte{})
		add("EffectiveMemoryNodes", []byte{})
		add("IOWeight", u.u64("IOWeight", infinity))
		add("MemoryMin", u.u64("MemoryMin", 0))
		add("MemoryLow", u.u64("MemoryLow", 0))
		add("MemoryHigh", u.u64("MemoryHigh", infinity))
		add("MemoryMax", u.u64("MemoryMax", infinity))
		add("MemorySwapMax", u.u64("MemorySwapMax", infinity))
		add("MemoryZSwapMax", u.u64("MemoryZSwapMax", infinity))
		add("MemoryLimit", u.u64("MemoryLimit", infinity))
		add("StartupCPUShares", u.u64("StartupCPUShares", infinity))
		add("BlockIOWeight", u.u64("BlockIOWeight", infinity))
		add("DefaultMemoryLow", u.u64("DefaultMemoryLow", 0))
		add("DefaultMemoryMin", u.u64("DefaultMemoryMin", 0))
		add("TasksMax", u.u64("TasksMax", infinity))
		add("DevicePolicy", strOr(u.str("DevicePolicy"), "auto"))
		if m.has("EffectiveMemoryMax") {
			mm, mh, tm := m.effectiveLocked(u)
			props["EffectiveMemoryMax"] = dbus.MakeVariant(mm)
			props["EffectiveMemoryHigh"] = dbus.MakeVariant(mh)
			props["EffectiveTasksMax"] = dbus.MakeVariant(tm)
		}
		for _, name := range []string{"IODeviceWeight", "IOReadBandwidthMax", "IOWriteBandwidthMax", "IOReadIOPSMax", "IOWriteIOPSMax"} {
			withSig(name, "a(st)", []ioEntry{})
		}
		withSig("DeviceAllow", "a(ss)", []devEntry{})
	}
	if u.kind == "scope" {
		add("Controller", "")
	}
	return props
}

// effectiveLocked computes EffectiveMemoryMax, EffectiveMemoryHigh and
// EffectiveTasksMax: the minimum over the unit and its ancestor slices.
func (m *manager) effectiveLocked(u *unit) (mem, high, tasks uint64) {
	mem, high, tasks = infinity, infinity, infinity
	for x := u; x != nil; {
		mem = min(mem, x.u64("MemoryMax", infinity))
		high = min(high, x.u64("MemoryHigh", infinity))
		tasks = min(tasks, x.u64("TasksMax", infinity))
		parent := x.slice()
		if parent == "" {
			break
		}
		x = m.units[parent]
	}
	return mem, high, tasks
}

func strOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func int32Or(u *unit, name string, def int32) int32 {
	if v, ok := u.props[name]; ok {
		if n, ok := v.Value().(int32); ok {
			return n
		}
	}
	return def
}
