package fakebus

import (
	"testing"

	"github.com/sdbus-go/sdbus"
)

// TestRunQueueNotStarved: a caller that keeps waiting for the manager
// since before a job was queued holds the job back maxPasses times, no
// more.
func TestRunQueueNotStarved(t *testing.T) {
	s, err := Start(WithUnitFile(UnitFile{Name: "rq.service", Active: true, Properties: []sdbus.Property{
		sdbus.PropExecStart([]string{"/bin/sleep", "infinity"}, false),
	}}))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	m := s.m
	m.lock()
	j, _, err := m.installLocked(m.loadLocked("rq.service"), jobStop, sdbus.ModeReplace, nil)
	if err != nil {
		m.unlock()
		t.Fatal(err)
	}
	m.maybeRunLocked(j)
	// Ticket 0: a caller waiting since before the job was queued.
	m.waitMu.Lock()
	m.waiting[0] = true
	m.waitMu.Unlock()
	m.unlock()
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
	m.waitMu.Lock()
	delete(m.waiting, 0)
	m.waitMu.Unlock()
}

// TestRunQueueGoesOnForOnSuccess: the start a stop job's OnSuccess= queues
// runs in the pass that ran the stop, before a caller that waits for the
// manager, so the stopped unit is collected at the end of that pass (as
// systemd's GC queue, run after its run queue, finds its OnSuccess= unit
// without a job). Without it, the caller went first now and then and the
// unit stayed loaded (conformance case OnFailureStarts/stopped-at-once).
func TestRunQueueGoesOnForOnSuccess(t *testing.T) {
	s, err := Start(WithUnitFile(UnitFile{Name: "rq.service", Active: true, Properties: []sdbus.Property{
		sdbus.PropExecStart([]string{"/bin/true"}, false),
		sdbus.PropRaw("RemainAfterExit", true),
		sdbus.PropRaw("OnSuccess", []string{"rq-handler.slice"}),
	}}))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	m := s.m
	m.lock()
	u := m.loadLocked("rq.service")
	j, _, err := m.installLocked(u, jobStop, sdbus.ModeReplace, nil)
	if err != nil {
		m.unlock()
		t.Fatal(err)
	}
	m.maybeRunLocked(j)
	// Ticket 0: a caller waiting since before either job was queued.
	m.waitMu.Lock()
	m.waiting[0] = true
	m.waitMu.Unlock()
	m.unlock()
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
	m.waitMu.Lock()
	delete(m.waiting, 0)
	m.waitMu.Unlock()
	if !j.finished {
		t.Fatalf("the stop job still waits after %d passes", maxPasses+1)
	}
	if h := m.units["rq-handler.slice"]; h == nil || h.active != "active" {
		t.Errorf("rq-handler.slice is not active after the pass that stopped rq.service")
	}
	if !u.gone {
		t.Errorf("rq.service is still loaded (%s/%s) after the pass that stopped it", u.active, u.sub)
	}
}
