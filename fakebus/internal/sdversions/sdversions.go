// Package sdversions records what differs between systemd releases on the
// bus, as data: which release has a feature, accepts a property in
// StartTransientUnit, lists a property in GetAll, and has a Manager method.
// The conformance suite derives its expectations from it for the release it
// talks to, and fakebus can play a release from it.
//
// Releases are given as "MAJOR" or "MAJOR.MINOR": a distribution's point
// release can carry a backport (Debian's 252.38 accepts OOMPolicy on scopes,
// which upstream added in 253). Every entry was measured on Debian's builds
// of 247 (bullseye), 252 (bookworm), 257 (trixie) and 262 (sid); entries
// about releases in between follow upstream's NEWS.
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

// Features maps the features sdbus's Conn.Supports probes (sdbus.Feature
// values) to the first release that has each.
var Features = map[string]Release{
	"CollectMode":      R("236"),
	"AttachProcesses":  R("238"),
	"CPUQuotaPeriod":   R("242"),
	"AllowedCPUs":      R("244"),
	"FreezeThaw":       R("246"),
	"DelegateSubgroup": R("254"),
	// EffectiveMemoryMax, EffectiveMemoryHigh, EffectiveTasksMax: absent
	// on 252, present on 257.
	"EffectiveLimits": R("256"),
}

// HasFeature reports whether release r has feature f (an sdbus.Feature);
// false for a feature the table does not know.
func HasFeature(r Release, f string) bool {
	since, ok := Features[f]
	return ok && r.AtLeast(since)
}

// Setting is a property value given to StartTransientUnit for a unit type,
// and the first release that accepts it. Older releases refuse it with the
// D-Bus error RefusedWith.
type Setting struct {
	// Property is the property name, Value its value (a D-Bus value: bool,
	// uint64, string, ...).
	Property string
	Value    any
	// Unit is the unit type, "service", "scope" or "slice".
	Unit string
	// Since is the first release that accepts it; Upstream the upstream
	// release that introduced it, when a distribution backported it.
	Since, Upstream Release
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
// releases.
var Settings = []Setting{
	{Property: "CollectMode", Value: "inactive-or-failed", Unit: "service", Since: R("236"), RefusedWith: PropertyReadOnly},
	{Property: "OOMPolicy", Value: "stop", Unit: "service", Since: R("243"), RefusedWith: PropertyReadOnly},
	// Upstream 253; Debian 252.38 has it.
	{Property: "OOMPolicy", Value: "stop", Unit: "scope", Since: R("252.38"), Upstream: R("253"), RefusedWith: PropertyReadOnly},
	// CPUWeight=idle (0): 247 says InvalidArgs "CPUWeight= value out of range".
	{Property: "CPUWeight", Value: uint64(0), Unit: "slice", Since: R("250"), RefusedWith: InvalidArgs},
	{Property: "StartupAllowedCPUs", Value: []byte{1}, Unit: "slice", Since: R("249"), RefusedWith: PropertyReadOnly},
	{Property: "DelegateSubgroup", Value: "payload", Unit: "scope", Since: R("254"), RefusedWith: PropertyReadOnly},
	{Property: "MemoryZSwapMax", Value: uint64(0), Unit: "slice", Since: R("253"), RefusedWith: PropertyReadOnly},
}

// Accepts reports whether release r accepts s.
func (s Setting) Accepts(r Release) bool { return r.AtLeast(s.Since) }

// Readable is a unit property that only some releases have, or that some
// releases answer with Get but leave out of GetAll and of the introspection
// data (deprecated settings).
type Readable struct {
	// Interface is the D-Bus interface, Property the name.
	Interface, Property string
	// Exists: the releases where Get answers.
	Exists Span
	// HiddenSince is the first release that leaves it out of GetAll (and
	// introspection) while Get still answers; zero: never hidden.
	HiddenSince Release
}

const sliceIface = "org.freedesktop.systemd1.Slice"

// Readables lists the unit properties whose presence differs between
// releases (read on a slice).
var Readables = []Readable{
	{Interface: sliceIface, Property: "EffectiveMemoryMax", Exists: Span{Since: R("256")}},
	{Interface: sliceIface, Property: "EffectiveMemoryHigh", Exists: Span{Since: R("256")}},
	{Interface: sliceIface, Property: "EffectiveTasksMax", Exists: Span{Since: R("256")}},
	{Interface: sliceIface, Property: "CPUAccounting", HiddenSince: R("258")},
	{Interface: sliceIface, Property: "CPUShares", HiddenSince: R("258")},
	{Interface: sliceIface, Property: "StartupCPUShares", HiddenSince: R("258")},
	{Interface: sliceIface, Property: "MemoryLimit", HiddenSince: R("258")},
	{Interface: sliceIface, Property: "BlockIOAccounting", HiddenSince: R("258")},
	{Interface: sliceIface, Property: "BlockIOWeight", HiddenSince: R("258")},
	{Interface: sliceIface, Property: "DefaultMemoryLow", HiddenSince: R("258")},
	{Interface: sliceIface, Property: "DefaultMemoryMin", HiddenSince: R("258")},
}

// InGetAll reports whether release r lists the property in GetAll.
func (p Readable) InGetAll(r Release) bool {
	return p.Exists.Has(r) && (p.HiddenSince == Release{} || !r.AtLeast(p.HiddenSince))
}

// Methods maps Manager methods that only some releases have to those
// releases.
var Methods = map[string]Span{
	"AttachProcessesToUnit":  {Since: R("238")},
	"FreezeUnit":             {Since: R("246")},
	"ThawUnit":               {Since: R("246")},
	"StartUnitWithFlags":     {Since: R("250")},
	"EnqueueMarkedJobs":      {Since: R("248")},
	"BindMountUnit":          {Since: R("248")},
	"MountImageUnit":         {Since: R("248")},
	"GetUnitByPIDFD":         {Since: R("253")},
	"QueueSignalUnit":        {Since: R("254")},
	"SoftReboot":             {Since: R("254")},
	"StartAuxiliaryScope":    {Since: R("255"), Until: R("258")},
	"EnqueueUnitJobMany":     {Since: R("258")},
	"KillUnitSubgroup":       {Since: R("258")},
	"RemoveSubgroupFromUnit": {Since: R("258")},
}

// HasMethod reports whether release r has Manager method name; true for a
// method the table does not list (every release in use has it).
func HasMethod(r Release, name string) bool {
	s, ok := Methods[name]
	return !ok || s.Has(r)
}

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
)

// Behaviours maps each behaviour to the first release that has it.
var Behaviours = map[Behaviour]Release{
	ReexecJobRemovedBeforeName: R("262"),
	AliasPointsToLink:          R("257"),
}

// Behaves reports whether release r has behaviour b.
func Behaves(r Release, b Behaviour) bool {
	since, ok := Behaviours[b]
	return ok && r.AtLeast(since)
}
