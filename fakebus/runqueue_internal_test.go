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
