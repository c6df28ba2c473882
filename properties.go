package sdbus

import (
	"syscall"

	"github.com/godbus/dbus/v5"
)

// Property is one unit property for StartTransientUnit and
// SetUnitProperties: a name and a D-Bus variant, as in go-systemd, so
// existing property lists carry over (see FromDBusProperties). It is a
// plain value: a builder's result equals Property{Name, Value} with the
// same name and value (== for scalar values, reflect.DeepEqual for all).
//
// Build properties with the Prop* functions, which give each value the
// signature systemd expects. Every property is checked by name before
// anything is sent, whether a builder or a literal made it: the variant's
// D-Bus type must be the one systemd expects for the name, and for the
// names sdbus has a builder for, the value must be in the range the
// builder documents. A builder given bad arguments keeps them as the value,
// so the call that gets it fails with ErrInvalidArgs naming the problem;
// Err reports it at once.
type Property struct {
	Name  string
	Value dbus.Variant
}

// propertyWire is a Property as sent: (sv).
type propertyWire struct {
	Name  string
	Value dbus.Variant
}

// Err returns what is wrong with p, or nil: the check CheckProperties,
// StartTransientUnit and SetUnitProperties make before sending.
func (p Property) Err() error { return p.check() }

func prop(name string, v any) Property { return Property{Name: name, Value: dbus.MakeVariant(v)} }

// PropRaw passes any property through, for settings sdbus has no builder
// for (such as the values of org.systemd.property.* annotations). When
// sdbus knows the name, the value must have systemd's D-Bus type; an
// unknown name is left to the manager, which refuses it with
// ErrNotSupported. A nil value gives a Property without a value, which is
// refused when used.
func PropRaw(name string, value any) Property {
	if value == nil {
		return Property{Name: name}
	}
	if v, ok := value.(dbus.Variant); ok {
		return Property{Name: name, Value: v}
	}
	return prop(name, value)
}

// CheckProperties reports the first property that has no name, no value,
// not the D-Bus type systemd expects for its name, or a value the builder
// of that name would refuse. The error matches ErrInvalidArgs.
// StartTransientUnit and SetUnitProperties run the same check before
// sending anything.
func CheckProperties(props ...Property) error {
	_, err := encodeProperties("CheckProperties", "", props)
	return err
}

// encodeProperties validates props and converts them for the wire.
func encodeProperties(op, unit string, props []Property) ([]propertyWire, error) {
	out := make([]propertyWire, 0, len(props))
	for _, p := range props {
		if err := p.check(); err != nil {
			return nil, &Error{Op: op, Unit: unit, Message: err.Error(), Err: ErrInvalidArgs}
		}
		out = append(out, propertyWire(p))
	}
	return out, nil
}

// Since returns the systemd release that introduced p for units of type t,
// or 0 when it is older than any release still in use. A property sdbus
// does not know, or one that units of type t do not take, returns -1.
func (p Property) Since(t UnitType) int {
	spec, ok := propertySpecs[p.Name]
	if !ok || !spec.appliesTo(t) {
		return -1
	}
	since := spec.since
	if n, ok := spec.sinceFor[t]; ok {
		since = n
	}
	if p.Name == "CPUWeight" && p.Value.Value() == CPUWeightIdle {
		since = max(since, 252) // the idle class
	}
	if p.Name == "Type" && p.Value.Value() == string(ServiceNotifyReload) {
		since = max(since, 253)
	}
	return since
}

// PropertiesRejectedBy returns the names of the properties in props that a
// manager of version v would refuse in StartTransientUnit or
// SetUnitProperties for the named unit: properties newer than v, and
// properties the unit's type does not take. Properties sdbus does not know
// are not reported; systemd decides on those.
//
// Versions are hints: a distribution may have backported a property (see
// Conn.Supports to ask the manager itself).
func PropertiesRejectedBy(v Version, unit string, props []Property) []string {
	t, err := UnitTypeOf(unit)
	if err != nil {
		return nil
	}
	var out []string
	for _, p := range props {
		if _, known := propertySpecs[p.Name]; !known {
			continue
		}
		if since := p.Since(t); since < 0 || since > v.Major {
			out = append(out, p.Name)
		}
	}
	return out
}

// PropDescription sets the unit's Description.
func PropDescription(s string) Property { return prop("Description", s) }

// PropSlice places a service or scope in a slice, such as "system.slice"
// or "kubepods-besteffort.slice".
func PropSlice(slice string) Property { return prop("Slice", slice) }

// errMessage returns the message of an *Error built by invalidArg.
func errMessage(err error) string {
	if e, ok := err.(*Error); ok && e.Message != "" {
		return e.Message
	}
	return err.Error()
}

// PropPIDs lists the processes StartTransientUnit moves into a new scope.
// Placing PIDs is why a UnitExists must never be ignored: the processes
// would stay where they are.
func PropPIDs(pids ...uint32) Property {
	if pids == nil {
		pids = []uint32{}
	}
	return prop("PIDs", pids)
}

// execCommand is one ExecStart= entry, (sasb): path, argv, ignore failure.
type execCommand struct {
	Path          string
	Argv          []string
	IgnoreFailure bool
}

// PropExecStart sets the command of a transient service. argv[0] is the
// program: an absolute path, or a name systemd looks up in its own PATH
// (systemd 247 and later take both); it is also passed as the program's
// argv[0]. An empty argv is refused when used (systemd 252 refuses it,
// 247 takes it and then aborts when the service starts). With
// ignoreFailure, a non-zero exit does not fail the unit (the "-" prefix of
// unit files).
func PropExecStart(argv []string, ignoreFailure bool) Property {
	path := ""
	if len(argv) > 0 {
		path = argv[0]
	}
	if argv == nil {
		argv = []string{}
	}
	return prop("ExecStart", []execCommand{{path, argv, ignoreFailure}})
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
	return prop("CollectMode", string(m))
}

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
	// ServiceNotifyReload is notify, with reloads by signal (systemd 253
	// and later).
	ServiceNotifyReload ServiceType = "notify-reload"
)

// PropType sets a service's Type. With ServiceOneshot the start job ends
// only when ExecStart has exited, and fails if it failed.
func PropType(t ServiceType) Property {
	return prop("Type", string(t))
}

// PropRemainAfterExit keeps a service active after its process exited.
func PropRemainAfterExit(b bool) Property { return prop("RemainAfterExit", b) }

// dependency builds a dependency list property.
func dependency(name string, units []string) Property {
	if units == nil {
		units = []string{}
	}
	return prop(name, units)
}

// PropWants adds Wants= dependencies: the units are started along, and
// their failure does not matter. runc gives a transient slice Wants= on
// its parent.
func PropWants(units ...string) Property { return dependency("Wants", units) }

// PropRequires adds Requires= dependencies: the units are started along,
// and if one fails to start (with After=), this unit's start job ends with
// JobDependency.
func PropRequires(units ...string) Property { return dependency("Requires", units) }

// PropBindsTo adds BindsTo= dependencies: like Requires=, and the unit stops
// when one of them stops.
func PropBindsTo(units ...string) Property { return dependency("BindsTo", units) }

// PropAfter orders the unit after the given units.
func PropAfter(units ...string) Property { return dependency("After", units) }

// PropBefore orders the unit before the given units.
func PropBefore(units ...string) Property { return dependency("Before", units) }

// PropConflicts adds Conflicts= dependencies.
func PropConflicts(units ...string) Property { return dependency("Conflicts", units) }

// PropPartOf adds PartOf= dependencies: stopping or restarting one of the
// units stops or restarts this one.
func PropPartOf(units ...string) Property { return dependency("PartOf", units) }

// KillMode says which processes of a unit systemd kills when stopping it.
type KillMode string

// Kill modes.
const (
	KillControlGroup KillMode = "control-group" // every process in the cgroup (default)
	KillProcess      KillMode = "process"       // only the main process
	KillMixed        KillMode = "mixed"         // SIGTERM to the main process, SIGKILL to the rest
	KillNone         KillMode = "none"          // no process is killed
)

// PropKillMode sets KillMode for a service or scope.
func PropKillMode(m KillMode) Property {
	return prop("KillMode", string(m))
}

// PropKillSignal sets the signal that stops a service or scope (SIGTERM
// by default; cri-o uses SIGPIPE for conmon).
func PropKillSignal(sig syscall.Signal) Property {
	n := int32(sig)
	if syscall.Signal(n) != sig {
		n = -1 // out of range, refused when used
	}
	return prop("KillSignal", n)
}

// OOMPolicy is what systemd does when the kernel's OOM killer kills a
// process of the unit.
type OOMPolicy string

// OOM policies (services since systemd 243, scopes since 253).
const (
	OOMContinue OOMPolicy = "continue"
	OOMStop     OOMPolicy = "stop"
	OOMKill     OOMPolicy = "kill"
)

// PropOOMPolicy sets OOMPolicy (services: systemd 243, scopes: 253).
func PropOOMPolicy(p OOMPolicy) Property {
	return prop("OOMPolicy", string(p))
}

// propSpec describes a property systemd accepts in transient units: its
// D-Bus signature, the systemd release that introduced it (0 when it
// predates the releases still in use, with per-type exceptions), and the
// unit types that take it.
type propSpec struct {
	sig      string
	since    int
	sinceFor map[UnitType]int
	types    unitTypes
}

// unitTypes is a set of unit types a property applies to.
type unitTypes uint8

const (
	forAll     unitTypes = 0
	forService unitTypes = 1 << iota
	forScope
	forSlice
	forExec   = forService | forScope
	forCgroup = forService | forScope | forSlice
)

func (s propSpec) appliesTo(t UnitType) bool {
	switch {
	case s.types == forAll:
		return true
	case t == UnitTypeService:
		return s.types&forService != 0
	case t == UnitTypeScope:
		return s.types&forScope != 0
	case t == UnitTypeSlice:
		return s.types&forSlice != 0
	}
	// Other types with a cgroup (sockets, mounts, swaps) take the cgroup
	// and kill settings, not those of services.
	return s.types&forSlice != 0 || s.types == forExec
}

// propertySpecs is read-only: the settable properties of systemd's
// transient-unit API (src/core/dbus-{unit,service,scope,kill,cgroup}.c)
// that cgroup managers use, with their types and first releases.
var propertySpecs = map[string]propSpec{
	// Unit
	"Description":            {sig: "s"},
	"Documentation":          {sig: "as"},
	"Wants":                  {sig: "as"},
	"Requires":               {sig: "as"},
	"Requisite":              {sig: "as"},
	"BindsTo":                {sig: "as"},
	"PartOf":                 {sig: "as"},
	"Upholds":                {sig: "as", since: 249},
	"Conflicts":              {sig: "as"},
	"Before":                 {sig: "as"},
	"After":                  {sig: "as"},
	"OnFailure":              {sig: "as"},
	"OnSuccess":              {sig: "as", since: 249},
	"DefaultDependencies":    {sig: "b"},
	"RefuseManualStart":      {sig: "b"},
	"RefuseManualStop":       {sig: "b"},
	"AllowIsolate":           {sig: "b"},
	"StopWhenUnneeded":       {sig: "b"},
	"CollectMode":            {sig: "s", since: 236},
	"AddRef":                 {sig: "b", since: 244},
	"JobTimeoutUSec":         {sig: "t"},
	"Conditions":             {sig: "a(sbbs)"},
	"Asserts":                {sig: "a(sbbs)"},
	"StartLimitBurst":        {sig: "u"},
	"StartLimitIntervalUSec": {sig: "t"},
	// Services and scopes
	"Slice":            {sig: "s", types: forExec},
	"Type":             {sig: "s", types: forService},
	"ExecStart":        {sig: "a(sasb)", types: forService},
	"ExecStartPre":     {sig: "a(sasb)", types: forService},
	"ExecStartPost":    {sig: "a(sasb)", types: forService},
	"ExecStop":         {sig: "a(sasb)", types: forService},
	"ExecStopPost":     {sig: "a(sasb)", types: forService},
	"ExecReload":       {sig: "a(sasb)", types: forService},
	"ExecCondition":    {sig: "a(sasb)", since: 243, types: forService},
	"RemainAfterExit":  {sig: "b", types: forService},
	"Restart":          {sig: "s", types: forService},
	"RestartUSec":      {sig: "t", types: forService},
	"TimeoutStartUSec": {sig: "t", types: forService},
	"TimeoutStopUSec":  {sig: "t", types: forExec},
	"RuntimeMaxUSec":   {sig: "t", types: forExec},
	"User":             {sig: "s", sinceFor: map[UnitType]int{UnitTypeScope: 252}, types: forExec}, // a scope's: its delegated cgroup's owner
	"Group":            {sig: "s", sinceFor: map[UnitType]int{UnitTypeScope: 252}, types: forExec},
	"WorkingDirectory": {sig: "s", types: forService},
	"Environment":      {sig: "as", types: forService},
	"Nice":             {sig: "i", types: forService},
	"OOMScoreAdjust":   {sig: "i", types: forService},
	"PIDs":             {sig: "au", types: forScope},
	// Scopes: 253 upstream, as runc gates it; Debian's 252.38 already
	// accepts it (see the conformance suite). A hint errs on the safe side.
	"OOMPolicy":       {sig: "s", since: 243, sinceFor: map[UnitType]int{UnitTypeScope: 253}, types: forExec},
	"KillMode":        {sig: "s", types: forExec},
	"KillSignal":      {sig: "i", types: forExec},
	"FinalKillSignal": {sig: "i", since: 243, types: forExec},
	"SendSIGKILL":     {sig: "b", types: forExec},
	"SendSIGHUP":      {sig: "b", types: forExec},
	// cgroups
	"Delegate":                  {sig: "b", since: 218, types: forExec},
	"DelegateControllers":       {sig: "as", since: 236, types: forExec},
	"DelegateSubgroup":          {sig: "s", since: 254, types: forExec},
	"CPUAccounting":             {sig: "b", types: forCgroup},
	"CPUWeight":                 {sig: "t", types: forCgroup},
	"StartupCPUWeight":          {sig: "t", types: forCgroup},
	"CPUShares":                 {sig: "t", types: forCgroup},
	"CPUQuotaPerSecUSec":        {sig: "t", types: forCgroup},
	"CPUQuotaPeriodUSec":        {sig: "t", since: 242, types: forCgroup},
	"AllowedCPUs":               {sig: "ay", since: 244, types: forCgroup},
	"StartupAllowedCPUs":        {sig: "ay", since: 249, types: forCgroup},
	"AllowedMemoryNodes":        {sig: "ay", since: 244, types: forCgroup},
	"IOAccounting":              {sig: "b", types: forCgroup},
	"IOWeight":                  {sig: "t", types: forCgroup},
	"StartupIOWeight":           {sig: "t", types: forCgroup},
	"IODeviceWeight":            {sig: "a(st)", types: forCgroup},
	"IOReadBandwidthMax":        {sig: "a(st)", types: forCgroup},
	"IOWriteBandwidthMax":       {sig: "a(st)", types: forCgroup},
	"IOReadIOPSMax":             {sig: "a(st)", types: forCgroup},
	"IOWriteIOPSMax":            {sig: "a(st)", types: forCgroup},
	"IODeviceLatencyTargetUSec": {sig: "a(st)", since: 240, types: forCgroup},
	"BlockIOAccounting":         {sig: "b", types: forCgroup},
	"BlockIOWeight":             {sig: "t", types: forCgroup},
	"MemoryAccounting":          {sig: "b", types: forCgroup},
	"MemoryMin":                 {sig: "t", since: 240, types: forCgroup},
	"MemoryLow":                 {sig: "t", types: forCgroup},
	"MemoryHigh":                {sig: "t", since: 231, types: forCgroup},
	"MemoryMax":                 {sig: "t", since: 231, types: forCgroup},
	"MemorySwapMax":             {sig: "t", since: 232, types: forCgroup},
	"MemoryZSwapMax":            {sig: "t", since: 253, types: forCgroup},
	"MemoryLimit":               {sig: "t", types: forCgroup},
	"MemoryMinScale":            {sig: "u", since: 240, types: forCgroup},
	"MemoryLowScale":            {sig: "u", since: 240, types: forCgroup},
	"MemoryHighScale":           {sig: "u", since: 240, types: forCgroup},
	"MemoryMaxScale":            {sig: "u", since: 240, types: forCgroup},
	"MemorySwapMaxScale":        {sig: "u", since: 240, types: forCgroup},
	"DevicePolicy":              {sig: "s", types: forCgroup},
	"DeviceAllow":               {sig: "a(ss)", types: forCgroup},
	"TasksAccounting":           {sig: "b", since: 227, types: forCgroup},
	"TasksMax":                  {sig: "t", since: 227, types: forCgroup},
	"TasksMaxScale":             {sig: "u", since: 240, types: forCgroup},
	"DisableControllers":        {sig: "as", since: 240, types: forCgroup},
	"ManagedOOMSwap":            {sig: "s", since: 247, types: forCgroup},
	"ManagedOOMMemoryPressure":  {sig: "s", since: 247, types: forCgroup},
	"IPAccounting":              {sig: "b", since: 235, types: forCgroup},
}
