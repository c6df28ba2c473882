package conformance

import (
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
