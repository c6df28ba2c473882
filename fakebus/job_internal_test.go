package fakebus

import (
	"testing"

	"github.com/sdbus-go/sdbus"
)

// TestEndedJobsLeaveNoTimeoutTimers: a job's JobTimeoutUSec= timer stops
// when the job ends, so a client that queues job after job on a unit with
// a long timeout does not make pending timers pile up.
func TestEndedJobsLeaveNoTimeoutTimers(t *testing.T) {
	s, err := Start(WithVersion("262"), WithUnitFile(UnitFile{Name: "jt.service", Properties: []sdbus.Property{
		sdbus.PropExecStart([]string{"/bin/sleep", "infinity"}, false),
		sdbus.PropRaw("JobTimeoutUSec", uint64(3600_000_000)),
	}}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	m := s.m
	const jobs = 50
	for i := 0; i < jobs; i++ {
		typ := jobStart
		if i%2 == 1 {
			typ = jobStop
		}
		m.lock()
		j, _, err := m.installLocked(m.loadLocked("jt.service"), typ, sdbus.ModeReplace, nil)
		if err != nil {
			m.unlock()
			t.Fatal(err)
		}
		m.maybeRunLocked(j)
		m.unlock() // runs the queue: the job ends
		m.lock()
		ended := j.finished
		m.unlock()
		if !ended {
			t.Fatalf("job %d (%s) did not end", i, typ)
		}
	}
	m.lock()
	defer m.unlock()
	if n := len(m.timers); n > 2 {
		t.Errorf("%d timers pending after %d ended jobs, want at most 2", n, jobs)
	}
}
