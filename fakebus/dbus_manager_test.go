package fakebus_test

import (
	"encoding/hex"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/google/go-cmp/cmp"
	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus"
)

// TestManagerMethodAnswers: the answers of the Manager methods beyond jobs
// and unit files, as error names ("" for success).
func TestManagerMethodAnswers(t *testing.T) {
	s := fakebus.New(t)
	c := s.Conn(t)
	ctx := ctxFor(t)
	j, err := c.StartTransientUnit(ctx, "run.service", sdbus.ModeReplace, sleeper())
	runJob(ctx, t, j, err)
	r := rawBus(t, s)
	const (
		noSuchUnit = "org.freedesktop.systemd1.NoSuchUnit"
		invalid    = "org.freedesktop.DBus.Error.InvalidArgs"
		denied     = "org.freedesktop.DBus.Error.AccessDenied"
	)
	var path dbus.ObjectPath
	var rows []struct {
		Cgroup  string
		PID     uint32
		Cmdline string
	}
	var jobs []struct {
		ID                uint32
		Unit, Type, State string
		JobPath, UnitPath dbus.ObjectPath
	}
	var dump string
	for _, tc := range []struct {
		method string
		args   []any
		out    []any
		want   string
	}{
		{"GetUnitByInvocationID", []any{make([]byte, 16)}, []any{&path}, "org.freedesktop.systemd1.NoUnitForInvocationID"},
		{"GetUnitByInvocationID", []any{[]byte{1}}, []any{&path}, invalid},
		{"GetUnitByControlGroup", []any{"/system.slice/run.service/payload"}, []any{&path}, ""},
		{"GetUnitByControlGroup", []any{"/nowhere.slice"}, []any{&path}, noSuchUnit},
		{"GetUnitProcesses", []any{"run.service"}, []any{&rows}, ""},
		{"GetUnitProcesses", []any{"none.service"}, []any{&rows}, noSuchUnit},
		{"UnrefUnit", []any{"run.service"}, nil, "org.freedesktop.systemd1.NotReferenced"},
		{"RefUnit", []any{"run.service"}, nil, ""},
		{"UnrefUnit", []any{"run.service"}, nil, ""},
		{"GetJobAfter", []any{uint32(99)}, []any{&jobs}, "org.freedesktop.systemd1.NoSuchJob"},
		{"GetJobBefore", []any{uint32(99)}, []any{&jobs}, "org.freedesktop.systemd1.NoSuchJob"},
		{"StartUnitReplace", []any{"run.service", "x.slice", "replace"}, []any{&path}, "org.freedesktop.systemd1.NoSuchJob"},
		{"AbandonScope", []any{"run.service"}, nil, invalid},
		{"SetEnvironment", []any{[]string{"A=1"}}, nil, ""},
		{"SetEnvironment", []any{[]string{"A"}}, nil, invalid},
		{"UnsetEnvironment", []any{[]string{"A"}}, nil, ""},
		{"ClearJobs", nil, nil, ""},
		{"Dump", nil, []any{&dump}, ""},
		{"EnableUnitFilesWithFlags", []any{[]string{"/nowhere/x.service"}, uint64(8)}, nil, invalid},
		{"DisableUnitFilesWithFlags", []any{[]string{"x.service"}, uint64(1 << 10)}, nil, invalid},
		{"DisableUnitFilesWithFlags", []any{[]string{"x.service"}, uint64(1)}, []any{new([]struct{ Type, Filename, Destination string })}, noSuchUnit},
		{"Reboot", nil, nil, denied},
		{"PowerOff", nil, nil, denied},
		{"Halt", nil, nil, denied},
		{"KExec", nil, nil, denied},
		{"Exit", nil, nil, denied},
		{"SwitchRoot", []any{"/sysroot", ""}, nil, denied},
	} {
		t.Run(tc.method, func(t *testing.T) {
			if got := errName(r.manager(tc.method, tc.args, tc.out...)); got != tc.want {
				t.Errorf("%s%v: error %q, want %q", tc.method, tc.args, got, tc.want)
			}
		})
	}
	if path != sdbus.UnitPath("run.service") {
		t.Errorf("GetUnitByControlGroup found %s", path)
	}
	want := []string{"/system.slice/run.service", "/bin/sleep 400"}
	if len(rows) != 1 || cmp.Diff(want, []string{rows[0].Cgroup, rows[0].Cmdline}) != "" {
		t.Errorf("GetUnitProcesses = %+v", rows)
	}
}

// TestGetJobAfterBefore: a job waiting for another (ordered after it) is
// listed after it. dep.service's start lasts until the test finishes it,
// so both jobs are there to be asked about however slow the machine.
func TestGetJobAfterBefore(t *testing.T) {
	s := fakebus.New(t)
	if err := s.Script("dep.service", fakebus.Script{Delay: time.Hour}); err != nil {
		t.Fatal(err)
	}
	c := s.Conn(t)
	ctx := ctxFor(t)
	j, err := c.StartTransientUnit(ctx, "main.service", sdbus.ModeReplace, sleeper(sdbus.PropRequires("dep.service"), sdbus.PropAfter("dep.service")),
		sdbus.AuxUnit{Name: "dep.service", Properties: sleeper()})
	if err != nil {
		t.Fatal(err)
	}
	r := rawBus(t, s)
	var before []struct {
		ID                uint32
		Unit, Type, State string
		JobPath, UnitPath dbus.ObjectPath
	}
	r.mustManager(t, "GetJobBefore", []any{j.ID()}, &before)
	if len(before) != 1 || before[0].Unit != "dep.service" || before[0].Type != "start" {
		t.Errorf("GetJobBefore(main) = %+v, want dep.service's start job", before)
	}
	var after []struct {
		ID                uint32
		Unit, Type, State string
		JobPath, UnitPath dbus.ObjectPath
	}
	if len(before) != 1 {
		t.FailNow()
	}
	r.mustManager(t, "GetJobAfter", []any{before[0].ID}, &after)
	if len(after) != 1 || after[0].ID != j.ID() {
		t.Errorf("GetJobAfter(dep) = %+v, want main's job %d", after, j.ID())
	}
	if !s.FinishJob(before[0].ID, sdbus.JobDone) {
		t.Fatalf("dep.service's job %d is gone", before[0].ID)
	}
	if r := runJob(ctx, t, j, nil); r != sdbus.JobDone {
		t.Errorf("main.service's start: %s, want done", r)
	}
}

// TestUnitByInvocationID: GetUnitByInvocationID answers the unit's object
// by invocation ID, whose properties are the unit's, for IDs with a
// leading letter or (escaped) digit alike.
func TestUnitByInvocationID(t *testing.T) {
	s := fakebus.New(t)
	c := s.Conn(t)
	ctx := ctxFor(t)
	r := rawBus(t, s)
	seen := map[bool]bool{} // by whether the hex ID starts with a digit
	for i := 0; i < 64 && len(seen) < 2; i++ {
		name := fmt.Sprintf("u%d.service", i)
		j, err := c.StartTransientUnit(ctx, name, sdbus.ModeReplace, sleeper())
		runJob(ctx, t, j, err)
		v, err := r.Object(systemd1, sdbus.UnitPath(name)).GetProperty("org.freedesktop.systemd1.Unit.InvocationID")
		if err != nil {
			t.Fatal(err)
		}
		id := v.Value().([]byte)
		var p dbus.ObjectPath
		r.mustManager(t, "GetUnitByInvocationID", []any{id}, &p)
		if want := sdbus.UnitPath(hex.EncodeToString(id)); p != want {
			t.Errorf("%s: path %s, want %s", name, p, want)
		}
		got, err := r.Object(systemd1, p).GetProperty("org.freedesktop.systemd1.Unit.Id")
		if err != nil || got.Value() != name {
			t.Errorf("%s: Id at %s = %v, %v", name, p, got, err)
		}
		seen[hex.EncodeToString(id)[0] <= '9'] = true
	}
}

// TestJobOrder: a job waits for another only when its unit is ordered
// after the other's (After=, or the other's Before=), whoever queued the
// other; a requirement without an order runs beside the job that pulled
// it (systemd's job_is_runnable). dep.service's start lasts until the
// test finishes it.
func TestJobOrder(t *testing.T) {
	for _, tc := range []struct {
		name  string
		props []sdbus.Property
		waits bool
	}{
		{"Wants= alone", []sdbus.Property{sdbus.PropWants("dep.service")}, false},
		{"Requires= alone", []sdbus.Property{sdbus.PropRequires("dep.service")}, false},
		{"Requires= and After=", []sdbus.Property{sdbus.PropRequires("dep.service"), sdbus.PropAfter("dep.service")}, true},
		{"After= alone", []sdbus.Property{sdbus.PropAfter("dep.service")}, true},
		{"Before= alone", []sdbus.Property{sdbus.PropBefore("dep.service")}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := fakebus.New(t)
			if err := s.Script("dep.service", fakebus.Script{Delay: time.Hour}); err != nil {
				t.Fatal(err)
			}
			c := s.Conn(t)
			ctx := ctxFor(t)
			dep, err := c.StartTransientUnit(ctx, "dep.service", sdbus.ModeReplace, sleeper())
			if err != nil {
				t.Fatal(err)
			}
			j, err := c.StartTransientUnit(ctx, "main.service", sdbus.ModeReplace, sleeper(tc.props...))
			if err != nil {
				t.Fatal(err)
			}
			if !tc.waits {
				if r := runJob(ctx, t, j, nil); r != sdbus.JobDone {
					t.Errorf("main.service's start: %s, want done", r)
				}
				if !s.FinishJob(dep.ID(), sdbus.JobDone) {
					t.Errorf("dep.service's job %d ended before main.service's", dep.ID())
				}
				return
			}
			r := rawBus(t, s)
			var before []jobRow
			r.mustManager(t, "GetJobBefore", []any{j.ID()}, &before)
			if len(before) != 1 || before[0].ID != dep.ID() {
				t.Errorf("GetJobBefore(main) = %+v, want dep.service's job %d", before, dep.ID())
			}
			// Still queued after a call: not run (a job nothing holds
			// back runs before the manager reads the next call).
			var jobs []jobRow
			r.mustManager(t, "ListJobs", nil, &jobs)
			if !slices.ContainsFunc(jobs, func(l jobRow) bool {
				return l.ID == j.ID() && l.State == "waiting"
			}) {
				t.Fatalf("main.service's start is not waiting: jobs %+v", jobs)
			}
			if !s.FinishJob(dep.ID(), sdbus.JobDone) {
				t.Fatalf("dep.service's job %d is gone", dep.ID())
			}
			if r := runJob(ctx, t, j, nil); r != sdbus.JobDone {
				t.Errorf("main.service's start: %s, want done", r)
			}
		})
	}
}

// jobRow is a row of ListJobs, GetJobBefore and GetJobAfter.
type jobRow struct {
	ID                uint32
	Unit, Type, State string
	JobPath, UnitPath dbus.ObjectPath
}

// TestGetJobAfterOrderOnly: GetJobAfter lists the jobs ordered after the
// job, not one that merely requires its unit: main.service requires
// dep.service without an order and is ordered after other.service, whose
// start lasts until the test finishes it.
func TestGetJobAfterOrderOnly(t *testing.T) {
	s := fakebus.New(t)
	for _, name := range []string{"dep.service", "other.service"} {
		if err := s.Script(name, fakebus.Script{Delay: time.Hour}); err != nil {
			t.Fatal(err)
		}
	}
	c := s.Conn(t)
	ctx := ctxFor(t)
	other, err := c.StartTransientUnit(ctx, "other.service", sdbus.ModeReplace, sleeper())
	if err != nil {
		t.Fatal(err)
	}
	dep, err := c.StartTransientUnit(ctx, "dep.service", sdbus.ModeReplace, sleeper())
	if err != nil {
		t.Fatal(err)
	}
	j, err := c.StartTransientUnit(ctx, "main.service", sdbus.ModeReplace, sleeper(sdbus.PropRequires("dep.service"), sdbus.PropAfter("other.service")))
	if err != nil {
		t.Fatal(err)
	}
	r := rawBus(t, s)
	for _, tc := range []struct {
		name string
		id   uint32
		want []uint32
	}{
		{"dep.service", dep.ID(), nil},
		{"other.service", other.ID(), []uint32{j.ID()}},
	} {
		var after []jobRow
		r.mustManager(t, "GetJobAfter", []any{tc.id}, &after)
		var got []uint32
		for _, a := range after {
			got = append(got, a.ID)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("GetJobAfter(%s's start) (-want +got):\n%s", tc.name, diff)
		}
	}
	for _, id := range []uint32{dep.ID(), other.ID()} {
		s.FinishJob(id, sdbus.JobDone)
	}
	if r := runJob(ctx, t, j, nil); r != sdbus.JobDone {
		t.Errorf("main.service's start: %s, want done", r)
	}
}
