// Package sdversions records what differs between systemd releases on the
// bus, as data: which release has a unit property (readable with Get,
// accepted by StartTransientUnit), shows it in GetAll, has a Manager
// method or a job mode, and which feature sdbus's Conn.Supports probes
// each release has. It is the one per-version table of the repository:
// fakebus plays a release from it (WithVersion) and the conformance suite
// derives its expectations from it for the release it talks to.
//
// Releases are given as "MAJOR" or "MAJOR.MINOR": a distribution's point
// release can carry a backport (Debian's 252.38 accepts OOMPolicy on scopes,
// which upstream added in 253). Only Debian's builds of 247.3 (bullseye),
// 252.38/252.39 (bookworm), 257.13 (trixie) and 262.1 (sid) were measured
// (TestMeasuredReleases says what each did); an entry's exact first release
// between those follows upstream's NEWS as far as known, and a comment says
// where that is unsure.
//
// What those releases answer on the bus is captured in data/ (introspection
// data and Properties.GetAll of the manager, a unit of every type and a
// job; LoadCapture reads it, data/README.md describes it,
// scripts/capture-introspection refreshes it). The table is checked
// against it (TestCapturedTable): the Manager methods each release has,
// the unit properties each has per unit type (those Properties does not
// list are generated from the data into measured.go), and what GetAll
// hides.
package sdversions

import (
	"strconv"
	"strings"
)

// Release is a systemd release: major and point (stable) release.
type Release struct{ Major, Minor int }

// R parses "252" or "252.38"; it panics on anything else (table entries).
func R(s string) Release {
	maj, min, _ := strings.Cut(s, ".")
	var r Release
	var err error
	if r.Major, err = strconv.Atoi(maj); err != nil {
		panic("sdversions: bad release " + s)
	}
	if min != "" {
		if r.Minor, err = strconv.Atoi(min); err != nil {
			panic("sdversions: bad release " + s)
		}
	}
	return r
}

// AtLeast reports whether r is s or newer.
func (r Release) AtLeast(s Release) bool {
	if r.Major != s.Major {
		return r.Major > s.Major
	}
	return r.Minor >= s.Minor
}

func (r Release) String() string {
	if r.Minor == 0 {
		return strconv.Itoa(r.Major)
	}
	return strconv.Itoa(r.Major) + "." + strconv.Itoa(r.Minor)
}

// Span is the releases that have something: from Since, and before Until
// (zero: still there).
type Span struct{ Since, Until Release }

// Has reports whether release r is in the span.
func (s Span) Has(r Release) bool {
	return r.AtLeast(s.Since) && (s.Until == Release{} || !r.AtLeast(s.Until))
}

// Property is a unit property (or one value form of it, "CPUWeight=idle")
// that not every release has, or that some releases hide.
type Property struct {
	// Since is the first release where Get answers it and
	// StartTransientUnit accepts it (or the value form); zero: every
	// release still in use.
	Since Release
	// SinceFor overrides Since per unit type ("scope").
	SinceFor map[string]Release
	// Upstream is the upstream release that introduced it, where a
	// distribution's point release (Since or SinceFor) has it earlier.
	Upstream Release
	// HiddenSince is the first release that leaves it out of GetAll and
	// introspection while Get still answers it and StartTransientUnit
	// still accepts it; zero: never hidden.
	HiddenSince Release
}

// Properties lists the unit properties (and value forms) whose first
// release is known more finely than the captured releases tell (upstream's
// NEWS, a distribution's backport, a measurement of StartTransientUnit),
// and those some releases hide. The other unit properties whose presence
// differs between the captured releases are generated from data/ into
// measured.go; TestCapturedTable checks both against the data.
var Properties = map[string]Property{
	// Unit settings.
	"CollectMode":   {Since: R("236")},
	"AddRef":        {Since: R("244")},
	"ExecCondition": {Since: R("243")},
	// OOMPolicy came to services in 243; upstream has it on scopes from
	// 253, Debian's 252.38 already (measured: 247 refuses it on a scope
	// with PropertyReadOnly, 252.38 and 252.39 accept it).
	"OOMPolicy":       {Since: R("243"), SinceFor: map[string]Release{"scope": R("252.38")}, Upstream: R("253")},
	"FinalKillSignal": {Since: R("243")},

	// Resource control.
	"CPUQuotaPeriodUSec":   {Since: R("242")},
	"AllowedCPUs":          {Since: R("244")},
	"AllowedMemoryNodes":   {Since: R("244")},
	"EffectiveCPUs":        {Since: R("244")},
	"EffectiveMemoryNodes": {Since: R("244")},
	// Measured: 247 refuses StartupAllowedCPUs, 252 accepts it.
	"StartupAllowedCPUs":        {Since: R("249")},
	"IODeviceLatencyTargetUSec": {Since: R("240")},
	"MemoryMin":                 {Since: R("240")},
	"MemoryHigh":                {Since: R("231")},
	"MemoryMax":                 {Since: R("231")},
	"MemorySwapMax":             {Since: R("232")},
	// Measured: 247 and 252 refuse MemoryZSwapMax (PropertyReadOnly) and
	// lack the property, 257 has both.
	"MemoryZSwapMax":  {Since: R("253")},
	"TasksAccounting": {Since: R("227")},
	"TasksMax":        {Since: R("227")},
	// Measured: absent on 247 and 252, present on 257 and 262 (upstream
	// 256).
	"EffectiveMemoryMax":  {Since: R("256")},
	"EffectiveMemoryHigh": {Since: R("256")},
	"EffectiveTasksMax":   {Since: R("256")},
	"Delegate":            {Since: R("218")},
	"DelegateControllers": {Since: R("236")},
	// Measured: 247 and 252 refuse DelegateSubgroup on a scope, 257
	// accepts it.
	"DelegateSubgroup":         {Since: R("254")},
	"DisableControllers":       {Since: R("240")},
	"IPAccounting":             {Since: R("235")},
	"ManagedOOMSwap":           {Since: R("247")},
	"ManagedOOMMemoryPressure": {Since: R("247")},

	// Value forms. CPUWeight=0, the idle class: measured, 247 refuses it
	// with InvalidArgs "CPUWeight= value out of range", 252 accepts it;
	// 250 is upstream's NEWS as far as known (not measured: 248-251 are
	// unsure).
	"CPUWeight=idle": {Since: R("250")},
	// DeviceAllow's "char-N"/"block-N" with a major number (upstream
	// 240). The bus takes any "char-" string on every release, so this
	// is not measurable there; not measured on a release before 240.
	"DeviceAllow=char-N": {Since: R("240")},
	// Type=notify-reload: measured, 252 refuses it with InvalidArgs
	// "Invalid Type setting", 257 accepts it; 253 is upstream's NEWS.
	"Type=notify-reload": {Since: R("253")},

	// Deprecated cgroup-v1 settings. Measured: 257 lists them, 262 leaves
	// them out of GetAll and introspection while Get still answers them
	// and StartTransientUnit still accepts them. 258 (upstream dropped
	// cgroup v1 there) is upstream knowledge, not measured.
	"CPUAccounting":         {HiddenSince: R("258")},
	"CPUShares":             {HiddenSince: R("258")},
	"StartupCPUShares":      {HiddenSince: R("258")},
	"MemoryLimit":           {HiddenSince: R("258")},
	"BlockIOAccounting":     {HiddenSince: R("258")},
	"BlockIOWeight":         {HiddenSince: R("258")},
	"StartupBlockIOWeight":  {HiddenSince: R("258")},
	"BlockIODeviceWeight":   {HiddenSince: R("258")},
	"BlockIOReadBandwidth":  {HiddenSince: R("258")},
	"BlockIOWriteBandwidth": {HiddenSince: R("258")},
	"DefaultMemoryLow":      {HiddenSince: R("258")},
	"DefaultMemoryMin":      {HiddenSince: R("258")},
	// Measured: absent on 247 and 252, present on 257 (upstream 254,
	// with the other Startup memory settings).
	"DefaultStartupMemoryLow": {Since: R("254"), HiddenSince: R("258")},
	// The Manager's defaults of two of them, measured the same way (262
	// hides them, Get answers them).
	"DefaultCPUAccounting":     {HiddenSince: R("258")},
	"DefaultBlockIOAccounting": {HiddenSince: R("258")},
}

// since returns the first release that has property name on a unit of
// the given type ("" for any).
func (p Property) since(unit string) Release {
	if s, ok := p.SinceFor[unit]; ok {
		return s
	}
	return p.Since
}

// HasProperty reports whether release r has property name (or value form)
// on a unit of the given type ("": the property's general first release):
// Get answers it and StartTransientUnit accepts it. Properties decides
// for the names it lists; the other unit properties whose presence differs
// between the captured releases are in measuredProperties (generated from
// data/); true for a property neither lists.
func HasProperty(r Release, name, unit string) bool {
	if p, ok := Properties[name]; ok {
		return r.AtLeast(p.since(unit))
	}
	if m, ok := measuredProperties[name]; ok {
		return m.span(unit).Has(r)
	}
	return true
}

// PropertySince returns the first release that has property name on a
// unit of the given type, and the upstream release where a distribution
// has it earlier (zero otherwise).
func PropertySince(name, unit string) (since, upstream Release) {
	if m, ok := measuredProperties[name]; ok {
		if _, listed := Properties[name]; !listed {
			return m.span(unit).Since, Release{}
		}
	}
	p := Properties[name]
	return p.since(unit), p.Upstream
}

// measuredProperty is the releases that have a unit property, as the
// captured releases say (measured.go): the span of any unit type having
// it, and the spans of the unit types that differ from it.
type measuredProperty struct {
	Span
	For map[string]Span
}

func (m measuredProperty) span(unit string) Span {
	if s, ok := m.For[unit]; ok {
		return s
	}
	return m.Span
}

// Hidden reports whether release r leaves property name out of GetAll and
// introspection while Get still answers it.
func Hidden(r Release, name string) bool {
	h := Properties[name].HiddenSince
	return h != Release{} && r.AtLeast(h)
}

// Feature is what sdbus's Conn.Supports probes for one sdbus.Feature: a
// property (on a unit type) or a Manager method of the table.
type Feature struct {
	Property, Unit string
	Method         string
}

// Features maps every sdbus.Feature to the table entry that decides it.
var Features = map[string]Feature{
	"CollectMode":      {Property: "CollectMode"},
	"AttachProcesses":  {Method: "AttachProcessesToUnit"},
	"CPUQuotaPeriod":   {Property: "CPUQuotaPeriodUSec"},
	"AllowedCPUs":      {Property: "AllowedCPUs"},
	"FreezeThaw":       {Method: "FreezeUnit"},
	"DelegateSubgroup": {Property: "DelegateSubgroup"},
	"EffectiveLimits":  {Property: "EffectiveMemoryMax"},
	"CPUWeightIdle":    {Property: "CPUWeight=idle", Unit: "slice"},
	"ScopeOOMPolicy":   {Property: "OOMPolicy", Unit: "scope"},
	"MemoryZSwapMax":   {Property: "MemoryZSwapMax"},
	"DeviceAllowMajor": {Property: "DeviceAllow=char-N"},
}

// HasFeature reports whether release r has feature f (an sdbus.Feature);
// false for a feature the table does not know.
func HasFeature(r Release, f string) bool {
	ft, ok := Features[f]
	switch {
	case !ok:
		return false
	case ft.Method != "":
		return HasMethod(r, ft.Method)
	}
	return HasProperty(r, ft.Property, ft.Unit)
}

// FeatureSince returns the first release that has feature f, and the
// upstream release where a distribution has it earlier.
func FeatureSince(f string) (since, upstream Release) {
	ft := Features[f]
	if ft.Method != "" {
		return Methods[ft.Method].Since, Release{}
	}
	return PropertySince(ft.Property, ft.Unit)
}

// Setting is a property value given to StartTransientUnit for a unit type,
// accepted from the release the table gives for it (Properties) and
// refused before with the D-Bus error RefusedWith: the conformance suite
// tries each.
type Setting struct {
	// Property is the property name, Value its value (a D-Bus value: bool,
	// uint64, string, ...).
	Property string
	Value    any
	// Form is the table entry when the value, not the name, is what
	// releases differ on ("CPUWeight=idle"); empty: Property.
	Form string
	// Unit is the unit type, "service", "scope" or "slice".
	Unit string
	// RefusedWith is the error name of the refusal.
	RefusedWith string
}

const (
	// PropertyReadOnly is how systemd refuses a property it does not know
	// for a unit type.
	PropertyReadOnly = "org.freedesktop.DBus.Error.PropertyReadOnly"
	// InvalidArgs is how systemd refuses a value it does not accept.
	InvalidArgs = "org.freedesktop.DBus.Error.InvalidArgs"
)

// Settings lists the transient-unit settings that differ between
// releases, with the refusals measured on 247, 252, 257 and 262.
var Settings = []Setting{
	{Property: "CollectMode", Value: "inactive-or-failed", Unit: "service", RefusedWith: PropertyReadOnly},
	{Property: "OOMPolicy", Value: "stop", Unit: "service", RefusedWith: PropertyReadOnly},
	{Property: "OOMPolicy", Value: "stop", Unit: "scope", RefusedWith: PropertyReadOnly},
	// 247 says InvalidArgs "CPUWeight= value out of range".
	{Property: "CPUWeight", Value: uint64(0), Form: "CPUWeight=idle", Unit: "slice", RefusedWith: InvalidArgs},
	{Property: "StartupAllowedCPUs", Value: []byte{1}, Unit: "slice", RefusedWith: PropertyReadOnly},
	{Property: "DelegateSubgroup", Value: "payload", Unit: "scope", RefusedWith: PropertyReadOnly},
	{Property: "MemoryZSwapMax", Value: uint64(0), Unit: "slice", RefusedWith: PropertyReadOnly},
}

func (s Setting) form() string {
	if s.Form != "" {
		return s.Form
	}
	return s.Property
}

// Accepts reports whether release r accepts s.
func (s Setting) Accepts(r Release) bool { return HasProperty(r, s.form(), s.Unit) }

// Since returns the first release that accepts s, and the upstream
// release where a distribution accepts it earlier (zero otherwise).
func (s Setting) Since() (since, upstream Release) { return PropertySince(s.form(), s.Unit) }

// Readable is a unit property the conformance suite reads (on a slice)
// with Get and GetAll: one the table says only some releases have, or some
// hide from GetAll.
type Readable struct {
	// Interface is the D-Bus interface, Property the name.
	Interface, Property string
}

const sliceIface = "org.freedesktop.systemd1.Slice"

// Readables lists the slice properties the conformance suite checks.
var Readables = []Readable{
	{Interface: sliceIface, Property: "EffectiveMemoryMax"},
	{Interface: sliceIface, Property: "EffectiveMemoryHigh"},
	{Interface: sliceIface, Property: "EffectiveTasksMax"},
	{Interface: sliceIface, Property: "MemoryZSwapMax"},
	{Interface: sliceIface, Property: "CPUAccounting"},
	{Interface: sliceIface, Property: "CPUShares"},
	{Interface: sliceIface, Property: "StartupCPUShares"},
	{Interface: sliceIface, Property: "MemoryLimit"},
	{Interface: sliceIface, Property: "BlockIOAccounting"},
	{Interface: sliceIface, Property: "BlockIOWeight"},
	{Interface: sliceIface, Property: "DefaultMemoryLow"},
	{Interface: sliceIface, Property: "DefaultMemoryMin"},
}

// Exists reports whether Get answers the property on release r.
func (p Readable) Exists(r Release) bool { return HasProperty(r, p.Property, "") }

// InGetAll reports whether release r lists the property in GetAll.
func (p Readable) InGetAll(r Release) bool { return p.Exists(r) && !Hidden(r, p.Property) }

// Methods maps Manager methods that only some releases have to those
// releases. Measured: 252 has StartUnitWithFlags, EnqueueMarkedJobs,
// BindMountUnit and MountImageUnit over 247; 257 adds GetUnitByPIDFD,
// QueueSignalUnit, SoftReboot and StartAuxiliaryScope; 262 drops
// StartAuxiliaryScope and adds EnqueueUnitJobMany, KillUnitSubgroup and
// RemoveSubgroupFromUnit. 252 also has DumpUnitsMatchingPatterns and
// DumpUnitsMatchingPatternsByFileDescriptor over 247, and 257
// DisableUnitFilesWithFlagsAndInstallInfo and DumpUnitFileDescriptorStore
// over 252. The exact release between two measured ones follows
// upstream's NEWS as far as known and is unsure.
var Methods = map[string]Span{
	"AttachProcessesToUnit": {Since: R("238")},
	// Upstream 230; every release measured has it.
	"ListUnitFilesByPatterns":                   {Since: R("230")},
	"FreezeUnit":                                {Since: R("246")},
	"ThawUnit":                                  {Since: R("246")},
	"StartUnitWithFlags":                        {Since: R("250")},
	"DumpUnitsMatchingPatterns":                 {Since: R("250")},
	"DumpUnitsMatchingPatternsByFileDescriptor": {Since: R("250")},
	"DisableUnitFilesWithFlagsAndInstallInfo":   {Since: R("254")},
	"DumpUnitFileDescriptorStore":               {Since: R("254")},
	"EnqueueMarkedJobs":                         {Since: R("248")},
	"BindMountUnit":                             {Since: R("248")},
	"MountImageUnit":                            {Since: R("248")},
	"GetUnitByPIDFD":                            {Since: R("253")},
	"QueueSignalUnit":                           {Since: R("254")},
	"SoftReboot":                                {Since: R("254")},
	"StartAuxiliaryScope":                       {Since: R("255"), Until: R("258")},
	"EnqueueUnitJobMany":                        {Since: R("258")},
	"KillUnitSubgroup":                          {Since: R("258")},
	"RemoveSubgroupFromUnit":                    {Since: R("258")},
}

// HasMethod reports whether release r has Manager method name; true for a
// method the table does not list (every release in use has it).
func HasMethod(r Release, name string) bool {
	s, ok := Methods[name]
	return !ok || s.Has(r)
}

// JobModes maps the job modes only some releases know to the first
// release that knows each (upstream's job_mode_table; measured on 247 and
// 252 by the differential tester: restart-dependencies is refused, while
// triggering, in the table since 244, is taken by 247). Older releases
// refuse them with InvalidArgs.
var JobModes = map[string]Release{
	"restart-dependencies": R("254"),
}

// HasJobMode reports whether release r knows job mode mode; true for a
// mode the table does not list.
func HasJobMode(r Release, mode string) bool { return r.AtLeast(JobModes[mode]) }

// Behaviour is a change of behaviour on the bus, from a release on.
type Behaviour string

// Behaviours.
const (
	// ReexecJobRemovedBeforeName: on daemon-reexec the old instance
	// releases org.freedesktop.systemd1 (NameOwnerChanged old → "", as
	// every release in the table does) and the new instance may emit
	// JobRemoved from its new unique name before NameOwnerChanged "" →
	// new gives it the name. Seen on 262, not on 247, 252 or 257.
	ReexecJobRemovedBeforeName Behaviour = "ReexecJobRemovedBeforeName"
	// AliasPointsToLink: enabling a linked unit file (one outside the
	// unit directories, linked into one) makes its Alias= symlinks point
	// to the link (DIR/NAME) rather than to the file itself. Seen on 257
	// and 262, not on 247 or 252; the upstream release in between is not
	// measured.
	AliasPointsToLink Behaviour = "AliasPointsToLink"
	// IODevicesInOrder: a per-device IO list (IODeviceWeight=, the
	// bandwidth and IOPS limits) keeps its entries in the order they were
	// added, over D-Bus or in a unit file; 247 puts each new one first.
	// Measured on 247, 252, 257 and 262 by the differential tester (systemd
	// 252.31's "Apply IODevice*= directives in configured order").
	IODevicesInOrder Behaviour = "IODevicesInOrder"
	// LinkBeforeSymlinks: EnableUnitFiles of a unit file outside the unit
	// directories, given by its path, links it into the configuration
	// directory before it makes its Alias=, WantedBy= and RequiredBy=
	// symlinks (install_info_apply). 247 links it after them. Measured on
	// 247, 252, 257 and 262 by the differential tester.
	LinkBeforeSymlinks Behaviour = "LinkBeforeSymlinks"
	// ScopeUser: StartTransientUnit of a scope takes User= and Group=
	// (for systemd-run --scope --uid=; not readable on the Scope
	// interface), and a delegated scope with User= has its control group
	// handed to them before it runs (scope_enter_start_chown). 247
	// answers PropertyReadOnly. Measured on 247, 252, 257 and 262 by the
	// differential tester.
	ScopeUser Behaviour = "ScopeUser"
	// BadSettingDropInsCompared: NeedDaemonReload of a unit that loaded
	// bad-setting compares the drop-ins it read with those there now, as
	// a loaded unit's, but not their times (one written again reads
	// false); before, it found none to compare with, so any
	// drop-in read made it true (unit_need_daemon_reload, whose 256
	// source still has the old rule). Seen on 257 and 262, not on 247 or
	// 252 (differential tester, replay "drop-in makes a transient unit
	// bad"; conformance DropInMakesTransientBad).
	BadSettingDropInsCompared Behaviour = "BadSettingDropInsCompared"
	// StartRestartsNow: a start job of a service waiting to restart
	// (activating/auto-restart) restarts it at once, counted in NRestarts,
	// and ends as a start does; before, the job waits for the restart
	// (service_start's EAGAIN) and merges into it. Seen on 257 and 262, not
	// on 247 or 252 (differential tester, replay "restart"; conformance
	// RestartOnFailure).
	StartRestartsNow Behaviour = "StartRestartsNow"
	// DestinationNotPresent: EnableUnitFiles, PresetUnitFiles and
	// ReenableUnitFiles add a change of type "destination not present"
	// (Filename the target, Destination the unit file) for each
	// WantedBy=/RequiredBy= target without a unit file on the unit path,
	// after its symlink, and again when the symlink is already there (a
	// user manager has no multi-user.target). Seen on 252, 257 and 262,
	// not on 247; the upstream release in between is not measured.
	DestinationNotPresent Behaviour = "DestinationNotPresent"
	// DelegateV2Controllers: Delegate=yes delegates the cgroup-v2
	// controllers (DelegateControllers "cpu cpuset io memory pids")
	// rather than every controller (247: "cpu cpuacct cpuset io blkio
	// memory devices pids bpf-firewall bpf-devices"); a list given reads
	// back as given on all four. Seen on 252, 257 and 262, not on 247.
	DelegateV2Controllers Behaviour = "DelegateV2Controllers"
	// UnitFileLinksOwnScope: GetUnitFileLinks answers for the manager's
	// own unit directories; 247's answers for the system's whatever the
	// manager (its method_get_unit_file_links passes UNIT_FILE_SYSTEM), so
	// a user manager lists none of its own links. Seen on 252, 257 and
	// 262, not on 247.
	UnitFileLinksOwnScope Behaviour = "UnitFileLinksOwnScope"
	// UnitFileLinksEUCLEAN: GetUnitFileLinks of an invalid unit name
	// answers System.Error.EUCLEAN ("Structure needs cleaning"), the errno
	// of its dry-run disable; 247 answered InvalidArgs. Seen on 252, 257
	// and 262, not on 247.
	UnitFileLinksEUCLEAN Behaviour = "UnitFileLinksEUCLEAN"
	// AddDependencyBadUnitSetting: AddDependencyUnitFiles with an invalid
	// target name answers org.freedesktop.systemd1.BadUnitSetting; 247
	// answered InvalidArgs. Seen on 252, 257 and 262, not on 247.
	AddDependencyBadUnitSetting Behaviour = "AddDependencyBadUnitSetting"
	// CleanFDStore: CleanUnit knows the resource type "fdstore" (the
	// unit's file descriptor store); older releases refuse it as an
	// invalid resource type (InvalidArgs). Seen on 257 and 262, not on
	// 252; 254 is upstream's NEWS as far as known.
	CleanFDStore Behaviour = "CleanFDStore"
	// KillWhomMessage: KillUnit (and QueueSignalUnit) refuse an unknown
	// whom argument with "Invalid whom argument: X"; 252 said "Invalid
	// who argument X". Seen on 257 and 262, not on 252; the upstream
	// release in between is not measured.
	KillWhomMessage Behaviour = "KillWhomMessage"
	// KillCgroupWhom: the kill methods know the whom arguments "cgroup"
	// and "cgroup-fail"; older releases refuse them as invalid. Seen on
	// 262, not on 257; taken from 258, which added KillUnitSubgroup.
	KillCgroupWhom Behaviour = "KillCgroupWhom"
	// KillFailNeedsProcess: KillUnit's all-fail (and cgroup-fail) answers
	// NoSuchProcess "No matching processes to kill" when it signals no
	// process, however the unit's control group exists; older releases
	// count a kill of any control group, empty or not, as done
	// (unit_kill_common's "killed = true" once cg_kill_recursive
	// succeeded, in 252 and 256), and fail only a unit without one. Seen
	// on 262, not on 247, 252 or 257 (an active scope made for a zombie,
	// an active slice without members); the upstream release in between
	// is not measured.
	KillFailNeedsProcess Behaviour = "KillFailNeedsProcess"
	// ReloadFailureFailsStopped: a reload job whose ExecReload= failed
	// (killed, timed out) while the main process ended ends failed when
	// the service then stops; older releases end it done, as for a reload
	// that succeeded (unit_process_job: JOB_FAILED only for a failed
	// unit, 252). Seen on 262, not on 247, 252 or 257 (a service whose
	// main process SIGTERM ended during a reload, then the reload command
	// killed); the upstream release in between is not measured.
	ReloadFailureFailsStopped Behaviour = "ReloadFailureFailsStopped"
	// LiveMountChecks: BindMountUnit and MountImageUnit refuse a unit of
	// another type than service with NotSupported ("BindMountUnit
	// operation is not supported for unit type 'slice'") and a service
	// without a mount namespace with "Unit 'X' not running in private
	// mount namespace, cannot live mount.", before they look at the
	// paths; 252 checked the paths first, then answered InvalidArgs "Unit
	// is not of type .service" and "Unit not running in private mount
	// namespace, cannot activate bind mount". Seen on 257 and 262, not on
	// 252; the upstream release in between is not measured.
	LiveMountChecks Behaviour = "LiveMountChecks"
	// AuxiliaryScopeRemoved: StartAuxiliaryScope, gone from the
	// introspection data (Methods), is still called: it answers
	// NotSupported "StartAuxiliaryScope() method has been removed."
	// (InvalidArgs for another signature), not UnknownMethod. Seen on
	// 262; from 258, the release that removed it.
	AuxiliaryScopeRemoved Behaviour = "AuxiliaryScopeRemoved"
	// PresetOnlyUnitFiles: UnitFilePreset is "" for a unit not loaded
	// from a unit file (a transient unit, init.scope), where 247 to 257
	// say "enabled", as of every loaded unit under Debian's preset
	// policy. Seen on 262, not on 247, 252 or 257; the upstream release
	// in between is not measured.
	PresetOnlyUnitFiles Behaviour = "PresetOnlyUnitFiles"
	// MaskedUnitNoDropIns: a masked unit's DropInPaths is empty and its
	// drop-ins do not apply, where 247 and 252 list them and apply their
	// settings (a masked unit's Environment= from a drop-in). Seen
	// on 257 and 262, not on 247 or 252; the upstream release in between
	// is not measured.
	MaskedUnitNoDropIns Behaviour = "MaskedUnitNoDropIns"
	// MaskedUnitFragmentIsLink: a masked unit's FragmentPath is its
	// symlink to /dev/null and its UnitFilePreset that of its name, where
	// 247 says /dev/null and "". Seen on 252, 257 and 262, not on 247.
	MaskedUnitFragmentIsLink Behaviour = "MaskedUnitFragmentIsLink"
	// DropInDirsSeenAtOnce: a drop-in in a directory made since a unit was
	// loaded (its first NAME.d/) makes NeedDaemonReload true, where 247
	// and 252 look only in the directories they found when they last
	// loaded it. Seen on 257 and 262, not on 247 or 252; the upstream
	// release in between is not measured.
	DropInDirsSeenAtOnce Behaviour = "DropInDirsSeenAtOnce"
	// SocketCgroupWithProcesses: a listening socket that has run no
	// command answers ControlGroup "", where 247 to 257 answer its control
	// group (/system.slice/NAME.socket) while it is active. Seen on 262,
	// not on 247, 252 or 257; the upstream release in between is not
	// measured.
	SocketCgroupWithProcesses Behaviour = "SocketCgroupWithProcesses"
	// TimerAfterTimeSet: a timer with OnCalendar= and default
	// dependencies is ordered after time-set.target as well as
	// time-sync.target. Seen on 252, 257 and 262, not on 247; the
	// upstream release in between is not measured.
	TimerAfterTimeSet Behaviour = "TimerAfterTimeSet"
	// TargetDescriptionsRenamed: the standard targets' descriptions name
	// what they gather ("Socket Units", "Swaps", "System Shutdown",
	// "Preparation for Local File Systems") where 247's say "Sockets",
	// "Swap", "Shutdown", "Local File Systems (Pre)", and sysinit.target
	// is ordered before emergency.service and emergency.target (247's:
	// after). Seen in Debian's unit files of 252, 257 and 262, not 247;
	// the upstream release in between is not measured.
	TargetDescriptionsRenamed Behaviour = "TargetDescriptionsRenamed"
	// BusServiceNotify: dbus.service, of the release's Debian dbus
	// package, is Type=notify with NotifyAccess=main (dbus-daemon 1.14
	// tells systemd it is ready); bullseye's (dbus 1.12) is Type=simple.
	// Seen in Debian's unit files of 252, 257 and 262, not 247.
	BusServiceNotify Behaviour = "BusServiceNotify"
	// BusServiceUser: dbus.service runs dbus-daemon as User=messagebus,
	// Group=messagebus (dbus 1.16), where older ones start it as root.
	// Seen in Debian's unit files of 257 and 262, not 247 or 252.
	BusServiceUser Behaviour = "BusServiceUser"
	// JournalAuditSocketOptional: systemd-journald.service no longer
	// names systemd-journald-audit.socket in Sockets=, and the socket has
	// an [Install] section that Debian does not enable, so a boot leaves
	// it inactive (UnitFileState disabled); 247 and 252 list it and pull
	// it in from sockets.target (static). Seen in Debian's unit files of
	// 257 and 262, not 247 or 252; the upstream release in between is not
	// measured.
	JournalAuditSocketOptional Behaviour = "JournalAuditSocketOptional"
	// JournalSocketsDescribed: systemd-journald.socket is described
	// "Journal Sockets" (it has two), 247's and 252's "Journal Socket".
	// Seen in Debian's unit files of 257 and 262, not 247 or 252.
	JournalSocketsDescribed Behaviour = "JournalSocketsDescribed"
	// SystemdBinariesInUsr: the unit files name systemd's programs below
	// /usr/lib/systemd (ExecStart=/usr/lib/systemd/systemd-journald), not
	// /lib/systemd as before Debian finished merging /usr. Seen in
	// Debian's unit files of 257 and 262, not 247 or 252.
	SystemdBinariesInUsr Behaviour = "SystemdBinariesInUsr"
	// JournalNotifyReload: systemd-journald.service is
	// Type=notify-reload (257's is notify). Seen in Debian's unit files
	// of 262, not 257; the upstream release in between is not measured.
	JournalNotifyReload Behaviour = "JournalNotifyReload"
	// PolkitInteractive: with the release's polkit installed (Debian's
	// polkitd, its default rules) and no agent, what systemd asks polkit
	// about is refused with InteractiveAuthorizationRequired
	// "Interactive authentication required.", whether or not the call
	// allows interactive authorization; 247 with bullseye's policykit-1
	// 0.105 answers AccessDenied "Permission denied", as with no polkit.
	// Seen on 252 (polkitd 122), 257 (126) and 262 (128).
	PolkitInteractive Behaviour = "PolkitInteractive"
	// PolkitInteractiveExplained: PolkitInteractive's error says "Access
	// denied as the requested operation requires interactive
	// authentication. However, interactive authentication has not been
	// enabled by the calling program." (even to a call that allows
	// interactive authorization). Seen on 262 with polkitd 128, not on
	// 252 or 257.
	PolkitInteractiveExplained Behaviour = "PolkitInteractiveExplained"
	// SetPropertiesErrnoWrapped: a property of the wrong D-Bus type in
	// StartTransientUnit or SetUnitProperties answers System.Error.ENXIO
	// "Failed to set unit properties: Unexpected message contents", and a
	// parser's -EINVAL (DevicePolicy=bogus) InvalidArgs "Failed to set
	// unit properties: Invalid argument"; 247 answers the same errors
	// "No such device or address" and "Invalid argument". Seen on 252,
	// 257 and 262 (fakebus/internal/difftest).
	SetPropertiesErrnoWrapped Behaviour = "SetPropertiesErrnoWrapped"
	// LoadErrorAdvice: a unit that failed to load (a transient scope
	// without PIDs) answers FileNotFound "Unit X failed to load
	// properly, please adjust/correct and reload service manager: No
	// such file or directory"; 247 "Unit X failed to load properly: No
	// such file or directory.". Seen on 252, 257 and 262.
	LoadErrorAdvice Behaviour = "LoadErrorAdvice"
	// TransientJobTimeout: JobTimeoutUSec= is settable on a transient
	// unit (0 reads back as infinity); 247, 252 and 257 answer
	// PropertyReadOnly. Seen on 262.
	TransientJobTimeout Behaviour = "TransientJobTimeout"
	// CgroupV1SettingsIgnored: CPUShares=, BlockIOWeight=,
	// MemoryLimit=, BlockIOAccounting= and CPUAccounting= are taken with
	// any value of any type and ignored (CPUAccounting reads true); 252
	// and 257 check their type and range (2..262144, 10..1000, not 0) and
	// keep them. Seen on 262 (the accounting settings by
	// fakebus/internal/difftest's edges).
	CgroupV1SettingsIgnored Behaviour = "CgroupV1SettingsIgnored"
	// UnitExistsExplained: StartTransientUnit of a name that is loaded
	// answers UnitExists "Unit X was already loaded or has a fragment
	// file."; 247 "Unit X already exists.". Seen on 252, 257, 262.
	UnitExistsExplained Behaviour = "UnitExistsExplained"
	// NoFilesExecStatus203: a service with LimitNOFILE=0 fails with
	// status 203/EXEC; on 247 with 127. Seen on 252, 257, 262.
	NoFilesExecStatus203 Behaviour = "NoFilesExecStatus203"
	// DBusTypeNeedsBusName: a transient Type=dbus service without
	// BusName= fails to load (BadUnitSetting). Seen on 252, 257 and 262.
	DBusTypeNeedsBusName Behaviour = "DBusTypeNeedsBusName"
	// LinkedUnitFragmentIsLink: a unit loaded through a link
	// (LinkUnitFiles) has the link in the unit directory as its
	// FragmentPath, and once the link is removed it needs a
	// daemon-reload; on 247 its FragmentPath is the linked file, which
	// removing the link leaves as it was. Seen on 252, 257 and 262
	// (fakebus/internal/difftest; conformance UnitFileStateWhenRead).
	LinkedUnitFragmentIsLink Behaviour = "LinkedUnitFragmentIsLink"
	// UnitFileChangesNeedReload: once a unit-file method (EnableUnitFiles,
	// an alias or a .wants link made, ...) changed anything, every unit
	// loaded from a file reads NeedDaemonReload=true until the next
	// daemon-reload, whatever its own files; writing files without the
	// manager does not do it. 252 looks only at each unit's own files.
	// Seen on 257 and 262 (fakebus/internal/difftest).
	UnitFileChangesNeedReload Behaviour = "UnitFileChangesNeedReload"
	// NoUnitFileWordedAsUnit: a unit-file method (EnableUnitFiles, ...)
	// for a name no unit file has answers NoSuchUnit "Unit X does not
	// exist", for a masked one UnitMasked "Unit /etc/.../X is masked";
	// 247 and 252 "Unit file X does not exist." and "Unit file
	// /etc/.../X is masked.". Seen on 257 and 262
	// (fakebus/internal/difftest).
	NoUnitFileWordedAsUnit Behaviour = "NoUnitFileWordedAsUnit"
	// ExistingFileQuoted: a unit-file method that meets a file where it
	// would make a link answers UnitExists "File '/etc/.../x.service'
	// already exists" (and "... already exists and is a symlink to
	// /etc/.../y.service" for a link elsewhere): the file quoted, no
	// period; 247 and 252 "File /etc/.../x.service already exists.".
	// Seen on 257 and 262 (fakebus/internal/difftest; busctl).
	ExistingFileQuoted Behaviour = "ExistingFileQuoted"
	// AuxiliaryUnitFailed: EnableUnitFiles of a unit whose Also= names a
	// unit without a file reports it ("auxiliary unit failed") and goes
	// on; 247 fails the call (NoSuchUnit). Seen on 247, 252, 257 and 262.
	AuxiliaryUnitFailed Behaviour = "AuxiliaryUnitFailed"
	// KillUnsupportedExplained: KillUnit of a unit whose type has no
	// processes (a timer, a target) answers NotSupported "Unit type does
	// not support process killing."; 247 and 252 "Operation not
	// supported". Seen on 247, 252, 257 and 262.
	KillUnsupportedExplained Behaviour = "KillUnsupportedExplained"
	// NoSuchProcessErrno: a PID no process has, in a scope's PIDs= or
	// AttachProcessesToUnit, is refused UnixProcessIdUnknown with the
	// errno's text ("Failed to set unit properties: No such process",
	// "No such process"); 247 and 252 "Process with ID N does not
	// exist.". Seen on 257 and 262 (conformance AttachProcessesChecks,
	// UserManagerRefusesPIDs).
	NoSuchProcessErrno Behaviour = "NoSuchProcessErrno"
	// CgroupCatchup: after a daemon-reload (and a daemon-reexec, the same
	// deserialization) systemd looks again at every unit's cgroup, having
	// dropped its watches meanwhile (unit_cgroup_catchup): a running scope
	// whose cgroup is empty ends, Result success, and is collected — a
	// scope made for a zombie, whose cgroup was never populated and so
	// never reported empty. 247 keeps such a scope running. Seen on 252,
	// 257 and 262 (fakebus/internal/difftest, replay "zombie scope ends at
	// a reload"; the re-execution is not measured).
	CgroupCatchup Behaviour = "CgroupCatchup"
	// CollectedTransientNameLoads: the name of a collected transient unit
	// that the unit name map still names the transient file of (the map
	// was built while the unit was loaded: at a daemon-reload, a
	// re-execution, the load of another unit after a unit directory
	// changed) loads as a unit without a file: a slice is made again, a
	// service is not found. 247-257 answer it not-found whatever its type.
	// On every release the map names it so until a reload, or a change in
	// a unit directory other than the transient one, builds it again, and
	// a unit file written for the name meanwhile is not read. Seen on 262,
	// not on 247, 252 and 257 (fakebus/internal/difftest, replays
	// "collected transient name after a reload" and "a file written for a
	// running transient unit"; 262 seed 453478 of a long run; 258-261 not
	// measured).
	CollectedTransientNameLoads Behaviour = "CollectedTransientNameLoads"
	// TransientFreeRefreshesNameMap: once the manager freed a transient
	// unit (collected, or made for a StartTransientUnit call that it then
	// refused: a scope without PIDs, a setting out of range), it builds its
	// unit name map again if a unit directory changed since it was built,
	// as it does at the load of a unit not loaded. So a scope (whose load
	// builds no map) started after that lists the drop-ins of a directory
	// made for it before, where 247-257 list none until something else
	// builds the map. Seen on 262, not on 247, 252 and 257
	// (fakebus/internal/difftest, replay "drop-ins of a scope after a
	// transient unit was freed"; 262 seeds 272162 and 310184 of long runs;
	// 258-261 not measured).
	TransientFreeRefreshesNameMap Behaviour = "TransientFreeRefreshesNameMap"
	// TimerStartKeepsLastTrigger: a timer's start keeps its last trigger
	// (systemd commit 3fc44a0f, "timer: don't run service immediately
	// after restart of a timer", issue 31231): a restarted timer whose
	// one-time value (OnBootSec=, OnStartupSec=) elapsed before is
	// elapsed, where 247 and 252 forget the trigger and elapse the value
	// again, starting its unit. Seen on 257 and 262, not on 252
	// (fakebus/internal/difftest, replay "restart of a timer whose unit
	// runs"; 262 seed 350506 of a long run; 253-256 not measured).
	TimerStartKeepsLastTrigger Behaviour = "TimerStartKeepsLastTrigger"
	// CPUSetWrittenWhole: the D-Bus setter of AllowedCPUs= and the other
	// CPU and memory node sets writes an empty line before the set's
	// line (systemd commit 1dbccd6d, "dbus-cgroup: Make sure we overwrite
	// cpuset properties in drop-in", backported to 252-stable), so a
	// load reads the set the setter set. Before, the line adds to the
	// set the lines before it made (a unit file's lines do on every
	// release): a transient unit given the setting twice reads the union
	// after a daemon-reload, and so does a SetUnitProperties drop-in over
	// the unit's own set. Seen on 247, not on 252 (Debian's 252.39), 257
	// and 262 (fakebus/internal/difftest, replay "CPU sets after a
	// reload"; 247 seed 425896 of a long run).
	CPUSetWrittenWhole Behaviour = "CPUSetWrittenWhole"
	// TransientOverDropIns: a unit of a name that has drop-ins but no
	// unit file (in the unit directories, or SetUnitProperties') can
	// become a transient unit, which takes their settings
	// (unit_is_pristine looks at no drop-ins). 247 refuses the name
	// UnitExists once they are loaded: always for a slice, made
	// implicitly; a service, not found, loads none. Seen on 252 and 262,
	// not on 247 (fakebus/internal/difftest, replay "transient unit over
	// drop-ins").
	TransientOverDropIns Behaviour = "TransientOverDropIns"
	// LinkMissingFileNoSuchUnit: LinkUnitFiles of a path no file has
	// answers as the other unit-file methods do (NoSuchUnit, "Unit file X
	// does not exist."); 247 answers FileNotFound "No such file or
	// directory". Seen on 252, 257 and 262 (fakebus/internal/difftest).
	LinkMissingFileNoSuchUnit Behaviour = "LinkMissingFileNoSuchUnit"
	// ExecConditionSkipDone: a start that a service's ExecCondition=
	// skips (a command exits 1 to 254) ends its job done; 247 skipped.
	// Seen on 252, 257 and 262 (fakebus/internal/difftest, replay
	// "ExecCondition= skips a start").
	ExecConditionSkipDone Behaviour = "ExecConditionSkipDone"
	// AlwaysSkipsExecCondition: Restart=always does not restart a
	// service whose ExecCondition= skipped its start (result
	// exec-condition); before 251 it did (service_shall_restart). Seen
	// on 247 (restarts) and 252 (does not) by fakebus/internal/difftest,
	// replay "Restart= after ExecCondition= skipped a start".
	AlwaysSkipsExecCondition Behaviour = "AlwaysSkipsExecCondition"
	// CPUQuotaHundredths: a transient unit's CPUQuotaPerSecUSec= is
	// written to its file in hundredths of a percent, so a reload reads
	// 15000 µs/s back as it was; before, in whole percents (10000).
	// Seen on 257 and 262, not on 247 and 252 (fakebus/internal/difftest,
	// replay "CPU quota after a reload").
	CPUQuotaHundredths Behaviour = "CPUQuotaHundredths"
	// StartLimitSerialized: a unit's start rate limit window is carried
	// over a daemon-reload and a re-execution; before, both close it.
	// Seen on 257 and 262, not on 247 and 252 (fakebus/internal/difftest,
	// replay "start rate limit across a reload").
	StartLimitSerialized Behaviour = "StartLimitSerialized"
	// MemoryScalePermyriad: MemoryMaxScale= and MemoryHighScale= are
	// written to a transient unit's file in hundredths of a percent,
	// rounded; before, in tenths, rounded up. Seen on 252, 257 and 262,
	// not on 247 (fakebus/internal/difftest, replay "memory share after a
	// reload").
	MemoryScalePermyriad Behaviour = "MemoryScalePermyriad"
	// ControlDropInsSorted: DropInPaths lists a drop-in SetUnitProperties
	// writes where a load would list it, sorted by file name; before, it
	// is added after the unit's others, in the order written, and
	// NeedDaemonReload is true while that order differs from a load's.
	// Seen on 257 and 262, not on 247 and 252 (fakebus/internal/difftest,
	// replay "set properties' drop-ins").
	ControlDropInsSorted Behaviour = "ControlDropInsSorted"
	// StartLimitHitResult: a start the start rate limit refuses makes the
	// unit's Result start-limit-hit whatever it was; before, only a
	// result of success becomes start-limit-hit (a failed service keeps
	// exit-code). Seen on 262, not on 247, 252 and 257
	// (fakebus/internal/difftest, replay "start rate limit").
	StartLimitHitResult Behaviour = "StartLimitHitResult"
	// TasksMaxScaleHundredths: a transient unit's TasksMaxScale= is
	// written to its file in hundredths of a percent, so a reload reads
	// it back as it was; before, rounded up to a whole percent and
	// printed a tenth as large (50% as "5.0%"). Seen on 257 and 262, not
	// on 247 and 252 (fakebus/internal/difftest, replay "tasks share
	// after a reload").
	TasksMaxScaleHundredths Behaviour = "TasksMaxScaleHundredths"
	// UnneededAtReload: a daemon-reload checks every unit for
	// StopWhenUnneeded=, so an active unit a reload gave it, that nothing
	// needs, is stopped; 247 stops it only at its next state change.
	// Seen on 252, 257 and 262 (fakebus/internal/difftest, replay "stop
	// when unneeded").
	UnneededAtReload Behaviour = "UnneededAtReload"
	// TryRestartActivating: a try-restart (and a reload-or-try-restart
	// of a unit that cannot reload) of an activating unit restarts it;
	// 247 collapses it to nothing, as for an inactive unit (systemd
	// commit dc06321f, in 252). Seen on 252, 257 and 262, not on 247
	// (fakebus/internal/difftest, 247 seed 442092 of a long run; replay
	// "try-restart of an activating unit").
	TryRestartActivating Behaviour = "TryRestartActivating"
	// StopWhenBound: a unit that becomes active, and every active unit at
	// a daemon-reload, is stopped if it is bound (BindsTo=) to a unit
	// without a job that is down (systemd's stop-when-bound queue, from
	// 249): a unit started ignoring its dependencies, one its reload gave
	// a BindsTo= to an inactive unit. 247 checks neither. Seen on 252,
	// 257 and 262 (fakebus/internal/difftest, replay "bound to an
	// inactive unit").
	StopWhenBound Behaviour = "StopWhenBound"
	// ExitStatusBPF: a unit file may name exit status 244 BPF
	// (SuccessExitStatus=BPF); 247 ignores the word. Seen on 252, 257 and
	// 262 (fakebus/internal/difftest).
	ExitStatusBPF Behaviour = "ExitStatusBPF"
	// ExitStatusKSM: a unit file may name exit status 245 KSM; 247 and 252
	// ignore the word. Seen on 257 and 262 (fakebus/internal/difftest).
	ExitStatusKSM Behaviour = "ExitStatusKSM"
	// OnTerminationWhenRestarting: a unit's OnFailure= units start each
	// time it fails, and its OnSuccess= units each time it ends cleanly,
	// also when it restarts (Restart=); 247 and 252 start them only when
	// it does not (UNIT_NOTIFY_WILL_AUTO_RESTART, gone in 254). Seen on
	// 257 and 262 (fakebus/internal/difftest).
	OnTerminationWhenRestarting Behaviour = "OnTerminationWhenRestarting"
	// OomdNeedsMemoryController: a unit with ManagedOOMSwap= or
	// ManagedOOMMemoryPressure= kill wants and is ordered after
	// systemd-oomd.service only where the memory controller is available
	// (the sandbox's cgroup2 has none, and the fake plays that); 247 adds
	// them regardless. Seen on 247 and 252 (fakebus/internal/difftest:
	// replay "ManagedOOM*=kill wants systemd-oomd"; 247 seed 160184).
	OomdNeedsMemoryController Behaviour = "OomdNeedsMemoryController"
	// AliasTypeRefused: EnableUnitFiles of a unit whose Alias= names a
	// unit of another type fails BadUnitSetting "Cannot alias X as Y."
	// (without the period with ExistingFileQuoted); 247 passes over the
	// alias. Seen on 247, 252, 257 and 262 (fakebus/internal/difftest:
	// replay "Alias= of another type"; 252 seed 170506 of a long run).
	AliasTypeRefused Behaviour = "AliasTypeRefused"
	// StubFileStateTransient: the UnitFileState property of a transient
	// unit whose settings were refused (a stub, its transient file still
	// empty) reads transient; before 262 it reads masked-runtime, as
	// GetUnitFileState of its empty file does on every release. Seen on
	// 247, 252, 257 and 262 (fakebus/internal/difftest: replay "UnitFileState
	// of a stub"; 262 seed 151380 of a long run).
	StubFileStateTransient Behaviour = "StubFileStateTransient"
	// HandlerJobsKeepUnit: a unit whose OnFailure= or OnSuccess= units
	// have a job is not collected (unit_success_failure_handler_has_jobs,
	// new in 251); 247 collects it when nothing else keeps it. Seen on 247
	// and 252 (fakebus/internal/difftest: replay "OnFailure= of a job
	// that ends dependency").
	HandlerJobsKeepUnit Behaviour = "HandlerJobsKeepUnit"
	// AnyTypeSetsProperties: SetUnitProperties takes the unit-wide
	// properties of a unit of any type; before 252 a target or device
	// (no bus_set_property of its own) refuses every property,
	// PropertyReadOnly "Objects of this type do not support setting
	// properties." (eab62c01ef). Seen on 247 and 252 by
	// fakebus/internal/difftest, replay "SetUnitProperties of a target".
	AnyTypeSetsProperties Behaviour = "AnyTypeSetsProperties"
)

// Behaviours maps each behaviour to the first release that has it.
var Behaviours = map[Behaviour]Release{
	ReexecJobRemovedBeforeName:    R("262"),
	AliasPointsToLink:             R("257"),
	LinkBeforeSymlinks:            R("252"),
	ScopeUser:                     R("252"),
	BadSettingDropInsCompared:     R("257"),
	StartRestartsNow:              R("257"),
	IODevicesInOrder:              R("252"),
	DestinationNotPresent:         R("252"),
	DelegateV2Controllers:         R("252"),
	UnitFileLinksOwnScope:         R("252"),
	UnitFileLinksEUCLEAN:          R("252"),
	AddDependencyBadUnitSetting:   R("252"),
	CleanFDStore:                  R("254"),
	KillWhomMessage:               R("257"),
	KillCgroupWhom:                R("258"),
	KillFailNeedsProcess:          R("262"),
	ReloadFailureFailsStopped:     R("262"),
	LiveMountChecks:               R("257"),
	AuxiliaryScopeRemoved:         R("258"),
	PresetOnlyUnitFiles:           R("262"),
	MaskedUnitNoDropIns:           R("257"),
	MaskedUnitFragmentIsLink:      R("252"),
	DropInDirsSeenAtOnce:          R("257"),
	SocketCgroupWithProcesses:     R("262"),
	TimerAfterTimeSet:             R("252"),
	TargetDescriptionsRenamed:     R("252"),
	BusServiceNotify:              R("252"),
	BusServiceUser:                R("257"),
	JournalAuditSocketOptional:    R("257"),
	JournalSocketsDescribed:       R("257"),
	SystemdBinariesInUsr:          R("257"),
	JournalNotifyReload:           R("262"),
	PolkitInteractive:             R("252"),
	PolkitInteractiveExplained:    R("262"),
	SetPropertiesErrnoWrapped:     R("252"),
	LoadErrorAdvice:               R("252"),
	TransientJobTimeout:           R("262"),
	CgroupV1SettingsIgnored:       R("262"),
	DBusTypeNeedsBusName:          R("252"),
	UnitExistsExplained:           R("252"),
	NoFilesExecStatus203:          R("252"),
	LinkedUnitFragmentIsLink:      R("252"),
	UnitFileChangesNeedReload:     R("257"),
	NoUnitFileWordedAsUnit:        R("257"),
	ExistingFileQuoted:            R("257"),
	AuxiliaryUnitFailed:           R("252"),
	KillUnsupportedExplained:      R("257"),
	NoSuchProcessErrno:            R("257"),
	CgroupCatchup:                 R("252"),
	LinkMissingFileNoSuchUnit:     R("252"),
	CollectedTransientNameLoads:   R("262"),
	TransientFreeRefreshesNameMap: R("262"),
	TimerStartKeepsLastTrigger:    R("257"),
	CPUSetWrittenWhole:            R("252"),
	TransientOverDropIns:          R("252"),
	ExecConditionSkipDone:         R("252"),
	AlwaysSkipsExecCondition:      R("251"),
	CPUQuotaHundredths:            R("257"),
	StartLimitSerialized:          R("257"),
	StartLimitHitResult:           R("262"),
	ControlDropInsSorted:          R("257"),
	MemoryScalePermyriad:          R("252"),
	TasksMaxScaleHundredths:       R("257"),
	UnneededAtReload:              R("252"),
	StopWhenBound:                 R("252"),
	TryRestartActivating:          R("252"),
	ExitStatusBPF:                 R("252"),
	ExitStatusKSM:                 R("257"),
	OnTerminationWhenRestarting:   R("257"),
	HandlerJobsKeepUnit:           R("252"),
	StubFileStateTransient:        R("262"),
	AliasTypeRefused:              R("252"),
	OomdNeedsMemoryController:     R("252"),
	AnyTypeSetsProperties:         R("252"),
}

// Behaves reports whether release r has behaviour b.
func Behaves(r Release, b Behaviour) bool {
	since, ok := Behaviours[b]
	return ok && r.AtLeast(since)
}
