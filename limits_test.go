package sdbus_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus"
)

// Supports gives each release's real answer on the fake that plays it:
// 247, 252, 257 and 262 as measured (issue 11), older and backported
// releases as the table in fakebus says.
func TestSupports(t *testing.T) {
	leakCheck(t)
	ctx := testCtx(t)
	all := []sdbus.Feature{
		sdbus.FeatureCollectMode, sdbus.FeatureDelegateSubgroup, sdbus.FeatureEffectiveLimits,
		sdbus.FeatureCPUQuotaPeriod, sdbus.FeatureAllowedCPUs, sdbus.FeatureAttachProcesses, sdbus.FeatureFreezeThaw,
		sdbus.FeatureCPUWeightIdle, sdbus.FeatureScopeOOMPolicy, sdbus.FeatureMemoryZSwapMax, sdbus.FeatureDeviceAllowMajor,
	}
	set := func(fs ...sdbus.Feature) map[sdbus.Feature]bool {
		m := map[sdbus.Feature]bool{}
		for _, f := range fs {
			m[f] = true
		}
		return m
	}
	v247 := []sdbus.Feature{sdbus.FeatureCollectMode, sdbus.FeatureCPUQuotaPeriod, sdbus.FeatureAllowedCPUs,
		sdbus.FeatureAttachProcesses, sdbus.FeatureFreezeThaw, sdbus.FeatureDeviceAllowMajor}
	v252 := append(v247[:len(v247):len(v247)], sdbus.FeatureCPUWeightIdle, sdbus.FeatureScopeOOMPolicy)
	v257 := append(v252[:len(v252):len(v252)], sdbus.FeatureDelegateSubgroup, sdbus.FeatureMemoryZSwapMax, sdbus.FeatureEffectiveLimits)
	for _, tc := range []struct {
		name string
		opts []fakebus.Option
		want map[sdbus.Feature]bool
	}{
		{"235", []fakebus.Option{fakebus.WithVersion("235")}, set()},
		{"239 (RHEL 8)", []fakebus.Option{fakebus.WithVersion("239 (239-41.el8_3.2)")},
			set(sdbus.FeatureCollectMode, sdbus.FeatureAttachProcesses)},
		{"247", []fakebus.Option{fakebus.WithVersion("247.3-7+deb11u5")}, set(v247...)},
		{"252", nil, set(v252...)},
		// A distribution that backported the effective limits to 251 (which
		// has CPUWeight idle: 250 as far as known, not measured).
		{"251 with a backport", []fakebus.Option{fakebus.WithVersion("251.4-1"), fakebus.WithBackport("EffectiveMemoryMax")},
			set(append(v247[:len(v247):len(v247)], sdbus.FeatureEffectiveLimits, sdbus.FeatureCPUWeightIdle)...)},
		{"254", []fakebus.Option{fakebus.WithVersion("254.10-1")},
			set(append(v252[:len(v252):len(v252)], sdbus.FeatureDelegateSubgroup, sdbus.FeatureMemoryZSwapMax)...)},
		{"257", []fakebus.Option{fakebus.WithVersion("257.13-1~deb13u1")}, set(v257...)},
		{"262", []fakebus.Option{fakebus.WithVersion("262.1-1")}, set(v257...)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := fakebus.New(t, tc.opts...)
			c := s.Conn(t)
			got := map[sdbus.Feature]bool{}
			for _, f := range all {
				ok, err := c.Supports(ctx, f)
				if err != nil {
					t.Fatalf("Supports(%s): %v", f, err)
				}
				if ok {
					got[f] = true
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("features (-want +got):\n%s", diff)
			}
			// The trials left no unit behind.
			units, err := c.ListUnits(ctx)
			if err != nil {
				t.Fatal(err)
			}
			for _, u := range units {
				if strings.HasPrefix(u.Name, "sdbusprobe") {
					t.Errorf("probe unit %s left loaded", u.Name)
				}
			}
		})
	}
}

// Answers are cached per Conn; a probe that failed is not.
func TestSupportsCachesAnswersOnly(t *testing.T) {
	leakCheck(t)
	ctx := testCtx(t)
	s := fakebus.New(t)
	c := s.Conn(t)
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := c.Supports(canceled, sdbus.FeatureCollectMode); !errors.Is(err, context.Canceled) {
		t.Fatalf("Supports with a canceled ctx = %v", err)
	}
	if ok, err := c.Supports(ctx, sdbus.FeatureCollectMode); !ok || err != nil {
		t.Fatalf("Supports = %v, %v", ok, err)
	}
	// Cached: answered without asking, even with a canceled ctx.
	if ok, err := c.Supports(canceled, sdbus.FeatureCollectMode); !ok || err != nil {
		t.Errorf("cached Supports = %v, %v", ok, err)
	}
	if _, err := c.Supports(ctx, "Teleport"); !errors.Is(err, sdbus.ErrInvalidArgs) {
		t.Errorf("unknown feature: %v", err)
	}
}

// A scope with no limits of its own under a slice with MemoryMax=512M and
// CPUQuota=100% gets 512M and one CPU, imposed by that slice.
func TestEffectiveLimits(t *testing.T) {
	for _, version := range []string{"252.38-1~deb12u1", "256.5-1"} {
		version := version
		t.Run(version, func(t *testing.T) {
			leakCheck(t)
			ctx := testCtx(t)
			s := fakebus.New(t, fakebus.WithVersion(version), fakebus.WithMadeUpPIDs())
			c := s.Conn(t)
			quota := sdbus.PropCPUQuota(100000, 100000)
			for _, u := range []struct {
				name  string
				props []sdbus.Property
			}{
				{"pod.slice", []sdbus.Property{sdbus.PropMemoryMax(512 << 20), quota, sdbus.PropTasksMax(1000)}},
				{"pod-burstable.slice", []sdbus.Property{sdbus.PropMemoryMax(1 << 30), sdbus.PropMemoryHigh(256 << 20)}},
				{"ctr.scope", []sdbus.Property{sdbus.PropPIDs(4242), sdbus.PropSlice("pod-burstable.slice"), sdbus.PropTasksMax(50)}},
			} {
				if _, err := c.EnsureTransientUnit(ctx, u.name, u.props, sdbus.EnsureOptions{}); err != nil {
					t.Fatal(err)
				}
			}
			got, err := c.EffectiveLimits(ctx, "ctr.scope")
			if err != nil {
				t.Fatal(err)
			}
			lim := func(v uint64, src string) sdbus.EffectiveLimit {
				return sdbus.EffectiveLimit{Limit: sdbus.Limit{Value: v}, Source: src}
			}
			want := sdbus.EffectiveLimits{
				MemoryMax:          lim(512<<20, "pod.slice"),
				MemoryHigh:         lim(256<<20, "pod-burstable.slice"),
				TasksMax:           lim(50, "ctr.scope"),
				CPUQuotaPerSecUSec: lim(1000000, "pod.slice"),
				FromManager:        version == "256.5-1",
				Chain:              []string{"ctr.scope", "pod-burstable.slice", "pod.slice", "-.slice"},
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("EffectiveLimits (-want +got):\n%s", diff)
			}
			// Nothing limits the root.
			root, err := c.EffectiveLimits(ctx, "-.slice")
			if err != nil {
				t.Fatal(err)
			}
			if !root.MemoryMax.Unlimited || root.MemoryMax.Source != "" || root.MemoryMax.String() != "infinity" {
				t.Errorf("-.slice MemoryMax = %+v", root.MemoryMax)
			}
			if _, err := c.EffectiveLimits(ctx, "missing.scope"); !errors.Is(err, sdbus.ErrNoSuchUnit) {
				t.Errorf("EffectiveLimits of a missing unit = %v, want ErrNoSuchUnit", err)
			}
		})
	}
}

func TestTypedReads(t *testing.T) {
	leakCheck(t)
	ctx := testCtx(t)
	s := fakebus.New(t, fakebus.WithMadeUpPIDs(), fakebus.WithUnitFile(fakebus.UnitFile{Name: "masked.service", Masked: true}))
	c := s.Conn(t)
	if _, err := c.EnsureTransientUnit(ctx, "r.scope", append(scopeProps(300), sdbus.PropKillMode(sdbus.KillMixed)), sdbus.EnsureOptions{}); err != nil {
		t.Fatal(err)
	}
	up, err := c.UnitProperties(ctx, "r.scope")
	if err != nil {
		t.Fatal(err)
	}
	if up.ID != "r.scope" || up.LoadState != sdbus.LoadLoaded || up.ActiveState != sdbus.StateActive ||
		!up.Transient || len(up.InvocationID) != 32 || up.ActiveEnterTimestamp.IsZero() {
		t.Errorf("UnitProperties = %+v", up)
	}
	sp, err := c.ScopeProperties(ctx, "r.scope")
	if err != nil {
		t.Fatal(err)
	}
	if sp.Result != "success" || sp.ControlGroup != "/system.slice/r.scope" || sp.Slice != "system.slice" ||
		!sp.Delegate || sp.KillMode != sdbus.KillMixed || sp.KillSignal != 15 || !sp.MemoryMax.Unlimited {
		t.Errorf("ScopeProperties = %+v", sp)
	}
	for _, tc := range []struct {
		name string
		want error
		load sdbus.LoadState
	}{
		{"nope.service", sdbus.ErrNoSuchUnit, sdbus.LoadNotFound},
		{"masked.service", sdbus.ErrUnitMasked, sdbus.LoadMasked},
	} {
		p, err := c.UnitProperties(ctx, tc.name)
		if !errors.Is(err, tc.want) || p.LoadState != tc.load {
			t.Errorf("UnitProperties(%s) = LoadState %q, %v; want %q, %v", tc.name, p.LoadState, err, tc.load, tc.want)
		}
		if _, err := c.ServiceProperties(ctx, tc.name); !errors.Is(err, tc.want) {
			t.Errorf("ServiceProperties(%s) = %v, want %v", tc.name, err, tc.want)
		}
	}
	if _, err := c.SliceProperties(ctx, "r.scope"); !errors.Is(err, sdbus.ErrInvalidArgs) {
		t.Errorf("SliceProperties of a scope = %v", err)
	}
	if name, err := c.UnitByPID(ctx, 300); name != "r.scope" || err != nil {
		t.Errorf("UnitByPID = %q, %v", name, err)
	}
	if _, err := c.UnitByPID(ctx, 999999); !errors.Is(err, sdbus.ErrNoUnitForPID) {
		t.Errorf("UnitByPID of a stranger = %v", err)
	}
}

// A user manager's unit is limited by what the system manager puts on the
// user's slice; when the system manager cannot be read, the user manager's
// own limits come back with an error that says so.
func TestEffectiveLimitsAcrossManagers(t *testing.T) {
	leakCheck(t)
	ctx := testCtx(t)
	const uid = 2000
	sys := fakebus.New(t, fakebus.WithUnitFile(fakebus.UnitFile{
		Name: "user@2000.service", Active: true,
		Properties: []sdbus.Property{sdbus.PropSlice("user-2000.slice"), sdbus.PropExecStart([]string{"/bin/sleep", "3600"}, false)},
	}))
	sysConn := sys.Conn(t)
	if err := sysConn.SetUnitProperties(ctx, "user-2000.slice", true, sdbus.PropMemoryMax(1<<30), sdbus.PropTasksMax(500)); err != nil {
		t.Fatal(err)
	}
	user := fakebus.New(t, fakebus.WithUserManager(uid), fakebus.WithMadeUpPIDs())
	setup := user.PrivateConn(t)
	if err := setup.SetUnitProperties(ctx, "app.slice", true, sdbus.PropMemoryMax(2<<30), sdbus.PropTasksMax(100)); err != nil {
		t.Fatal(err)
	}
	if _, err := setup.EnsureTransientUnit(ctx, "ctr.scope", []sdbus.Property{sdbus.PropPIDs(4242)}, sdbus.EnsureOptions{}); err != nil {
		t.Fatal(err)
	}
	own := sdbus.EffectiveLimits{
		MemoryMax:          sdbus.EffectiveLimit{Limit: sdbus.Limit{Value: 2 << 30}, Source: "app.slice"},
		MemoryHigh:         sdbus.EffectiveLimit{Limit: sdbus.Limit{Unlimited: true}},
		TasksMax:           sdbus.EffectiveLimit{Limit: sdbus.Limit{Value: 100}, Source: "app.slice"},
		CPUQuotaPerSecUSec: sdbus.EffectiveLimit{Limit: sdbus.Limit{Unlimited: true}},
		Chain:              []string{"ctr.scope", "app.slice", "-.slice"},
	}
	both := own
	both.MemoryMax = sdbus.EffectiveLimit{Limit: sdbus.Limit{Value: 1 << 30}, Source: "user-2000.slice", System: true}
	both.SystemChain = []string{"user@2000.service", "user-2000.slice", "user.slice", "-.slice"}

	got, err := user.PrivateConn(t, sdbus.WithSystemManager(sysConn)).EffectiveLimits(ctx, "ctr.scope")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(both, got); diff != "" {
		t.Errorf("with the system manager (-want +got):\n%s", diff)
	}

	// No system manager to ask: ConnectSystem finds nothing.
	t.Setenv("DBUS_SYSTEM_BUS_ADDRESS", "unix:path="+t.TempDir()+"/none")
	got, err = user.PrivateConn(t).EffectiveLimits(ctx, "ctr.scope")
	if !errors.Is(err, sdbus.ErrUnreachable) || !strings.Contains(fmt.Sprint(err), "the real ones may be lower") {
		t.Errorf("without a system manager: err = %v, want ErrUnreachable saying the real limits may be lower", err)
	}
	if diff := cmp.Diff(own, got); diff != "" {
		t.Errorf("without a system manager, the user manager's own limits (-want +got):\n%s", diff)
	}

	// A system manager that is not the one the user manager runs in.
	other := fakebus.New(t).Conn(t)
	_, err = user.PrivateConn(t, sdbus.WithSystemManager(other)).EffectiveLimits(ctx, "ctr.scope")
	if !errors.Is(err, sdbus.ErrNoSuchUnit) {
		t.Errorf("with another system manager: err = %v, want ErrNoSuchUnit", err)
	}
}
