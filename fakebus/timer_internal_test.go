package fakebus

import (
	"context"
	"testing"
	"time"

	"github.com/sdbus-go/sdbus"
)

// TestRearmingLeavesNoTimers: what re-arms a pending elapse (a timer
// whose value is relative to its unit, computed anew at each of the
// unit's state changes; a RuntimeMaxUSec= armed at each activation)
// stops the arming it replaces, so that a client starting and stopping a
// unit does not pile up the fake's pending timers.
func TestRearmingLeavesNoTimers(t *testing.T) {
	type mono struct {
		Base string
		Usec uint64
	}
	hour := uint64(time.Hour / time.Microsecond)
	sleep := sdbus.PropExecStart([]string{"/bin/sleep", "infinity"}, false)
	noLimit := sdbus.PropRaw("StartLimitBurst", uint32(0)) // 40 starts in a row
	for _, tc := range []struct {
		name  string
		opts  []Option
		unit  string // started if not "", then far.service started and stopped
		props []sdbus.Property
		aux   []sdbus.AuxUnit
	}{
		{"timer relative to its unit", nil, "far.timer",
			[]sdbus.Property{sdbus.PropRaw("TimersMonotonic", []mono{{"OnActiveSec", hour}, {"OnUnitActiveSec", hour}, {"OnUnitInactiveSec", hour}})},
			[]sdbus.AuxUnit{{Name: "far.service", Properties: []sdbus.Property{sleep, noLimit}}}},
		{"runtime maximum", []Option{WithUnitFile(UnitFile{Name: "far.service", Properties: []sdbus.Property{
			sleep, noLimit, sdbus.PropRaw("RuntimeMaxUSec", hour),
		}})}, "", nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, c, ctx, wait := startForTimers(t, tc.opts...)
			if tc.unit != "" {
				wait(c.StartTransientUnit(ctx, tc.unit, sdbus.ModeReplace, tc.props, tc.aux...))
			}
			const cycles = 40
			for i := 0; i < cycles; i++ {
				wait(c.StartUnit(ctx, "far.service", sdbus.ModeReplace))
				wait(c.StopUnit(ctx, "far.service", sdbus.ModeReplace))
			}
			// One arming per unit at most, and the fake's own.
			if pending := pendingTimers(s); pending > 3 {
				t.Errorf("%d timers pending after %d starts and stops, want at most 3", pending, cycles)
			}
		})
	}
}

// TestEndedProcessesLeaveNoTimers: the end the fake plans for a process
// that takes time (a main process, a control process, a reload's or a
// stop's timeout) is dropped when the process is killed first, so that
// a client starting and stopping such a service does not pile up the
// fake's pending timers.
func TestEndedProcessesLeaveNoTimers(t *testing.T) {
	long := []string{"/bin/sleep", "3600"}
	type execCommand struct { // a(sasb)
		Path          string
		Argv          []string
		IgnoreFailure bool
	}
	run := func(name string, argv []string) sdbus.Property {
		return sdbus.PropRaw(name, []execCommand{{argv[0], argv, false}})
	}
	for _, tc := range []struct {
		name   string
		props  []sdbus.Property
		reload bool // a reload runs when the stop comes
		wait   bool // the start job ends before the stop
	}{
		{"main process", nil, false, true},
		{"ExecStartPost=", []sdbus.Property{run("ExecStartPost", long)}, false, false},
		{"ExecReload=", []sdbus.Property{run("ExecReload", long)}, true, true},
		{"ExecStop= past its timeout", []sdbus.Property{run("ExecStop", long), sdbus.PropRaw("TimeoutStopUSec", uint64(1000))}, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			main := []string{"/bin/sleep", "infinity"}
			if tc.props == nil {
				main = long
			}
			props := append([]sdbus.Property{
				sdbus.PropExecStart(main, false),
				sdbus.PropRaw("StartLimitBurst", uint32(0)),
			}, tc.props...)
			s, c, ctx, wait := startForTimers(t, WithUnitFile(UnitFile{Name: "far.service", Properties: props}))
			const cycles = 40
			for i := 0; i < cycles; i++ {
				j, err := c.StartUnit(ctx, "far.service", sdbus.ModeReplace)
				if tc.wait || err != nil {
					wait(j, err)
				}
				if tc.reload {
					if _, err := c.ReloadUnit(ctx, "far.service", sdbus.ModeReplace); err != nil {
						t.Fatal(err)
					}
				}
				wait(c.StopUnit(ctx, "far.service", sdbus.ModeReplace))
			}
			if pending := pendingTimers(s); pending > 2 {
				t.Errorf("%d timers pending after %d starts and stops, want at most 2", pending, cycles)
			}
		})
	}
}

// startForTimers starts a fake with opts for a test of its pending
// timers, and returns it, a connection to it, the test's context, and
// wait, which fails the test unless a job queued ends done.
func startForTimers(t *testing.T, opts ...Option) (*Server, *sdbus.Conn, context.Context, func(*sdbus.Job, error)) {
	t.Helper()
	s, err := Start(opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	wait := func(j *sdbus.Job, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		if r, err := j.Wait(ctx); err != nil || r != sdbus.JobDone {
			t.Fatalf("job: %v, %v", r, err)
		}
	}
	return s, s.Conn(t), ctx, wait
}

// pendingTimers is how many timers s's manager has armed.
func pendingTimers(s *Server) int {
	s.m.lock()
	defer s.m.unlock()
	return len(s.m.timers)
}
