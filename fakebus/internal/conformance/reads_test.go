package conformance

import (
	"errors"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/sdbus-go/sdbus"
)

// testExecMain: ExecMainCode and ExecMainStatus tell an exit from a
// signal, and ExecMainPID outlives the process (MainPID does not).
func testExecMain(t *testing.T, e *env) {
	for _, tc := range []struct {
		name       string
		props      []sdbus.Property
		kill       bool
		wantCode   sdbus.ExecCode
		wantStatus int32
		wantResult string
	}{
		{"exit", oneshot("/bin/sh", "-c", "exit 3"), false, sdbus.ExecExited, 3, "exit-code"},
		{"kill", []sdbus.Property{sdbus.PropDescription("sdbus conformance"), sdbus.PropExecStart([]string{"/bin/sleep", "1000"}, false)},
			true, sdbus.ExecKilled, int32(syscall.SIGKILL), "signal"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			name := e.unit("exec", "service")
			cleanup(t, e, name)
			j := start(t, e, e.c, name, tc.props)
			if tc.kill {
				wait(t, e, j, sdbus.JobDone)
				if err := e.c.KillUnit(e.ctx, name, sdbus.KillMain, syscall.SIGKILL); err != nil {
					t.Fatal(err)
				}
			} else {
				wait(t, e, j, sdbus.JobFailed)
			}
			settle(t, e, name, "failed", func(s sdbus.UnitState) bool { return s.ActiveState == sdbus.StateFailed })
			got, err := e.c.ServiceProperties(e.ctx, name)
			if err != nil {
				t.Fatal(err)
			}
			if got.ExecMainCode != tc.wantCode || got.ExecMainStatus != tc.wantStatus || got.Result != tc.wantResult {
				t.Errorf("ExecMainCode, ExecMainStatus, Result = %v, %d, %s; want %v, %d, %s",
					got.ExecMainCode, got.ExecMainStatus, got.Result, tc.wantCode, tc.wantStatus, tc.wantResult)
			}
			if got.ExecMainPID == 0 || got.MainPID != 0 || got.ExecMainStartTimestamp.IsZero() || got.ExecMainExitTimestamp.IsZero() {
				t.Errorf("ExecMainPID %d, MainPID %d, start %v, exit %v: want a kept PID, no main PID, both timestamps",
					got.ExecMainPID, got.MainPID, got.ExecMainStartTimestamp, got.ExecMainExitTimestamp)
			}
		})
	}
}

// testManagerReads: the typed manager read decodes, and the raw one
// answers any property.
func testManagerReads(t *testing.T, e *env) {
	m, err := e.c.ManagerProperties(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	v, err := sdbus.ParseVersion(m.Version)
	if err != nil || v.Major != e.release.Major {
		t.Errorf("ManagerProperties.Version = %q (%v), want major %d", m.Version, err, e.release.Major)
	}
	if m.SystemState == "" || m.Architecture == "" || m.NNames == 0 || m.DefaultStandardOutput == "" ||
		m.UserspaceTimestamp.IsZero() || len(m.Environment) == 0 || m.LogLevel == "" {
		t.Errorf("ManagerProperties = %+v: empty fields", m)
	}
	cg, err := e.c.ManagerProperty(e.ctx, "ControlGroup")
	if _, ok := cg.Value().(string); err != nil || !ok {
		t.Errorf("ManagerProperty(ControlGroup) = %v, %v; want a string", cg, err)
	}
	if _, err := e.c.ManagerProperty(e.ctx, "NoSuchPropertyAnywhere"); !errors.Is(err, sdbus.ErrNotSupported) {
		t.Errorf("ManagerProperty(unknown) = %v, want ErrNotSupported", err)
	}
}

// testUnitReads: the status fields of a transient unit; a unit that is
// not loaded is ErrNoSuchUnit to the typed reads and its defaults to the
// raw ones.
func testUnitReads(t *testing.T, e *env) {
	name := e.unit("reads", "service")
	cleanup(t, e, name)
	wait(t, e, start(t, e, e.c, name, []sdbus.Property{sdbus.PropExecStart([]string{"/bin/sleep", "1000"}, false)}), sdbus.JobDone)
	u, err := e.c.UnitProperties(e.ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	type fields struct {
		UnitFileState, SourcePath    string
		CanStart, CanStop, CanReload bool
		TriggeredBy                  []string
	}
	want := fields{UnitFileState: "transient", CanStart: true, CanStop: true, TriggeredBy: []string{}}
	got := fields{u.UnitFileState, u.SourcePath, u.CanStart, u.CanStop, u.CanReload, u.TriggeredBy}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("UnitProperties (-want +got):\n%s", diff)
	}
	s, err := e.c.ServiceProperties(e.ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	if s.ExecMainCode != sdbus.ExecNotExited || s.ExecMainPID == 0 || s.ExecMainPID != s.MainPID {
		t.Errorf("running service: ExecMainCode %v, ExecMainPID %d, MainPID %d", s.ExecMainCode, s.ExecMainPID, s.MainPID)
	}
	v, err := e.c.UnitProperty(e.ctx, name, "Service", "NRestarts")
	if n, ok := v.Value().(uint32); err != nil || !ok || n != 0 {
		t.Errorf("UnitProperty(NRestarts) = %v, %v; want uint32 0", v, err)
	}

	missing := e.unit("missing", "scope")
	if _, err := e.c.ScopeProperties(e.ctx, missing); !errors.Is(err, sdbus.ErrNoSuchUnit) {
		t.Errorf("ScopeProperties(missing) = %v, want ErrNoSuchUnit", err)
	}
	for _, tc := range []struct{ iface, name, want string }{
		{"Unit", "LoadState", "not-found"},
		{"Scope", "DevicePolicy", "auto"},
	} {
		v, err := e.c.UnitProperty(e.ctx, missing, tc.iface, tc.name)
		if err != nil || v.Value() != tc.want {
			t.Errorf("UnitProperty(missing, %s) = %v, %v; want %q", tc.name, v, err, tc.want)
		}
	}
	m, err := e.c.UnitTypeProperties(e.ctx, missing)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := m["Controller"]; !ok {
		t.Errorf("UnitTypeProperties(missing scope) has no Controller: %v", m)
	}
}

// testRuncInputs: what runc sends is what systemd keeps: CPU lists in
// RangeToBits syntax, its CPU quota rounding, and an empty DeviceAllow that
// clears the rules.
func testRuncInputs(t *testing.T, e *env) {
	name := e.unit("runc", "slice")
	cleanup(t, e, name)
	quota := sdbus.PropCPUQuota(10000, 333333)
	perSec, err := sdbus.CPUQuotaPerSec(10000, 333333)
	if err != nil {
		t.Fatal(err)
	}
	null := sdbus.DeviceRule{Specifier: "/dev/null", Access: "rw"}
	zero := sdbus.DeviceRule{Specifier: "/dev/zero", Access: "r"}
	props := append(sliceProps(), quota, sdbus.PropAllowedCPUs(" ,0, "), sdbus.PropDeviceAllow(null))
	wait(t, e, start(t, e, e.c, name, props), sdbus.JobDone)
	got, err := e.c.SliceProperties(e.ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	if perSec != 30000 || got.CPUQuotaPerSecUSec != (sdbus.Limit{Value: 30000}) {
		t.Errorf("CPUQuotaPerSecUSec = %v (builder %d), want 30000", got.CPUQuotaPerSecUSec, perSec)
	}
	if diff := cmp.Diff(sdbus.CPUSet{0}, got.AllowedCPUs); diff != "" {
		t.Errorf("AllowedCPUs (-want +got):\n%s", diff)
	}
	for _, step := range []struct {
		name string
		p    sdbus.Property
		want []sdbus.DeviceRule
	}{
		// Rules add up, the newest first (systemd prepends them).
		{"append", sdbus.PropDeviceAllow(zero), []sdbus.DeviceRule{zero, null}},
		{"clear", sdbus.PropDeviceAllow(), []sdbus.DeviceRule{}},
		{"after clear", sdbus.PropDeviceAllow(zero), []sdbus.DeviceRule{zero}},
		{"clear and two rules", sdbus.PropDeviceAllow(), nil},
		{"two rules in one call", sdbus.PropDeviceAllow(null, zero), []sdbus.DeviceRule{zero, null}},
	} {
		if err := e.c.SetUnitProperties(e.ctx, name, true, step.p); err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		got, err := e.c.SliceProperties(e.ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		if len(step.want) == 0 && len(got.DeviceAllow) == 0 {
			continue
		}
		if diff := cmp.Diff(step.want, got.DeviceAllow); diff != "" {
			t.Errorf("%s: DeviceAllow (-want +got):\n%s", step.name, diff)
		}
	}
}

// testServiceTimeouts: a service's TimeoutAbortUSec= reads its
// TimeoutStopUSec= until it is set, and 0 stays 0, where the stop
// timeout's 0 reads infinity once a daemon-reload has read the transient
// unit's file again.
func testServiceTimeouts(t *testing.T, e *env) {
	const infinity = ^uint64(0)
	type timeouts struct{ Stop, Abort uint64 }
	cases := []struct {
		name           string
		set            []sdbus.Property
		want, reloaded timeouts
	}{
		{"stop", []sdbus.Property{sdbus.PropRaw("TimeoutStopUSec", uint64(7_000_000))}, timeouts{7_000_000, 7_000_000}, timeouts{7_000_000, 7_000_000}},
		{"stop0", []sdbus.Property{sdbus.PropRaw("TimeoutStopUSec", uint64(0))}, timeouts{0, 0}, timeouts{infinity, infinity}},
		{"abort0", []sdbus.Property{sdbus.PropRaw("TimeoutStopUSec", uint64(0)), sdbus.PropRaw("TimeoutAbortUSec", uint64(0))}, timeouts{0, 0}, timeouts{infinity, 0}},
		{"abort", []sdbus.Property{sdbus.PropRaw("TimeoutAbortUSec", uint64(5_000_000))}, timeouts{90_000_000, 5_000_000}, timeouts{90_000_000, 5_000_000}},
	}
	read := func(t *testing.T, name string) timeouts {
		t.Helper()
		var got timeouts
		for _, p := range []struct {
			name string
			to   *uint64
		}{{"TimeoutStopUSec", &got.Stop}, {"TimeoutAbortUSec", &got.Abort}} {
			v, err := e.c.UnitProperty(e.ctx, name, "Service", p.name)
			if err != nil {
				t.Fatal(err)
			}
			*p.to, _ = v.Value().(uint64)
		}
		return got
	}
	names := make([]string, len(cases))
	for i, tc := range cases {
		names[i] = e.unit("timeouts-"+tc.name, "service")
		cleanup(t, e, names[i])
		props := append([]sdbus.Property{sdbus.PropExecStart([]string{"/bin/sleep", "1000"}, false)}, tc.set...)
		wait(t, e, start(t, e, e.c, names[i], props), sdbus.JobDone)
		if diff := cmp.Diff(tc.want, read(t, names[i])); diff != "" {
			t.Errorf("%s: timeouts (-want +got):\n%s", tc.name, diff)
		}
	}
	if err := e.c.Reload(e.ctx); err != nil {
		t.Fatal(err)
	}
	for i, tc := range cases {
		if diff := cmp.Diff(tc.reloaded, read(t, names[i])); diff != "" {
			t.Errorf("%s: timeouts after a reload (-want +got):\n%s", tc.name, diff)
		}
		stop(t, e, e.c, names[i])
	}
}
