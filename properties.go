package sdbus

import (
	"fmt"

	"github.com/godbus/dbus/v5"
)

// Property is one unit property for StartTransientUnit and
// SetUnitProperties: a name and a D-Bus variant, as in go-systemd, so
// existing property lists carry over.
//
// Build properties with the Prop* functions, which give each value the
// signature systemd expects and check its range. A builder that rejects
// its arguments returns a Property carrying the error; the call that gets
// it fails with ErrInvalidArgs before anything is sent. A Property written
// as a literal is checked too: when systemd knows the name, the variant's
// signature must be the one systemd expects.
type Property struct {
	Name  string
	Value dbus.Variant

	err error // set by a builder that rejected its arguments
}

// propertyWire is a Property as sent: (sv).
type propertyWire struct {
	Name  string
	Value dbus.Variant
}

// Err returns the error a builder recorded in p, or nil.
func (p Property) Err() error { return p.err }

func badProp(name, format string, args ...any) Property {
	return Property{Name: name, err: fmt.Errorf("property %s: %s", name, fmt.Sprintf(format, args...))}
}

func prop(name string, v any) Property { return Property{Name: name, Value: dbus.MakeVariant(v)} }

// encodeProperties validates props and converts them for the wire.
func encodeProperties(op, unit string, props []Property) ([]propertyWire, error) {
	out := make([]propertyWire, 0, len(props))
	for _, p := range props {
		if err := p.check(); err != nil {
			return nil, &Error{Op: op, Unit: unit, Message: err.Error(), Err: ErrInvalidArgs}
		}
		out = append(out, propertyWire{p.Name, p.Value})
	}
	return out, nil
}

func (p Property) check() error {
	if p.err != nil {
		return p.err
	}
	if p.Name == "" {
		return fmt.Errorf("property with an empty name")
	}
	if p.Value.Value() == nil {
		return fmt.Errorf("property %s has no value", p.Name)
	}
	sig := p.Value.Signature().String()
	if spec, ok := lookupProperty(p.Name); ok && spec.sig != sig {
		return fmt.Errorf("property %s must have D-Bus type %s, not %s", p.Name, spec.sig, sig)
	}
	return nil
}

// PropDescription sets the unit's Description.
func PropDescription(s string) Property { return prop("Description", s) }

// PropSlice places a service or scope in a slice.
func PropSlice(slice string) Property {
	if err := validateSuffix(slice, ".slice"); err != nil {
		return badProp("Slice", "%v", err)
	}
	return prop("Slice", slice)
}

// PropPIDs lists the processes StartTransientUnit moves into a new scope
// (or service). Placing PIDs is why a UnitExists must never be ignored.
func PropPIDs(pids ...uint32) Property {
	for _, p := range pids {
		if p == 0 {
			return badProp("PIDs", "PID 0")
		}
	}
	if len(pids) == 0 {
		return badProp("PIDs", "no PIDs")
	}
	return prop("PIDs", pids)
}

// execCommand is one ExecStart= entry, (sasb): path, argv, ignore failure.
type execCommand struct {
	Path          string
	Argv          []string
	IgnoreFailure bool
}

// PropExecStart sets the command of a transient service. argv[0] must be an
// absolute path; it is also passed as the program's argv[0]. With
// ignoreFailure, a non-zero exit does not fail the unit (the "-" prefix of
// unit files).
func PropExecStart(argv []string, ignoreFailure bool) Property {
	return execProp("ExecStart", argv, ignoreFailure)
}

func execProp(name string, argv []string, ignoreFailure bool) Property {
	if len(argv) == 0 || len(argv[0]) == 0 || argv[0][0] != '/' {
		return badProp(name, "argv[0] must be an absolute path, got %q", argv)
	}
	return prop(name, []execCommand{{argv[0], argv, ignoreFailure}})
}

// CollectMode is a unit's garbage collection policy.
type CollectMode string

// Collect modes (systemd 236 and later).
const (
	// CollectInactive unloads a unit when it is inactive, but keeps a
	// failed unit loaded until ResetFailedUnit. This is systemd's default.
	CollectInactive CollectMode = "inactive"
	// CollectInactiveOrFailed unloads a failed unit as well, so its name is
	// free again at once.
	CollectInactiveOrFailed CollectMode = "inactive-or-failed"
)

// PropCollectMode sets CollectMode (systemd 236 and later).
func PropCollectMode(m CollectMode) Property {
	switch m {
	case CollectInactive, CollectInactiveOrFailed:
		return prop("CollectMode", string(m))
	}
	return badProp("CollectMode", "unknown mode %q", string(m))
}

// PropDelegate turns on cgroup delegation for a scope or service; systemd
// refuses it on slices since 237.
func PropDelegate(b bool) Property { return prop("Delegate", b) }

// PropDefaultDependencies sets DefaultDependencies; cgroup managers set it
// to false for scopes and slices so that they have no implicit ordering
// against shutdown and basic.target.
func PropDefaultDependencies(b bool) Property { return prop("DefaultDependencies", b) }

// ServiceType is a service's Type=.
type ServiceType string

// Service types.
const (
	ServiceSimple  ServiceType = "simple"
	ServiceExec    ServiceType = "exec"
	ServiceForking ServiceType = "forking"
	ServiceOneshot ServiceType = "oneshot"
	ServiceDBus    ServiceType = "dbus"
	ServiceNotify  ServiceType = "notify"
	ServiceIdle    ServiceType = "idle"
)

// PropType sets a service's Type. With ServiceOneshot the start job ends
// only when ExecStart has exited, and fails if it failed.
func PropType(t ServiceType) Property {
	if t == "" {
		return badProp("Type", "empty service type")
	}
	return prop("Type", string(t))
}

// PropRemainAfterExit keeps a oneshot service active after its process
// exited.
func PropRemainAfterExit(b bool) Property { return prop("RemainAfterExit", b) }

// propSpec describes a property systemd accepts in transient units: its
// D-Bus signature and the systemd release that introduced it (0 when it
// predates the releases still in use).
type propSpec struct {
	sig   string
	since int
}

// lookupProperty returns what systemd expects for a settable property.
func lookupProperty(name string) (propSpec, bool) {
	s, ok := propertySpecs[name]
	return s, ok
}

// propertySpecs is read-only: the settable unit, service, scope and cgroup
// properties of systemd's transient-unit API (src/core/dbus-*.c) that
// cgroup managers use, with their types and first releases.
var propertySpecs = map[string]propSpec{
	// Unit
	"Description":            {"s", 0},
	"Documentation":          {"as", 0},
	"Wants":                  {"as", 0},
	"Requires":               {"as", 0},
	"Requisite":              {"as", 0},
	"BindsTo":                {"as", 0},
	"PartOf":                 {"as", 0},
	"Upholds":                {"as", 249},
	"Conflicts":              {"as", 0},
	"Before":                 {"as", 0},
	"After":                  {"as", 0},
	"OnFailure":              {"as", 0},
	"OnSuccess":              {"as", 249},
	"DefaultDependencies":    {"b", 0},
	"RefuseManualStart":      {"b", 0},
	"RefuseManualStop":       {"b", 0},
	"AllowIsolate":           {"b", 0},
	"StopWhenUnneeded":       {"b", 0},
	"CollectMode":            {"s", 236},
	"AddRef":                 {"b", 244},
	"JobTimeoutUSec":         {"t", 0},
	"Conditions":             {"a(sbbs)", 0},
	"Asserts":                {"a(sbbs)", 0},
	"Slice":                  {"s", 0},
	"StartLimitBurst":        {"u", 0},
	"StartLimitIntervalUSec": {"t", 0},
	// Service and scope
	"Type":             {"s", 0},
	"ExecStart":        {"a(sasb)", 0},
	"ExecStartPre":     {"a(sasb)", 0},
	"ExecStartPost":    {"a(sasb)", 0},
	"ExecStop":         {"a(sasb)", 0},
	"ExecStopPost":     {"a(sasb)", 0},
	"ExecReload":       {"a(sasb)", 0},
	"ExecCondition":    {"a(sasb)", 243},
	"RemainAfterExit":  {"b", 0},
	"Restart":          {"s", 0},
	"RestartUSec":      {"t", 0},
	"TimeoutStartUSec": {"t", 0},
	"TimeoutStopUSec":  {"t", 0},
	"RuntimeMaxUSec":   {"t", 0},
	"User":             {"s", 0},
	"Group":            {"s", 0},
	"WorkingDirectory": {"s", 0},
	"Environment":      {"as", 0},
	"KillMode":         {"s", 0},
	"KillSignal":       {"i", 0},
	"FinalKillSignal":  {"i", 243},
	"SendSIGKILL":      {"b", 0},
	"SendSIGHUP":       {"b", 0},
	"OOMPolicy":        {"s", 243},
	"OOMScoreAdjust":   {"i", 0},
	"PIDs":             {"au", 0},
	"Nice":             {"i", 0},
	// cgroup
	"CPUAccounting":             {"b", 0},
	"CPUWeight":                 {"t", 0},
	"StartupCPUWeight":          {"t", 0},
	"CPUShares":                 {"t", 0},
	"CPUQuotaPerSecUSec":        {"t", 0},
	"CPUQuotaPeriodUSec":        {"t", 242},
	"AllowedCPUs":               {"ay", 244},
	"StartupAllowedCPUs":        {"ay", 249},
	"AllowedMemoryNodes":        {"ay", 244},
	"IOAccounting":              {"b", 0},
	"IOWeight":                  {"t", 0},
	"StartupIOWeight":           {"t", 0},
	"IODeviceWeight":            {"a(st)", 0},
	"IOReadBandwidthMax":        {"a(st)", 0},
	"IOWriteBandwidthMax":       {"a(st)", 0},
	"IOReadIOPSMax":             {"a(st)", 0},
	"IOWriteIOPSMax":            {"a(st)", 0},
	"IODeviceLatencyTargetUSec": {"a(st)", 240},
	"BlockIOAccounting":         {"b", 0},
	"BlockIOWeight":             {"t", 0},
	"MemoryAccounting":          {"b", 0},
	"MemoryMin":                 {"t", 240},
	"MemoryLow":                 {"t", 0},
	"MemoryHigh":                {"t", 231},
	"MemoryMax":                 {"t", 231},
	"MemorySwapMax":             {"t", 232},
	"MemoryZSwapMax":            {"t", 253},
	"MemoryLimit":               {"t", 0},
	"MemoryMinScale":            {"u", 240},
	"MemoryLowScale":            {"u", 240},
	"MemoryHighScale":           {"u", 240},
	"MemoryMaxScale":            {"u", 240},
	"MemorySwapMaxScale":        {"u", 240},
	"DevicePolicy":              {"s", 0},
	"DeviceAllow":               {"a(ss)", 0},
	"TasksAccounting":           {"b", 227},
	"TasksMax":                  {"t", 227},
	"TasksMaxScale":             {"u", 240},
	"Delegate":                  {"b", 218},
	"DelegateControllers":       {"as", 236},
	"DelegateSubgroup":          {"s", 254},
	"DisableControllers":        {"as", 240},
	"ManagedOOMSwap":            {"s", 247},
	"ManagedOOMMemoryPressure":  {"s", 247},
	"IPAccounting":              {"b", 235},
}
