package sdbus

import (
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/godbus/dbus/v5"
)

// A Property is a plain value: the Prop* builders do not record their
// refusals in it. Instead every property is checked by name when it is
// used (StartTransientUnit, SetUnitProperties, CheckProperties,
// Property.Err): its D-Bus type must be the one systemd expects, and for
// the names sdbus has a builder for, its value must be one the builder
// accepts. A builder given bad arguments returns those arguments as the
// value, so the check finds them and the error names what is wrong.

// valueChecks is read-only: a check of the value of a property whose
// D-Bus type is already right, by name. A check receives the variant's Go
// value, which need not have the Go type the builders use (a literal may
// hold a named type or any struct of the right shape); checks go by kind.
var valueChecks = map[string]func(v any) error{
	"Slice": func(v any) error {
		if err := checkSliceName("PropSlice", reflect.ValueOf(v).String()); err != nil {
			return fmt.Errorf("%s", errMessage(err))
		}
		return nil
	},
	// systemd refuses an empty list ("Invalid argument"). PID 0 is the
	// calling process for systemd, not an error.
	"PIDs": func(v any) error {
		if reflect.ValueOf(v).Len() == 0 {
			return fmt.Errorf("no PIDs: a scope needs at least one process")
		}
		return nil
	},
	// systemd takes a path without a slash (looked up in its PATH) as
	// well as an absolute one. An empty argv is refused by systemd 252 and
	// later; systemd 247 takes it and then aborts when the service starts.
	"ExecStart": func(v any) error {
		rv := reflect.ValueOf(v)
		for i := 0; i < rv.Len(); i++ {
			e := rv.Index(i)
			if e.Kind() != reflect.Struct || e.NumField() < 2 || e.Field(1).Kind() != reflect.Slice {
				continue
			}
			if e.Field(1).Len() == 0 {
				return fmt.Errorf("command %q has an empty argv: argv[0] is the program's own name (PropExecStart passes the path)", e.Field(0).String())
			}
		}
		return nil
	},
	"CollectMode": oneOf("mode", string(CollectInactive), string(CollectInactiveOrFailed)),
	"Type": oneOf("service type", string(ServiceSimple), string(ServiceExec), string(ServiceForking),
		string(ServiceOneshot), string(ServiceDBus), string(ServiceNotify), string(ServiceNotifyReload), string(ServiceIdle)),
	"KillMode":     oneOf("kill mode", string(KillControlGroup), string(KillProcess), string(KillMixed), string(KillNone)),
	"OOMPolicy":    oneOf("OOM policy", string(OOMContinue), string(OOMStop), string(OOMKill)),
	"DevicePolicy": oneOf("device policy", string(DevicePolicyAuto), string(DevicePolicyClosed), string(DevicePolicyStrict)),
	"Wants":        unitList, "Requires": unitList, "BindsTo": unitList, "After": unitList,
	"Before": unitList, "Conflicts": unitList, "PartOf": unitList,
	"KillSignal": func(v any) error {
		if sig := reflect.ValueOf(v).Int(); sig <= 0 || sig >= 65 {
			return fmt.Errorf("signal %d out of range", sig)
		}
		return nil
	},
	"TasksMax": func(v any) error {
		if reflect.ValueOf(v).Uint() == 0 {
			return fmt.Errorf("must be at least 1 (or Infinity)")
		}
		return nil
	},
	"CPUWeight": func(v any) error {
		if w := reflect.ValueOf(v).Uint(); w > 10000 && w != Infinity {
			return fmt.Errorf("%d out of range 1-10000", w)
		}
		return nil
	},
	// systemd refuses 0 only. CPUQuotaPeriodUSec has no check: systemd
	// takes any period and clamps it to the kernel's 1 ms to 1 s.
	"CPUQuotaPerSecUSec": func(v any) error {
		if reflect.ValueOf(v).Uint() == 0 {
			return fmt.Errorf("0 µs per second is refused by systemd: to lift the quota, send Infinity (PropCPUQuota with quota 0)")
		}
		return nil
	},
	"IOWeight": func(v any) error {
		if w := reflect.ValueOf(v).Uint(); (w < 1 || w > 10000) && w != Infinity {
			return fmt.Errorf("%d out of range 1-10000", w)
		}
		return nil
	},
	"IODeviceWeight":      ioList(weightValue),
	"IOReadBandwidthMax":  ioList(anyValue),
	"IOWriteBandwidthMax": ioList(anyValue),
	"IOReadIOPSMax":       ioList(anyValue),
	"IOWriteIOPSMax":      ioList(anyValue),
	"DeviceAllow":         checkDeviceAllow,
	// An empty list is valid: systemd takes it (delegation without
	// controllers).
	"DelegateControllers": func(v any) error {
		rv := reflect.ValueOf(v)
		for i := 0; i < rv.Len(); i++ {
			if c := rv.Index(i).String(); !knownController(c) {
				return fmt.Errorf("unknown controller %q", c)
			}
		}
		return nil
	},
	"DelegateSubgroup": func(v any) error {
		// "" is valid: systemd takes it (no sub-cgroup).
		switch name := reflect.ValueOf(v).String(); {
		case name == "":
		case name == ".", name == "..", strings.ContainsAny(name, "/\n"):
			return fmt.Errorf("%q is not a valid cgroup name", name)
		case strings.HasPrefix(name, "cgroup."):
			return fmt.Errorf("%q clashes with cgroup attributes", name)
		}
		return nil
	},
}

// typeChecks is read-only: a check by name of a value whose D-Bus type is
// not the one systemd expects, to say more than "wrong type" where the
// value tells what went wrong (PropAllowedCPUs keeps a list it could not
// parse as a string).
var typeChecks = map[string]func(v any) error{
	"AllowedCPUs":        cpuListText,
	"AllowedMemoryNodes": cpuListText,
	"CPUQuotaPerSecUSec": cpuQuotaPair,
}

// cpuQuotaPair reports why PropCPUQuota could not convert its quota and
// period (it keeps them as a cpuQuotaInput).
func cpuQuotaPair(v any) error {
	q, ok := v.(cpuQuotaInput)
	if !ok {
		return nil
	}
	_, err := cpuQuotaPerSec(q.Quota, q.Period)
	return err
}

func cpuListText(v any) error {
	s, ok := v.(string)
	if !ok {
		return nil
	}
	if _, err := ParseCPUSet(s); err != nil {
		return fmt.Errorf("%s", errMessage(err))
	}
	return fmt.Errorf("must have D-Bus type ay, not s: use PropAllowedCPUs or ParseCPUSet(%q).Bitmap()", s)
}

func oneOf(what string, vals ...string) func(any) error {
	return func(v any) error {
		s := reflect.ValueOf(v).String()
		for _, x := range vals {
			if s == x {
				return nil
			}
		}
		return fmt.Errorf("unknown %s %q", what, s)
	}
}

// unitList checks a dependency list. An empty list is valid: systemd
// takes it and adds nothing.
func unitList(v any) error {
	rv := reflect.ValueOf(v)
	for i := 0; i < rv.Len(); i++ {
		if err := checkUnitName("Property", rv.Index(i).String()); err != nil {
			return fmt.Errorf("%s", errMessage(err))
		}
	}
	return nil
}

// structPairs returns the (string, X) pairs of a slice of two-field
// structs, the Go form of a(ss) and a(st).
func structPairs(v any) (names []string, vals []reflect.Value) {
	rv := reflect.ValueOf(v)
	for i := 0; i < rv.Len(); i++ {
		e := rv.Index(i)
		if e.Kind() != reflect.Struct || e.NumField() != 2 {
			return nil, nil
		}
		names = append(names, e.Field(0).String())
		vals = append(vals, e.Field(1))
	}
	return names, vals
}

// ioList checks per-device IO settings. An empty list is valid (it
// clears the setting), and so is any device path: systemd takes a
// relative one too and resolves it when it applies the limit.
func ioList(check func(uint64) error) func(any) error {
	return func(v any) error {
		devs, vals := structPairs(v)
		for i, d := range devs {
			if vals[i].Kind() == reflect.Uint64 {
				if err := check(vals[i].Uint()); err != nil {
					return fmt.Errorf("%s: %v", d, err)
				}
			}
		}
		return nil
	}
}

// checkDeviceAllow checks DeviceAllow rules. An empty list is valid: it
// clears the unit's rules.
func checkDeviceAllow(v any) error {
	specs, access := structPairs(v)
	for i, s := range specs {
		switch {
		case strings.HasPrefix(s, "/dev/"), strings.HasPrefix(s, "/run/systemd/inaccessible/"),
			strings.HasPrefix(s, "char-"), strings.HasPrefix(s, "block-"):
		default:
			return fmt.Errorf("specifier %q is neither a /dev path nor char-NAME or block-NAME", s)
		}
		// "" is taken by systemd, as "rwm".
		if a := access[i].String(); strings.Trim(a, "rwm") != "" {
			return fmt.Errorf("access %q for %s is not a combination of r, w and m", a, s)
		}
	}
	return nil
}

// check reports what is wrong with p, or nil.
func (p Property) check() error {
	if p.Name == "" {
		return fmt.Errorf("property with an empty name")
	}
	v := p.Value.Value()
	if v == nil {
		return fmt.Errorf("property %s has no value", p.Name)
	}
	sig := p.Value.Signature().String()
	if spec, ok := propertySpecs[p.Name]; ok && spec.sig != sig {
		if tc, ok := typeChecks[p.Name]; ok {
			if err := safeCheck(tc, v); err != nil {
				return fmt.Errorf("property %s: %v", p.Name, err)
			}
		}
		return fmt.Errorf("property %s must have D-Bus type %s, not %s", p.Name, spec.sig, sig)
	}
	if vc, ok := valueChecks[p.Name]; ok {
		if err := safeCheck(vc, v); err != nil {
			return fmt.Errorf("property %s: %v", p.Name, err)
		}
	}
	return nil
}

// safeCheck runs a value check. A value whose Go form the check does not
// expect (a literal built with MakeVariantWithSignature from []any, say)
// is left to systemd rather than refused.
func safeCheck(check func(any) error, v any) (err error) {
	defer func() {
		if recover() != nil {
			err = nil
		}
	}()
	return check(v)
}

// String returns the property as Name=value, the value in systemd's
// spelling where it has one: "MemoryMax=536870912",
// "MemoryMax=infinity", "AllowedCPUs=0-3", "After=a.service b.service".
func (p Property) String() string {
	return p.Name + "=" + formatValue(p.Name, p.Value)
}

func formatValue(name string, v dbus.Variant) string {
	switch x := v.Value().(type) {
	case nil:
		return ""
	case string:
		return x
	case bool:
		if x {
			return "yes"
		}
		return "no"
	case uint64:
		if x == Infinity {
			return "infinity"
		}
		return strconv.FormatUint(x, 10)
	case []string:
		return strings.Join(x, " ")
	case []byte:
		if name == "AllowedCPUs" || name == "AllowedMemoryNodes" || name == "StartupAllowedCPUs" {
			return CPUSetFromBitmap(x).String()
		}
	case []uint32:
		s := make([]string, len(x))
		for i, n := range x {
			s[i] = strconv.FormatUint(uint64(n), 10)
		}
		return strings.Join(s, " ")
	case []DeviceRule:
		s := make([]string, len(x))
		for i, r := range x {
			s[i] = r.Specifier + " " + r.Access
		}
		return strings.Join(s, ", ")
	case []IODeviceLimit:
		s := make([]string, len(x))
		for i, l := range x {
			s[i] = l.Device + " " + strconv.FormatUint(l.Value, 10)
		}
		return strings.Join(s, ", ")
	case []execCommand:
		s := make([]string, len(x))
		for i, c := range x {
			s[i] = strings.Join(c.Argv, " ")
			if c.IgnoreFailure {
				s[i] = "-" + s[i]
			}
		}
		return strings.Join(s, "; ")
	}
	return fmt.Sprint(v.Value())
}

// FromDBusProperties converts a list of go-systemd style properties
// (go-systemd's dbus.Property, or any struct type with exactly the fields
// Name string and Value dbus.Variant) into sdbus properties, so code that
// exposes such lists in its own API can pass them on unchanged:
//
//	props := sdbus.FromDBusProperties(goSystemdProps)
//
// A single one converts directly: sdbus.Property(p).
func FromDBusProperties[P ~struct {
	Name  string
	Value dbus.Variant
}](props []P) []Property {
	if props == nil {
		return nil
	}
	out := make([]Property, len(props))
	for i, p := range props {
		out[i] = Property(p)
	}
	return out
}

// ToDBusProperties converts sdbus properties into go-systemd style ones,
// the reverse of FromDBusProperties:
//
//	gs := sdbus.ToDBusProperties[systemddbus.Property](props)
func ToDBusProperties[P ~struct {
	Name  string
	Value dbus.Variant
}](props []Property) []P {
	if props == nil {
		return nil
	}
	out := make([]P, len(props))
	for i, p := range props {
		out[i] = P(p)
	}
	return out
}

// unitFileName is the D-Bus form of a unit-file setting whose property
// has another name.
type unitFileName struct {
	dbus    string // the D-Bus property (or properties)
	builder string // the sdbus builder, if any
}

// unitFileNames is read-only: the unit-file settings of services,
// scopes, slices and sockets that are not D-Bus properties, with the
// property that carries each. Built by comparing, on systemd 247, 252, 257
// and 262, the settings "systemd --dump-configuration-items" lists with
// the properties the manager's unit objects introspect (the captures in
// fakebus/internal/sdversions/data); every D-Bus name here is one of
// those. Deprecated cgroup-v1 names (MemoryLimit, CPUShares,
// BlockIO*) are not here: they are D-Bus properties too, which systemd
// up to 262 still takes.
var unitFileNames = map[string]unitFileName{
	"CPUQuota":                  {"CPUQuotaPerSecUSec", "PropCPUQuota or PropCPUQuotaPerSec"},
	"CPUQuotaPeriodSec":         {"CPUQuotaPeriodUSec", "PropCPUQuotaPeriod"},
	"IODeviceLatencyTargetSec":  {"IODeviceLatencyTargetUSec", ""},
	"BindTo":                    {"BindsTo", "PropBindsTo"},
	"RequiresOverridable":       {"Requires", "PropRequires"},
	"RequisiteOverridable":      {"Requisite", ""},
	"PropagateReloadTo":         {"PropagatesReloadTo", ""},
	"PropagateReloadFrom":       {"ReloadPropagatedFrom", ""},
	"OnFailureIsolate":          {"OnFailureJobMode", ""},
	"JobTimeoutSec":             {"JobTimeoutUSec", ""},
	"JobRunningTimeoutSec":      {"JobRunningTimeoutUSec", ""},
	"StartLimitInterval":        {"StartLimitIntervalUSec", ""},
	"StartLimitIntervalSec":     {"StartLimitIntervalUSec", ""},
	"TimeoutSec":                {"TimeoutStartUSec and TimeoutStopUSec", ""},
	"TimeoutStartSec":           {"TimeoutStartUSec", ""},
	"TimeoutStopSec":            {"TimeoutStopUSec", ""},
	"TimeoutAbortSec":           {"TimeoutAbortUSec", ""},
	"TimeoutCleanSec":           {"TimeoutCleanUSec", ""},
	"RestartSec":                {"RestartUSec", ""},
	"RuntimeMaxSec":             {"RuntimeMaxUSec", ""},
	"RuntimeRandomizedExtraSec": {"RuntimeRandomizedExtraUSec", ""},
	"WatchdogSec":               {"WatchdogUSec", ""},
	"EnvironmentFile":           {"EnvironmentFiles", ""},
	"StandardInputText":         {"StandardInputData", ""},
	"LogRateLimitIntervalSec":   {"LogRateLimitIntervalUSec", ""},
	"ReadOnlyDirectories":       {"ReadOnlyPaths", ""},
	"ReadWriteDirectories":      {"ReadWritePaths", ""},
	"InaccessibleDirectories":   {"InaccessiblePaths", ""},
	"ListenStream":              {"Listen", ""},
	"ListenDatagram":            {"Listen", ""},
	"ListenSequentialPacket":    {"Listen", ""},
	"ListenFIFO":                {"Listen", ""},
	"ListenSpecial":             {"Listen", ""},
	"ListenNetlink":             {"Listen", ""},
	"ListenMessageQueue":        {"Listen", ""},
	"ListenUSBFunction":         {"Listen", ""},
	"DeferAcceptSec":            {"DeferAcceptUSec", ""},
	"KeepAliveTimeSec":          {"KeepAliveTimeUSec", ""},
	"KeepAliveIntervalSec":      {"KeepAliveIntervalUSec", ""},
	"TriggerLimitIntervalSec":   {"TriggerLimitIntervalUSec", ""},
	// Newer settings: 257 and 262.
	"MemoryPressureThresholdSec":          {"MemoryPressureThresholdUSec", ""},
	"RestartMaxDelaySec":                  {"RestartMaxDelayUSec", ""},
	"ManagedOOMMemoryPressureDurationSec": {"ManagedOOMMemoryPressureDurationUSec", ""},
	"PollLimitIntervalSec":                {"PollLimitIntervalUSec", ""},
	// 262 only.
	"CPUPressureThresholdSec":   {"CPUPressureThresholdUSec", ""},
	"IOPressureThresholdSec":    {"IOPressureThresholdUSec", ""},
	"RestartRandomizedDelaySec": {"RestartRandomizedDelayUSec", ""},
	"DeferTriggerMaxSec":        {"DeferTriggerMaxUSec", ""},
}

// propertyHint says which D-Bus property carries the unit-file setting
// name, or "" when name is not one of those.
func propertyHint(name string) string {
	if u, ok := unitFileNames[name]; ok {
		h := name + " is a unit-file setting; its D-Bus property is " + u.dbus
		if u.builder != "" {
			h += " (" + u.builder + ")"
		}
		return h
	}
	for _, prefix := range []string{"Condition", "Assert"} {
		if strings.HasPrefix(name, prefix) && len(name) > len(prefix) {
			return fmt.Sprintf("%s is a unit-file setting; over D-Bus it is an entry (%s, ...) of the %ss property",
				name, strings.TrimPrefix(name, prefix), prefix)
		}
	}
	return ""
}

// withPropertyHint adds propertyHint to the manager's refusal of an
// unknown property, "Cannot set property CPUQuota, or unknown property."
// (PropertyReadOnly, systemd 247 to 262).
func withPropertyHint(err error) error {
	var e *Error
	if !errors.As(err, &e) || e.Name != "org.freedesktop.DBus.Error.PropertyReadOnly" && e.Name != "org.freedesktop.DBus.Error.UnknownProperty" {
		return err
	}
	rest, ok := strings.CutPrefix(e.Message, "Cannot set property ")
	if !ok {
		return err
	}
	name, _, _ := strings.Cut(rest, ",")
	if h := propertyHint(name); h != "" {
		e.Message += " " + h + "."
	}
	return err
}
