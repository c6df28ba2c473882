package sdbus

import (
	"context"
	"encoding/xml"
	"errors"
	"strings"

	"github.com/godbus/dbus/v5"
	"github.com/godbus/dbus/v5/introspect"
)

// Feature is a manager capability that cgroup managers depend on and that
// distributions backport, so that the version alone does not tell.
type Feature string

// Features Conn.Supports can probe.
const (
	// FeatureCollectMode: the CollectMode property (systemd 236).
	FeatureCollectMode Feature = "CollectMode"
	// FeatureDelegateSubgroup: the DelegateSubgroup property (systemd 254).
	FeatureDelegateSubgroup Feature = "DelegateSubgroup"
	// FeatureEffectiveLimits: EffectiveMemoryMax, EffectiveMemoryHigh and
	// EffectiveTasksMax (systemd 256; backported by some distributions).
	FeatureEffectiveLimits Feature = "EffectiveLimits"
	// FeatureCPUQuotaPeriod: the CPUQuotaPeriodUSec property (systemd 242).
	FeatureCPUQuotaPeriod Feature = "CPUQuotaPeriod"
	// FeatureAllowedCPUs: AllowedCPUs and AllowedMemoryNodes (systemd 244).
	FeatureAllowedCPUs Feature = "AllowedCPUs"
	// FeatureAttachProcesses: Manager.AttachProcessesToUnit (systemd 238).
	FeatureAttachProcesses Feature = "AttachProcesses"
	// FeatureFreezeThaw: Manager.FreezeUnit and ThawUnit (systemd 246).
	FeatureFreezeThaw Feature = "FreezeThaw"
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
	}
	return 0
}

// probeService is the unit whose Service interface answers probes for
// service properties; reading it makes systemd load it as not-found,
// which is harmless.
const probeService = "sdbus-feature-probe.service"

// Supports reports whether the manager has feature f, by asking it: it
// reads a property and takes UnknownProperty for no, or looks for a method
// in the manager's introspection data. The version is not consulted
// (distributions backport features and patch behaviour). Answers are
// cached for the life of c; a probe that fails (a closed connection, ctx)
// returns the error and is tried again next time.
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
	var se *Error
	if errors.As(err, &se) && (strings.HasSuffix(se.Name, ".UnknownProperty") || strings.HasSuffix(se.Name, ".UnknownInterface")) {
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
