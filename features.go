package sdbus

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/xml"
	"errors"
	"strings"

	"github.com/godbus/dbus/v5"
	"github.com/godbus/dbus/v5/introspect"
)

// Feature is a manager capability that cgroup managers depend on and that
// distributions backport, so that the version alone does not tell. Each
// constant says how Conn.Supports asks the manager about it.
type Feature string

// Features Conn.Supports can probe.
const (
	// FeatureCollectMode: the CollectMode property (systemd 236). Probe:
	// reads Unit.CollectMode of -.slice.
	FeatureCollectMode Feature = "CollectMode"
	// FeatureDelegateSubgroup: the DelegateSubgroup property (systemd
	// 254; measured: 247 and 252 refuse it on scopes, 257 takes it).
	// Probe: reads Service.DelegateSubgroup of a service that is not
	// loaded.
	FeatureDelegateSubgroup Feature = "DelegateSubgroup"
	// FeatureEffectiveLimits: EffectiveMemoryMax, EffectiveMemoryHigh and
	// EffectiveTasksMax (systemd 256; backported by some distributions;
	// measured: absent on 247 and 252, present on 257 and 262). Probe:
	// reads Slice.EffectiveMemoryMax of -.slice.
	FeatureEffectiveLimits Feature = "EffectiveLimits"
	// FeatureCPUQuotaPeriod: the CPUQuotaPeriodUSec property (systemd
	// 242). Probe: reads Slice.CPUQuotaPeriodUSec of -.slice.
	FeatureCPUQuotaPeriod Feature = "CPUQuotaPeriod"
	// FeatureAllowedCPUs: AllowedCPUs and AllowedMemoryNodes (systemd
	// 244). Probe: reads Slice.AllowedCPUs of -.slice.
	FeatureAllowedCPUs Feature = "AllowedCPUs"
	// FeatureAttachProcesses: Manager.AttachProcessesToUnit (systemd 238).
	// Probe: looks for the method in the manager's introspection data.
	FeatureAttachProcesses Feature = "AttachProcesses"
	// FeatureFreezeThaw: Manager.FreezeUnit and ThawUnit (systemd 246).
	// Probe: looks for FreezeUnit in the manager's introspection data.
	FeatureFreezeThaw Feature = "FreezeThaw"
	// FeatureCPUWeightIdle: CPUWeight=0, the idle class (systemd 250 as
	// far as known; measured: 247 refuses it with InvalidArgs "out of
	// range", 252 takes it). No
	// property tells the range, so the probe is a trial (see Supports):
	// StartTransientUnit of a throwaway slice with CPUWeight=0.
	FeatureCPUWeightIdle Feature = "CPUWeightIdle"
	// FeatureScopeOOMPolicy: OOMPolicy on scopes (upstream 253; measured:
	// Debian's 252.38 takes it, 247 refuses it with PropertyReadOnly).
	// Probe: a trial StartTransientUnit of a throwaway scope with
	// OOMPolicy=continue (services had OOMPolicy long before, so reading
	// the property would not tell).
	FeatureScopeOOMPolicy Feature = "ScopeOOMPolicy"
	// FeatureMemoryZSwapMax: the MemoryZSwapMax property (systemd 253;
	// measured: 247 and 252 refuse it, 257 takes it). Probe: reads
	// Slice.MemoryZSwapMax of -.slice (the setting and the property came
	// together).
	FeatureMemoryZSwapMax Feature = "MemoryZSwapMax"
	// FeatureDeviceAllowMajor: DeviceAllow's "char-N" / "block-N" group
	// syntax with a major number (systemd 240; before, the group name must
	// be looked up in /proc/devices). systemd accepts any "char-" string
	// on the bus and resolves it only when it applies the rules, so the
	// bus cannot be asked: this is the one feature Supports answers from
	// the manager's Version (240 or newer). Every release still in use
	// outside RHEL 7 and 8 has it.
	FeatureDeviceAllowMajor Feature = "DeviceAllowMajor"
)

// Since returns the upstream systemd release that introduced f, a hint for
// when the manager cannot be asked; 0 for an unknown feature.
func (f Feature) Since() int {
	switch f {
	case FeatureCollectMode:
		return 236
	case FeatureDelegateSubgroup:
		return 254
	case FeatureEffectiveLimits:
		return 256
	case FeatureCPUQuotaPeriod:
		return 242
	case FeatureAllowedCPUs:
		return 244
	case FeatureAttachProcesses:
		return 238
	case FeatureFreezeThaw:
		return 246
	case FeatureCPUWeightIdle:
		return 250
	case FeatureScopeOOMPolicy:
		return 253
	case FeatureMemoryZSwapMax:
		return 253
	case FeatureDeviceAllowMajor:
		return 240
	}
	return 0
}

// probeService is the unit whose Service interface answers probes for
// service properties; reading it makes systemd load it as not-found,
// which is harmless.
const probeService = "sdbus-feature-probe.service"

// Supports reports whether the manager has feature f, by asking it (each
// Feature says how): it reads a property and takes UnknownProperty for
// no, looks for a method in the manager's introspection data, or, where
// only the manager's parser can tell whether it takes a value, makes a
// trial StartTransientUnit that can never succeed: the value under test
// followed by a property no systemd has. systemd checks every property
// before it creates anything, so the trial queues no job and creates no
// cgroup; a refusal that names the made-up property means the value
// passed. The trial needs the right to start units: on the system
// manager root or polkit's consent, without which Supports returns the
// error (ErrAccessDenied); on one's own user manager nothing. The version is
// not consulted (distributions backport features and patch behaviour),
// except for FeatureDeviceAllowMajor, which the bus cannot tell. Answers
// are cached for the life of c's connection; a probe that fails (a
// closed connection, ctx) returns the error and is tried again next time.
func (c *Conn) Supports(ctx context.Context, f Feature) (bool, error) {
	if err := c.usable("Supports", ""); err != nil {
		return false, err
	}
	c.mu.Lock()
	v, ok := c.features[f]
	gen := c.gen
	c.mu.Unlock()
	if ok {
		return v, nil
	}
	var err error
	switch f {
	case FeatureCollectMode:
		v, err = c.hasProperty(ctx, "-.slice", unitIface, "CollectMode")
	case FeatureDelegateSubgroup:
		v, err = c.hasProperty(ctx, probeService, "org.freedesktop.systemd1.Service", "DelegateSubgroup")
	case FeatureEffectiveLimits:
		v, err = c.hasProperty(ctx, "-.slice", sliceIface, "EffectiveMemoryMax")
	case FeatureCPUQuotaPeriod:
		v, err = c.hasProperty(ctx, "-.slice", sliceIface, "CPUQuotaPeriodUSec")
	case FeatureAllowedCPUs:
		v, err = c.hasProperty(ctx, "-.slice", sliceIface, "AllowedCPUs")
	case FeatureAttachProcesses:
		v, err = c.hasMethod(ctx, "AttachProcessesToUnit")
	case FeatureFreezeThaw:
		v, err = c.hasMethod(ctx, "FreezeUnit")
	case FeatureCPUWeightIdle:
		v, err = c.acceptsValue(ctx, UnitTypeSlice, PropCPUWeight(0))
	case FeatureScopeOOMPolicy:
		v, err = c.acceptsValue(ctx, UnitTypeScope, PropOOMPolicy(OOMContinue))
	case FeatureMemoryZSwapMax:
		v, err = c.hasProperty(ctx, "-.slice", sliceIface, "MemoryZSwapMax")
	case featureAddRef:
		v, err = c.acceptsValue(ctx, UnitTypeSlice, Property{Name: "AddRef", Value: dbus.MakeVariant(true)})
	case FeatureDeviceAllowMajor:
		var ver Version
		ver, err = c.Version(ctx)
		v = ver.AtLeast(240)
	default:
		return false, invalidArg("Supports", "", "unknown feature %q", string(f))
	}
	if err != nil {
		return false, err
	}
	c.cacheIfCurrent(gen, func() {
		if c.features == nil {
			c.features = make(map[Feature]bool)
		}
		c.features[f] = v
	})
	return v, nil
}

const sliceIface = "org.freedesktop.systemd1.Slice"

// hasProperty reads a property: present, absent (UnknownProperty or
// UnknownInterface), or an error.
func (c *Conn) hasProperty(ctx context.Context, unit, iface, name string) (bool, error) {
	var v dbus.Variant
	err := c.getProperty(ctx, UnitPath(unit), iface, name, unit, &v)
	if err == nil {
		return true, nil
	}
	if isUnknownProperty(err) {
		return false, nil
	}
	return false, err
}

// probeSentinel is a property no systemd has. A trial StartTransientUnit
// whose last property it is always fails; if it fails on this name, every
// property before it was accepted.
const probeSentinel = "SdbusFeatureProbeSentinel"

// acceptsValue reports whether the manager's transient-unit parser takes p
// for a unit of type t, by a trial StartTransientUnit of a throwaway unit
// (see Supports) that ends with probeSentinel.
func (c *Conn) acceptsValue(ctx context.Context, t UnitType, p Property) (bool, error) {
	const op = "StartTransientUnit"
	var rnd [8]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		return false, &Error{Op: "Supports", Message: "no random name for the probe unit", Err: err}
	}
	// No '-': a slice name with dashes implies parent slices.
	name := "sdbusprobe" + hex.EncodeToString(rnd[:]) + "." + string(t)
	props, err := encodeProperties(op, name, []Property{p, {Name: probeSentinel, Value: dbus.MakeVariant(true)}})
	if err != nil {
		return false, err
	}
	var job dbus.ObjectPath
	args := []any{name, string(ModeFail), props, []auxUnitWire{}}
	if err := checkWire(op, name, wireArgNames(op), args); err != nil {
		return false, err
	}
	// The trial creates nothing, whatever happens to it: it is sent again
	// after a lost connection or a daemon-reexec, as an idempotent call.
	err = c.do(ctx, op, name, true, func(s *session) error {
		return storeCall(s.mgr.CallWithContext(ctx, managerIface+"."+op, c.flags(), args...), &job)
	})
	var se *Error
	switch {
	case err == nil:
		// Not a systemd: it took a property that does not exist.
		return false, &Error{Op: "Supports", Unit: name, Message: "the manager accepted the made-up property " + probeSentinel + "; cannot probe"}
	case !errors.As(err, &se):
		return false, err
	case strings.HasSuffix(se.Name, ".PropertyReadOnly") && strings.Contains(se.Message, probeSentinel):
		return true, nil
	case strings.HasSuffix(se.Name, ".PropertyReadOnly"), strings.HasSuffix(se.Name, ".InvalidArgs"):
		return false, nil
	}
	return false, err
}

// hasMethod looks for a Manager method in the manager's introspection
// data.
func (c *Conn) hasMethod(ctx context.Context, method string) (bool, error) {
	const op = "Introspect"
	var xmlData string
	err := c.do(ctx, op, "", true, func(s *session) error {
		return storeCall(s.mgr.CallWithContext(ctx, "org.freedesktop.DBus.Introspectable.Introspect", c.flags()), &xmlData)
	})
	if err != nil {
		return false, err
	}
	var node introspect.Node
	if err := xml.Unmarshal([]byte(xmlData), &node); err != nil {
		return false, &Error{Op: op, Message: "bad introspection data", Err: err}
	}
	for _, i := range node.Interfaces {
		if i.Name != managerIface {
			continue
		}
		for _, m := range i.Methods {
			if m.Name == method {
				return true, nil
			}
		}
	}
	return false, nil
}
