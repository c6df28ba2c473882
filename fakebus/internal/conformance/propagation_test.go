package conformance

import (
	"slices"
	"strings"
	"testing"

	"github.com/godbus/dbus/v5"
	"github.com/google/go-cmp/cmp"
	"github.com/sdbus-go/sdbus"
)

// propagationSet is a service and the services around it: req
// (Requires=), bind (BindsTo=), part (PartOf=) and wants (Wants=) on it,
// each ordered after it, and req2 with Requires= on req.
type propagationSet struct {
	roles map[string]string // unit name -> role
	names map[string]string // role -> unit name
}

func newPropagationSet(t *testing.T, e *env) propagationSet {
	t.Helper()
	s := propagationSet{roles: map[string]string{}, names: map[string]string{}}
	for _, role := range []string{"a", "req", "bind", "part", "wants", "req2"} {
		name := e.unit("prop"+role, "service")
		s.roles[name], s.names[role] = role, name
	}
	// Stopped in reverse: a dependent's cleanup never restarts what it
	// needs.
	for _, role := range []string{"a", "req", "bind", "part", "wants", "req2"} {
		cleanup(t, e, s.names[role])
	}
	a := s.names["a"]
	wait(t, e, start(t, e, e.c, a, sleeper()), sdbus.JobDone)
	for _, d := range []struct{ role, dep, on string }{
		{"req", "Requires", a}, {"bind", "BindsTo", a}, {"part", "PartOf", a}, {"wants", "Wants", a},
		{"req2", "Requires", s.names["req"]},
	} {
		props := sleeper(sdbus.PropRaw(d.dep, []string{d.on}), sdbus.PropRaw("After", []string{d.on}))
		wait(t, e, start(t, e, e.c, s.names[d.role], props), sdbus.JobDone)
	}
	return s
}

// mainPIDs returns the MainPID of every unit of the set, by role.
func (s propagationSet) mainPIDs(t *testing.T, e *env, raw *dbus.Conn) map[string]uint32 {
	t.Helper()
	out := map[string]uint32{}
	for role, name := range s.names {
		out[role] = unitProp(t, e, raw, name, "org.freedesktop.systemd1.Service", "MainPID").(uint32)
	}
	return out
}

// newSubscribedClient returns a raw client that called Subscribe: the
// jobs a transaction adds besides the requested one have no requester,
// so their signals go to the bus only while somebody is subscribed.
func newSubscribedClient(t *testing.T, e *env) *rawClient {
	t.Helper()
	r := newRawClient(t, e)
	if err := r.call("Subscribe").Err; err != nil {
		t.Fatal(err)
	}
	return r
}

// jobsOf calls method on the set's unit a and returns the result of every
// job the call queued on a unit of the set, by role, once all have ended
// (systemd announces every job of a transaction before any ends).
func (s propagationSet) jobsOf(t *testing.T, r *rawClient, method string) map[string]string {
	t.Helper()
	var anchor dbus.ObjectPath
	if err := r.call(method, s.names["a"], "replace").Store(&anchor); err != nil {
		t.Fatalf("%s %s: %v", method, s.names["a"], err)
	}
	got, open := map[string]string{}, map[dbus.ObjectPath]string{}
	anchorDone := false
	for !anchorDone || len(open) > 0 {
		select {
		case sig := <-r.sigs:
			if !strings.HasPrefix(sig.Name, "org.freedesktop.systemd1.Manager.Job") || len(sig.Body) < 3 {
				continue
			}
			path, _ := sig.Body[1].(dbus.ObjectPath)
			unit, _ := sig.Body[2].(string)
			role := s.roles[unit]
			switch {
			case role == "":
			case sig.Name == "org.freedesktop.systemd1.Manager.JobNew":
				open[path] = role
			case sig.Name == "org.freedesktop.systemd1.Manager.JobRemoved":
				if _, ok := open[path]; !ok {
					t.Errorf("JobRemoved of %s (%s) without JobNew", path, role)
				}
				delete(open, path)
				got[role] = sig.Body[3].(string)
				anchorDone = anchorDone || path == anchor
			}
		case <-r.e.ctx.Done():
			t.Fatalf("%s: jobs still open %v; ended %v", method, open, got)
		}
	}
	return got
}

// testRestartPropagation: a restart of a unit, whichever method asks for
// it (RestartUnit, TryRestartUnit, ReloadOrRestartUnit and
// ReloadOrTryRestartUnit of a service without ExecReload=), restarts the
// active units that have Requires=, BindsTo= or PartOf= on it, and,
// transitively, those on them (try-restart jobs, ending done, each with
// JobNew and JobRemoved); Wants= does not propagate. A stop propagates
// along the same three. A try-restart of an inactive unit queues one job,
// for that unit only.
func testRestartPropagation(t *testing.T, e *env) {
	restarted := map[string]string{"a": "done", "req": "done", "bind": "done", "part": "done", "req2": "done"}
	for _, method := range []string{"RestartUnit", "TryRestartUnit", "ReloadOrRestartUnit", "ReloadOrTryRestartUnit"} {
		t.Run(method, func(t *testing.T) {
			s := newPropagationSet(t, e)
			r := newSubscribedClient(t, e)
			before := s.mainPIDs(t, e, r.conn)
			if diff := cmp.Diff(restarted, s.jobsOf(t, r, method)); diff != "" {
				t.Errorf("jobs by unit (-want +got):\n%s", diff)
			}
			after := s.mainPIDs(t, e, r.conn)
			var same []string
			for role, pid := range after {
				if pid == 0 || pid == before[role] {
					same = append(same, role)
				}
			}
			if diff := cmp.Diff([]string{"wants"}, same); diff != "" {
				t.Errorf("units not restarted (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("StopUnit", func(t *testing.T) {
		s := newPropagationSet(t, e)
		r := newSubscribedClient(t, e)
		if diff := cmp.Diff(restarted, s.jobsOf(t, r, "StopUnit")); diff != "" {
			t.Errorf("jobs by unit (-want +got):\n%s", diff)
		}
		if st := status(t, e, s.names["wants"]); !isActive(st) {
			t.Errorf("wants: %+v, want active", st)
		}
		// a stays loaded: wants, active, refers to it.
		r2 := newSubscribedClient(t, e)
		if diff := cmp.Diff(map[string]string{"a": "done"}, s.jobsOf(t, r2, "TryRestartUnit")); diff != "" {
			t.Errorf("TryRestartUnit of the inactive unit: jobs by unit (-want +got):\n%s", diff)
		}
		if got := unitProp(t, e, r2.conn, s.names["a"], "org.freedesktop.systemd1.Unit", "ActiveState"); !strings.EqualFold(got.(string), "inactive") {
			t.Errorf("a after TryRestartUnit: %v, want inactive", got)
		}
	})
}

// testRestartStopsFirst: a restart is a stop job until its unit stopped,
// then a start job ordered as a start (job_compare puts JOB_RESTART with
// the stops; job_finish_and_invalidate patches it into JOB_START). A
// restart of a unit ordered after dep, whose start job runs on while its
// ExecStartPre= sleeps, stops the unit at once, and its job waits as a
// start for dep's: ListJobs lists it as a start job, waiting. Once dep's
// job ends (canceled by a stop) it starts the unit and ends done.
func testRestartStopsFirst(t *testing.T, e *env) {
	dep := e.unit("restartorder-dep", "service")
	cleanup(t, e, dep)
	name := e.unit("restartorder", "service")
	cleanup(t, e, name)
	wait(t, e, start(t, e, e.c, name, sleeper(sdbus.PropAfter(dep))), sdbus.JobDone)
	pre := sdbus.Property{Name: "ExecStartPre", Value: dbus.MakeVariant([]execCommand{{"/bin/sleep", []string{"/bin/sleep", "3600"}, false}})}
	depJob := start(t, e, e.c, dep, sleeper(pre))
	j, err := e.c.RestartUnit(e.ctx, name, sdbus.ModeReplace)
	if err != nil {
		t.Fatal(err)
	}
	settle(t, e, name, "stopped by its restart", func(s sdbus.UnitState) bool {
		return s.ActiveState == sdbus.StateInactive && s.JobID == j.ID()
	})
	jobs, err := e.c.ListJobs(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if i := slices.IndexFunc(jobs, func(s sdbus.JobStatus) bool { return s.ID == j.ID() }); i < 0 || jobs[i].JobType != "start" || jobs[i].State != "waiting" {
		t.Errorf("the restart job %d once %s stopped: %+v; want a start job, waiting", j.ID(), name, jobs)
	}
	stop(t, e, e.c, dep)
	wait(t, e, depJob, sdbus.JobCanceled)
	wait(t, e, j, sdbus.JobDone)
	if st := status(t, e, name); st.ActiveState != sdbus.StateActive {
		t.Errorf("%s after its restart: %s; want active", name, st.ActiveState)
	}
}

// testJobOrder: a job waits for another only when its unit is ordered
// after the other's. dep's start job runs as long as its ExecStartPre=
// sleeps. A unit that wants or requires dep without After= starts beside
// it (its job ends done at once); one ordered after dep (After=, or dep's
// Before=) waits, GetJobBefore names dep's job, until dep's job ends (here
// canceled by dep's stop), and then starts; mode ignore-dependencies,
// merged into such a waiting job, lets it run at once (systemd's
// job_is_runnable; 252 seed 110092 of the differential tester).
func testJobOrder(t *testing.T, e *env) {
	dep := e.unit("order-dep", "service")
	cleanup(t, e, dep)
	pre := sdbus.Property{Name: "ExecStartPre", Value: dbus.MakeVariant([]execCommand{{"/bin/sleep", []string{"/bin/sleep", "3600"}, false}})}
	depJob := start(t, e, e.c, dep, sleeper(pre))
	for _, tc := range []struct {
		name  string
		props []sdbus.Property
	}{
		{"wants", []sdbus.Property{sdbus.PropWants(dep)}},
		{"requires", []sdbus.Property{sdbus.PropRequires(dep)}},
	} {
		name := e.unit("order-"+tc.name, "service")
		cleanup(t, e, name)
		wait(t, e, start(t, e, e.c, name, sleeper(tc.props...)), sdbus.JobDone)
	}
	if st := status(t, e, dep); st.JobID != depJob.ID() {
		t.Fatalf("%s: job %d, want its start job %d still running", dep, st.JobID, depJob.ID())
	}
	after := e.unit("order-after", "service")
	cleanup(t, e, after)
	afterJob := start(t, e, e.c, after, sleeper(sdbus.PropAfter(dep)))
	r := newRawClient(t, e)
	var before []struct {
		ID                uint32
		Unit, Type, State string
		JobPath, UnitPath dbus.ObjectPath
	}
	if err := r.call("GetJobBefore", afterJob.ID()).Store(&before); err != nil {
		t.Fatal(err)
	}
	if len(before) != 1 || before[0].ID != depJob.ID() {
		t.Errorf("GetJobBefore(%s's start) = %+v, want %s's start job %d", after, before, dep, depJob.ID())
	}
	jobs, err := e.c.ListJobs(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if i := slices.IndexFunc(jobs, func(j sdbus.JobStatus) bool { return j.ID == afterJob.ID() }); i < 0 || jobs[i].State != "waiting" {
		t.Errorf("%s's start job %d is not waiting: jobs %+v", after, afterJob.ID(), jobs)
	}
	stop(t, e, e.c, dep)
	wait(t, e, depJob, sdbus.JobCanceled)
	wait(t, e, afterJob, sdbus.JobDone)

	// Another unit's Before= holds a start back the same way, until a
	// start of the same unit in mode ignore-dependencies lets the job
	// run.
	dep = e.unit("order-dep2", "service")
	cleanup(t, e, dep)
	first := e.unit("order-first", "service")
	cleanup(t, e, first)
	firstJob := start(t, e, e.c, first, sleeper(pre, sdbus.PropBefore(dep)))
	depJob = start(t, e, e.c, dep, sleeper())
	if err := r.call("GetJobBefore", depJob.ID()).Store(&before); err != nil {
		t.Fatal(err)
	}
	if len(before) != 1 || before[0].ID != firstJob.ID() {
		t.Errorf("GetJobBefore(%s's start) = %+v, want %s's start job %d", dep, before, first, firstJob.ID())
	}
	j, err := e.c.StartUnit(e.ctx, dep, sdbus.ModeIgnoreDependencies)
	if err != nil {
		t.Fatal(err)
	}
	if j.ID() != depJob.ID() {
		t.Errorf("StartUnit in mode ignore-dependencies: job %d, want the waiting job %d", j.ID(), depJob.ID())
	}
	wait(t, e, depJob, sdbus.JobDone)
	if st := status(t, e, first); st.JobID != firstJob.ID() {
		t.Errorf("%s: job %d, want its start job %d still running", first, st.JobID, firstJob.ID())
	}
}
