package conformance

import (
	"errors"
	"os/exec"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/google/go-cmp/cmp"
	"github.com/sdbus-go/sdbus"
)

// process is a real process of the test's own, to place in a unit.
type process struct {
	t   *testing.T
	cmd *exec.Cmd
}

func startProcess(t *testing.T) *process {
	t.Helper()
	cmd := exec.Command("/bin/sleep", "600")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &process{t: t, cmd: cmd}
	t.Cleanup(p.end)
	return p
}

func (p *process) pid() uint32 { return uint32(p.cmd.Process.Pid) }

// end kills the process and reaps it; again is a no-op.
func (p *process) end() {
	if p.cmd.ProcessState != nil {
		return
	}
	_ = p.cmd.Process.Kill()
	_ = p.cmd.Wait()
}

// testScopeEndsWithItsProcesses pins what a scope does when its processes
// end: nothing while one is left; when the last one has gone, it goes from
// active/running to inactive/dead with Result success (although they were
// killed), with no job, and is collected (UnitRemoved; measured on 252).
func testScopeEndsWithItsProcesses(t *testing.T, e *env) {
	name := e.unit("scope-ends", "scope")
	cleanup(t, e, name)
	a, b := startProcess(t), startProcess(t)
	r := newSubscribedClient(t, e)
	j := start(t, e, e.c, name, scope(a.pid(), sdbus.PropPIDs(b.pid())))
	wait(t, e, j, sdbus.JobDone)
	if res, _ := r.awaitRemoved(j.Path()); res != "done" {
		t.Fatalf("start job of %s: %s", name, res)
	}

	// The first process ends: the scope runs on with the other one.
	a.end()
	for {
		if u, err := e.c.UnitByPID(e.ctx, a.pid()); err != nil || u != name {
			break
		}
		select {
		case <-e.ctx.Done():
			t.Fatalf("PID %d still belongs to %s after it ended", a.pid(), name)
		case <-time.After(10 * time.Millisecond): // the fake learns of the end asynchronously
		}
	}
	st := status(t, e, name)
	if st.ActiveState != sdbus.StateActive || st.SubState != "running" {
		t.Fatalf("with one of its two processes left, %s is %s/%s; want active/running", name, st.ActiveState, st.SubState)
	}

	// The last one ends: the scope ends and is collected.
	b.end()
	path := sdbus.UnitPath(name)
	// What changes from here: the unit's state (a PropertiesChanged
	// that repeats the state, as systemd's for the start job's end, is
	// not a change), its Result, jobs for it, its removal.
	got, state := []string(nil), "ActiveState=active SubState=running"
	results := map[string]bool{}
	for done := false; !done; {
		select {
		case sig := <-r.sigs:
			switch {
			case sig.Name == "org.freedesktop.systemd1.Manager.UnitRemoved" && len(sig.Body) == 2 && sig.Body[0] == name:
				got = append(got, "UnitRemoved")
				done = true
			case (sig.Name == "org.freedesktop.systemd1.Manager.JobNew" || sig.Name == "org.freedesktop.systemd1.Manager.JobRemoved") &&
				len(sig.Body) >= 3 && sig.Body[2] == name:
				got = append(got, sig.Name)
			case sig.Name == "org.freedesktop.DBus.Properties.PropertiesChanged" && sig.Path == path && len(sig.Body) == 3:
				iface, _ := sig.Body[0].(string)
				changed, _ := sig.Body[1].(map[string]dbus.Variant)
				switch iface {
				case "org.freedesktop.systemd1.Unit":
					if _, ok := changed["ActiveState"]; !ok {
						break
					}
					if s := "ActiveState=" + variantString(changed["ActiveState"]) + " SubState=" + variantString(changed["SubState"]); s != state {
						got, state = append(got, s), s
					}
				case "org.freedesktop.systemd1.Scope":
					results[variantString(changed["Result"])] = true
				}
			}
		case <-e.ctx.Done():
			t.Fatalf("%s was not collected after its last process ended; signals: %v", name, got)
		}
	}
	want := []string{"ActiveState=inactive SubState=dead", "UnitRemoved"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("signals of %s after its last process ended (-want +got):\n%s", name, diff)
	}
	if diff := cmp.Diff(map[string]bool{"success": true}, results); diff != "" {
		t.Errorf("Result of %s in its PropertiesChanged (-want +got):\n%s", name, diff)
	}
	if _, err := e.c.GetUnit(e.ctx, name); !errors.Is(err, sdbus.ErrNoSuchUnit) {
		t.Errorf("GetUnit(%s) after it ended: %v; want ErrNoSuchUnit", name, err)
	}
}

func variantString(v dbus.Variant) string {
	s, _ := v.Value().(string)
	return s
}
