package fakebus

import (
	"testing"

	"github.com/sdbus-go/sdbus"
)

// TestRunQueueNotStarved: a caller that keeps waiting for the manager
// since before a job was queued holds the job back maxPasses times, no
// more.
func TestRunQueueNotStarved(t *testing.T) {
	m, j := stopBehindWaiter(t, sdbus.PropExecStart([]string{"/bin/sleep", "infinity"}, false))
	for i := 1; i <= maxPasses; i++ {
		m.lock()
		ran := j.finished
		m.unlock()
		if ran {
			t.Fatalf("the job ran after %d passes, want %d", i, maxPasses)
		}
	}
	m.lock()
	defer m.unlock()
	if !j.finished {
		t.Fatalf("the job still waits after %d passes", maxPasses+1)
	}
}

// stopBehindWaiter starts a fake with rq.service active, of props, and
// queues its stop while a caller waits for the manager since before the
// job was queued (ticket 0), until the test ends.
func stopBehindWaiter(t *testing.T, props ...sdbus.Property) (*manager, *job) {
	t.Helper()
	s, err := Start(WithUnitFile(UnitFile{Name: "rq.service", Active: true, Properties: props}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	m := s.m
	m.lock()
	j, _, err := m.installLocked(m.loadLocked("rq.service"), jobStop, sdbus.ModeReplace, nil)
	if err != nil {
		m.unlock()
		t.Fatal(err)
	}
	m.maybeRunLocked(j)
	m.waitMu.Lock()
	m.waiting[0] = true
	m.waitMu.Unlock()
	m.unlock()
	t.Cleanup(func() {
		m.waitMu.Lock()
		delete(m.waiting, 0)
		m.waitMu.Unlock()
	})
	return m, j
}

// TestRunQueueGoesOnForOnSuccess: the start a stop job's OnSuccess= queues
// runs in the pass that ran the stop, before a caller that waits for the
// manager, so the stopped unit is collected at the end of that pass (as
// systemd's GC queue, run after its run queue, finds its OnSuccess= unit
// without a job). Without it, the caller went first now and then and the
// unit stayed loaded (conformance case OnFailureStarts/stopped-at-once).
func TestRunQueueGoesOnForOnSuccess(t *testing.T) {
	m, j := stopBehindWaiter(t, sdbus.PropExecStart([]string{"/bin/true"}, false),
		sdbus.PropRaw("RemainAfterExit", true), sdbus.PropRaw("OnSuccess", []string{"rq-handler.slice"}))
	for i := 0; i <= maxPasses; i++ {
		m.lock()
		ran := j.finished
		m.unlock()
		if ran {
			break
		}
	}
	m.lock()
	defer m.unlock()
	if !j.finished {
		t.Fatalf("the stop job still waits after %d passes", maxPasses+1)
	}
	if h := m.units["rq-handler.slice"]; h == nil || h.active != "active" {
		t.Errorf("rq-handler.slice is not active after the pass that stopped rq.service")
	}
	if u := j.unit; !u.gone {
		t.Errorf("rq.service is still loaded (%s/%s) after the pass that stopped it", u.active, u.sub)
	}
}
