package fakebus_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/godbus/dbus/v5"
	"github.com/google/go-cmp/cmp"
	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus"
)

// unitStates are a unit's states as Server.Unit gives them, "" when it is
// not loaded.
type unitStates struct{ Active, Sub, Result string }

func statesOf(s *fakebus.Server, name string) unitStates {
	u, ok := s.Unit(name)
	if !ok {
		return unitStates{}
	}
	return unitStates{u.ActiveState, u.SubState, u.Result}
}

// TestSetUnitStateService: SetUnitState moves a service between its
// states as its main process would: a crash, an exit, a run with a main
// PID of the test's choosing, with ExecMain* as systemd shows them.
func TestSetUnitStateService(t *testing.T) {
	oneshot := app("app.service")
	oneshot.Properties = append(oneshot.Properties, sdbus.PropType(sdbus.ServiceOneshot))
	for _, tt := range []struct {
		name    string
		file    fakebus.UnitFile
		running bool // started first
		states  []fakebus.UnitState
		want    mainRun
	}{
		{"crash of a running service", app("app.service"), true,
			[]fakebus.UnitState{{ActiveState: "failed", Result: "signal", ExitStatus: 9}},
			mainRun{"failed", "failed", "signal", 0, 2, 9, true, 2, 9}},
		{"crash, default exit", app("app.service"), true,
			[]fakebus.UnitState{{ActiveState: "failed"}},
			mainRun{"failed", "failed", "exit-code", 0, 1, 1, true, 1, 1}},
		{"core dump", app("app.service"), true,
			[]fakebus.UnitState{{ActiveState: "failed", SubState: "failed", Result: "core-dump"}},
			mainRun{"failed", "failed", "core-dump", 0, 3, 11, true, 3, 11}},
		{"failed without having run, exit 3", app("app.service"), false,
			[]fakebus.UnitState{{ActiveState: "failed", ExitStatus: 3}},
			mainRun{"failed", "failed", "exit-code", 0, 1, 3, true, 1, 3}},
		{"failed without having run, no status", app("app.service"), false,
			[]fakebus.UnitState{{ActiveState: "failed", Result: "oom-kill"}},
			mainRun{"failed", "failed", "oom-kill", 0, 0, 0, false, 0, 0}},
		{"oneshot killed by SIGTERM", oneshot, false,
			[]fakebus.UnitState{{ActiveState: "failed", Result: "signal", ExitStatus: 15}},
			mainRun{"failed", "failed", "signal", 0, 2, 15, true, 2, 15}},
		{"running with a main PID", app("app.service"), false,
			[]fakebus.UnitState{{ActiveState: "active", MainPID: 4242}},
			mainRun{"active", "running", "success", 4242, 0, 0, false, 0, 0}},
		{"a running one's main PID changed", app("app.service"), true,
			[]fakebus.UnitState{{ActiveState: "active", SubState: "running", MainPID: 4243}},
			mainRun{"active", "running", "success", 4243, 0, 0, false, 0, 0}},
		{"running, then exited", app("app.service"), false,
			[]fakebus.UnitState{{ActiveState: "active"}, {ActiveState: "active", SubState: "exited"}},
			mainRun{"active", "exited", "success", 0, 1, 0, true, 1, 0}},
		{"oneshot exited", oneshot, false,
			[]fakebus.UnitState{{ActiveState: "active"}},
			mainRun{"active", "exited", "success", 0, 1, 0, true, 1, 0}},
		{"failed, then active again", app("app.service"), true,
			[]fakebus.UnitState{{ActiveState: "failed", Result: "signal", ExitStatus: 6}, {ActiveState: "active"}},
			mainRun{"active", "running", "success", 0, 0, 0, false, 0, 0}},
		{"failed, then failed otherwise", app("app.service"), true,
			[]fakebus.UnitState{{ActiveState: "failed"}, {ActiveState: "failed", Result: "watchdog"}},
			mainRun{"failed", "failed", "watchdog", 0, 1, 1, true, 1, 1}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := fakebus.New(t, fakebus.WithUnitFile(tt.file))
			r := rawBus(t, s)
			if tt.running {
				if res := startResult(t, s.Conn(t), "app.service"); res != sdbus.JobDone {
					t.Fatalf("start: %s", res)
				}
			}
			for _, st := range tt.states {
				if err := s.SetUnitState("app.service", st); err != nil {
					t.Fatal(err)
				}
			}
			got := readMainRun(t, r, "app.service")
			if got.MainPID != 0 && tt.want.MainPID == 0 {
				got.MainPID = 0 // a PID the fake numbered
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("service (-want +got):\n%s", diff)
			}
			if got.MainPID != 0 {
				var p dbus.ObjectPath
				r.mustManager(t, "GetUnitByPID", []any{got.MainPID}, &p)
				if p != sdbus.UnitPath("app.service") {
					t.Errorf("GetUnitByPID(%d) = %s, want app.service's", got.MainPID, p)
				}
			}
			if a, _ := s.Unit("system.slice"); tt.want.Active == "active" && a.ActiveState != "active" {
				t.Errorf("system.slice is %s, want active with its member", a.ActiveState)
			}
		})
	}
}

// TestSetUnitStateSignals: a subscriber sees a SetUnitState change as it
// sees the model's own: the Unit's and the Service's PropertiesChanged.
func TestSetUnitStateSignals(t *testing.T) {
	s := fakebus.New(t, fakebus.WithUnitFile(app("app.service")))
	if res := startResult(t, s.Conn(t), "app.service"); res != sdbus.JobDone {
		t.Fatalf("start: %s", res)
	}
	r := rawBus(t, s)
	r.match(t, dbus.WithMatchObjectPath(sdbus.UnitPath("app.service")))
	r.mustManager(t, "Subscribe", nil)
	if err := s.SetUnitState("app.service", fakebus.UnitState{ActiveState: "failed", Result: "signal", ExitStatus: 9}); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, sig := range r.until(t, func(sig *dbus.Signal) bool {
		return sig.Name == "org.freedesktop.DBus.Properties.PropertiesChanged" && sig.Body[0] == "org.freedesktop.systemd1.Service"
	}) {
		if sig.Name != "org.freedesktop.DBus.Properties.PropertiesChanged" {
			continue
		}
		changed := sig.Body[1].(map[string]dbus.Variant)
		var kv []string
		for _, k := range []string{"ActiveState", "SubState", "Result"} {
			if v, ok := changed[k]; ok {
				kv = append(kv, k+"="+v.Value().(string))
			}
		}
		got = append(got, sig.Body[0].(string)+" "+strings.Join(kv, " "))
	}
	want := []string{
		"org.freedesktop.systemd1.Unit ActiveState=failed SubState=failed",
		"org.freedesktop.systemd1.Service Result=signal",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("signals (-want +got):\n%s", diff)
	}
}

// TestSetUnitStateModel: what follows a change in the model follows a
// SetUnitState: units bound to a unit that fails are stopped, a unit
// nothing keeps is collected, a slice goes active with its member, a
// scope's processes are placed.
func TestSetUnitStateModel(t *testing.T) {
	ctx := context.Background()
	t.Run("BindsTo", func(t *testing.T) {
		bound := app("bound.service")
		bound.Properties = append(bound.Properties, sdbus.PropRaw("BindsTo", []string{"app.service"}))
		s := fakebus.New(t, fakebus.WithUnitFile(app("app.service")), fakebus.WithUnitFile(bound))
		if res := startResult(t, s.Conn(t), "bound.service"); res != sdbus.JobDone {
			t.Fatalf("start: %s", res)
		}
		if err := s.SetUnitState("app.service", fakebus.UnitState{ActiveState: "failed"}); err != nil {
			t.Fatal(err)
		}
		if err := s.WaitIdle(ctx); err != nil {
			t.Fatal(err)
		}
		if got := statesOf(s, "bound.service"); got != (unitStates{}) {
			t.Errorf("bound.service after app.service failed: %v, want stopped and collected", got)
		}
	})
	t.Run("collected", func(t *testing.T) {
		f := app("app.service")
		f.Properties = append(f.Properties, sdbus.PropCollectMode(sdbus.CollectInactiveOrFailed))
		s := fakebus.New(t, fakebus.WithUnitFile(f))
		for _, st := range []fakebus.UnitState{{ActiveState: "active"}, {ActiveState: "failed"}} {
			if err := s.SetUnitState("app.service", st); err != nil {
				t.Fatal(err)
			}
		}
		if got := statesOf(s, "app.service"); got != (unitStates{}) {
			t.Errorf("failed with CollectMode inactive-or-failed: %v, want collected", got)
		}
		// Loaded for the call and left inactive: collected at once.
		if err := s.SetUnitState("app.service", fakebus.UnitState{ActiveState: "inactive"}); err != nil {
			t.Fatal(err)
		}
		if got := statesOf(s, "app.service"); got != (unitStates{}) {
			t.Errorf("loaded for an inactive state: %v, want collected", got)
		}
	})
	t.Run("failed, reset", func(t *testing.T) {
		s := fakebus.New(t, fakebus.WithUnitFile(app("app.service")))
		if err := s.SetUnitState("app.service", fakebus.UnitState{ActiveState: "failed", Result: "timeout"}); err != nil {
			t.Fatal(err)
		}
		if got, want := statesOf(s, "app.service"), (unitStates{"failed", "failed", "timeout"}); got != want {
			t.Errorf("failed: %v, want %v", got, want)
		}
		if err := s.SetUnitState("app.service", fakebus.UnitState{ActiveState: "inactive"}); err != nil {
			t.Fatal(err)
		}
		if got := statesOf(s, "app.service"); got != (unitStates{}) {
			t.Errorf("inactive after failed: %v, want reset and collected", got)
		}
	})
	t.Run("slices", func(t *testing.T) {
		f := app("app.service")
		f.Properties = append(f.Properties, sdbus.PropSlice("a-b.slice"))
		s := fakebus.New(t, fakebus.WithUnitFile(f))
		if err := s.SetUnitState("app.service", fakebus.UnitState{ActiveState: "active"}); err != nil {
			t.Fatal(err)
		}
		for _, n := range []string{"a.slice", "a-b.slice"} {
			if got, want := statesOf(s, n), (unitStates{"active", "active", ""}); got != want {
				t.Errorf("%s: %v, want %v", n, got, want)
			}
		}
		// A slice that stops stops its members.
		if err := s.SetUnitState("a.slice", fakebus.UnitState{ActiveState: "inactive"}); err != nil {
			t.Fatal(err)
		}
		if err := s.WaitIdle(ctx); err != nil {
			t.Fatal(err)
		}
		if got := statesOf(s, "app.service"); got != (unitStates{}) {
			t.Errorf("app.service after its slice's parent stopped: %v, want stopped and collected", got)
		}
	})
	t.Run("scope", func(t *testing.T) {
		s := fakebus.New(t, fakebus.WithMadeUpPIDs())
		c := s.Conn(t)
		j, err := c.StartTransientUnit(ctx, "run-1.scope", sdbus.ModeReplace, []sdbus.Property{sdbus.PropPIDs(4242)})
		if err != nil {
			t.Fatal(err)
		}
		if res, err := j.Wait(ctx); res != sdbus.JobDone {
			t.Fatal(res, err)
		}
		if err := s.SetUnitState("run-1.scope", fakebus.UnitState{ActiveState: "failed", Result: "oom-kill"}); err != nil {
			t.Fatal(err)
		}
		if got, want := statesOf(s, "run-1.scope"), (unitStates{"failed", "failed", "oom-kill"}); got != want {
			t.Errorf("failed: %v, want %v", got, want)
		}
		if err := s.SetUnitState("run-1.scope", fakebus.UnitState{ActiveState: "active", PIDs: []uint32{uint32(os.Getpid()), 4343}}); err != nil {
			t.Fatal(err)
		}
		u, _ := s.Unit("run-1.scope")
		got := unitStates{u.ActiveState, u.SubState, u.Result}
		if want := (unitStates{"active", "running", "success"}); got != want {
			t.Errorf("active again: %v, want %v", got, want)
		}
		if diff := cmp.Diff([]uint32{4242, uint32(os.Getpid()), 4343}, u.PIDs); diff != "" {
			t.Errorf("PIDs (-want +got):\n%s", diff)
		}
	})
	t.Run("timer", func(t *testing.T) {
		timer := fakebus.UnitFile{Name: "app.timer", Properties: []sdbus.Property{sdbus.PropRaw("OnCalendar", "daily")}}
		s := fakebus.New(t, fakebus.WithUnitFile(app("app.service")), fakebus.WithUnitFile(timer))
		if err := s.SetUnitState("app.timer", fakebus.UnitState{ActiveState: "active"}); err != nil {
			t.Fatal(err)
		}
		if got, want := statesOf(s, "app.timer"), (unitStates{"active", "waiting", ""}); got != want {
			t.Errorf("timer: %v, want %v", got, want)
		}
	})
}

// TestSetUnitStateRefused: what SetUnitState refuses, and that nothing
// changes then.
func TestSetUnitStateRefused(t *testing.T) {
	oneshot := app("one.service")
	oneshot.Properties = append(oneshot.Properties, sdbus.PropType(sdbus.ServiceOneshot))
	s := fakebus.New(t, fakebus.WithUnitFile(app("app.service")), fakebus.WithUnitFile(oneshot),
		fakebus.WithUnitFile(fakebus.UnitFile{Name: "masked.service", Masked: true}),
		fakebus.WithUnitFile(fakebus.UnitFile{Name: "lonely.timer", Properties: []sdbus.Property{sdbus.PropRaw("OnCalendar", "daily")}}),
		fakebus.WithUnitFile(app("slow.service")))
	if err := s.Script("slow.service", fakebus.Script{Delay: 1 << 40}); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	j, err := s.Conn(t).StartUnit(ctx, "slow.service", sdbus.ModeReplace)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SetUnitState("app.service", fakebus.UnitState{ActiveState: "active"}); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, unit string
		st         fakebus.UnitState
		want       string
	}{
		{"activating", "app.service", fakebus.UnitState{ActiveState: "activating"},
			`active state "activating": want active, inactive or failed (activating, deactivating and reloading last while a job runs: script its Delay)`},
		{"sub-state", "app.service", fakebus.UnitState{ActiveState: "active", SubState: "listening"},
			`sub-state "listening" of a service that is active: want "running" or "exited"`},
		{"inactive sub-state", "app.service", fakebus.UnitState{ActiveState: "inactive", SubState: "failed"},
			`sub-state "failed" of a service that is inactive: want "dead"`},
		{"result of an active unit", "app.service", fakebus.UnitState{ActiveState: "active", Result: "signal"},
			`result "signal" goes with failed: an active unit's Result is success`},
		{"scope result of a service", "app.service", fakebus.UnitState{ActiveState: "failed", Result: "success"},
			`result "success" of a failed service: want "exit-code", "protocol", "timeout", "signal", "core-dump", "watchdog", "start-limit-hit", "resources", "oom-kill" or "exec-condition"`},
		{"failed target", "multi-user.target", fakebus.UnitState{ActiveState: "failed"},
			"a target cannot be failed in the fake (it models the failures of services, scopes and timers)"},
		{"perpetual", "-.slice", fakebus.UnitState{ActiveState: "inactive"}, "unit -.slice is perpetual: it stays active"},
		{"job", "slow.service", fakebus.UnitState{ActiveState: "active"},
			"unit slow.service has job " + strings.TrimPrefix(string(j.Path()), "/org/freedesktop/systemd1/job/") + " (start): end it first (FinishJob) or wait for it"},
		{"device", "dev-sda.device", fakebus.UnitState{ActiveState: "active"},
			"device units cannot be active: the fake plays a system without them (a start job ends unsupported)"},
		{"exit status of an active service", "app.service", fakebus.UnitState{ActiveState: "active", ExitStatus: 1},
			"an exit status goes with a failed service"},
		{"SIGTERM of a simple service", "app.service", fakebus.UnitState{ActiveState: "failed", Result: "signal", ExitStatus: 15},
			"exit status 15 with unit result signal: SIGTERM ends a service's main process cleanly unless it is Type=oneshot"},
		{"exit status with timeout", "app.service", fakebus.UnitState{ActiveState: "failed", Result: "timeout", ExitStatus: 15},
			"exit status 15 with unit result timeout: only exit-code, signal and core-dump take one"},
		{"main PID exited", "one.service", fakebus.UnitState{ActiveState: "active", SubState: "exited", MainPID: 7},
			"a main PID goes with a service that is active, running"},
		{"main PID of a oneshot by default", "one.service", fakebus.UnitState{ActiveState: "active", MainPID: 7},
			"a main PID goes with a service that is active, running"},
		{"main PID 1", "app.service", fakebus.UnitState{ActiveState: "active", MainPID: 1}, "main PID 1 is the manager's"},
		{"PIDs of an inactive unit", "one.service", fakebus.UnitState{ActiveState: "inactive", PIDs: []uint32{7}},
			"PIDs go with an active scope or service"},
		{"PID 1", "app.service", fakebus.UnitState{ActiveState: "active", PIDs: []uint32{1}},
			"org.freedesktop.DBus.Error.InvalidArgs: Process 1 is a manager process, refusing."},
		{"timer without its unit", "lonely.timer", fakebus.UnitState{ActiveState: "active"},
			"timer lonely.timer cannot be active: the unit it triggers, lonely.service, is not loaded"},
		{"masked", "masked.service", fakebus.UnitState{ActiveState: "active"},
			"org.freedesktop.systemd1.UnitMasked: Unit masked.service is masked."},
		{"not found", "none.service", fakebus.UnitState{ActiveState: "active"},
			"org.freedesktop.systemd1.NoSuchUnit: Unit none.service not found."},
		{"invalid name", "none", fakebus.UnitState{ActiveState: "active"},
			"org.freedesktop.DBus.Error.InvalidArgs: Unit name none is not valid."},
	} {
		t.Run(tt.name, func(t *testing.T) {
			before := statesOf(s, tt.unit)
			err := s.SetUnitState(tt.unit, tt.st)
			if got, want := errText(err), "fakebus: SetUnitState "+tt.unit+": "+tt.want; got != want {
				t.Errorf("error\n got %s\nwant %s", got, want)
			}
			if got := statesOf(s, tt.unit); got != before {
				t.Errorf("states %v after the error, want %v as before", got, before)
			}
		})
	}
}

// TestSetUnitProperties: the Server's SetUnitProperties sets what a
// client's SetUnitProperties sets, and refuses what it refuses.
func TestSetUnitProperties(t *testing.T) {
	s := fakebus.New(t, fakebus.WithUnitFile(app("app.service")), fakebus.WithUnitFile(fakebus.UnitFile{Name: "masked.service", Masked: true}))
	r := rawBus(t, s)
	for _, tt := range []struct {
		name  string
		unit  string
		props []sdbus.Property
		want  string
	}{
		{"description and memory", "app.service", []sdbus.Property{sdbus.PropDescription("the app"), sdbus.PropMemoryMax(1 << 20)}, "<nil>"},
		{"a slice no file defines", "a-b.slice", []sdbus.Property{sdbus.PropCPUWeight(200)}, "<nil>"},
		{"not live", "app.service", []sdbus.Property{sdbus.PropType(sdbus.ServiceOneshot)},
			"fakebus: SetUnitProperties app.service: org.freedesktop.DBus.Error.PropertyReadOnly: Cannot set property Type, or unknown property."},
		{"client-side check", "app.service", []sdbus.Property{sdbus.PropCPUWeight(10001)},
			"fakebus: SetUnitProperties app.service: property CPUWeight: 10001 out of range 1-10000"},
		{"masked", "masked.service", []sdbus.Property{sdbus.PropDescription("x")},
			"fakebus: SetUnitProperties masked.service: org.freedesktop.systemd1.UnitMasked: Unit masked.service is masked."},
		{"not found", "none.service", []sdbus.Property{sdbus.PropDescription("x")},
			"fakebus: SetUnitProperties none.service: org.freedesktop.systemd1.NoSuchUnit: Unit none.service not found."},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := errText(s.SetUnitProperties(tt.unit, tt.props...)); got != tt.want {
				t.Errorf("error\n got %s\nwant %s", got, tt.want)
			}
		})
	}
	// Kept in the control drop-in: the unit loaded again has them.
	for _, p := range []struct {
		unit, prop string
		want       any
	}{
		{"app.service", "org.freedesktop.systemd1.Unit.Description", "the app"},
		{"app.service", "org.freedesktop.systemd1.Service.MemoryMax", uint64(1 << 20)},
		{"app.service", "org.freedesktop.systemd1.Service.CPUWeight", ^uint64(0)},
		{"a-b.slice", "org.freedesktop.systemd1.Slice.CPUWeight", uint64(200)},
	} {
		v, err := r.Object(systemd1, sdbus.UnitPath(p.unit)).GetProperty(p.prop)
		if err != nil || v.Value() != p.want {
			t.Errorf("%s %s = %v, %v; want %v", p.unit, p.prop, v, err, p.want)
		}
	}
}
