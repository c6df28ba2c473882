package fakebus

import (
	"context"
	"os/exec"
	"testing"
	"time"

	"github.com/sdbus-go/sdbus"
)

func sleeper(t *testing.T) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("/bin/sleep", "600")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	return cmd
}

// TestProcWatchJoinedByClose: Close returns while a watched process still
// runs, with its watch ended (the package's goleak check finds none left).
func TestProcWatchJoinedByClose(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := Start()
	if err != nil {
		t.Fatal(err)
	}
	c, err := s.Dial(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	cmd := sleeper(t)
	j, err := c.StartTransientUnit(ctx, "watched.scope", sdbus.ModeReplace, []sdbus.Property{sdbus.PropPIDs(uint32(cmd.Process.Pid))})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := j.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	s.m.lock()
	watched := s.m.units["watched.scope"].watches[uint32(cmd.Process.Pid)] != nil
	s.m.unlock()
	if !watched {
		t.Fatalf("PID %d of the caller's child is not watched", cmd.Process.Pid)
	}
	closed := make(chan error, 1)
	go func() { closed <- s.Close() }()
	select {
	case err := <-closed:
		if err != nil {
			t.Fatal(err)
		}
	case <-ctx.Done():
		t.Fatal("Close did not return while a watched process runs")
	}
}

// TestProcWatchPolls: without a pidfd a watch asks whether its process
// exists: it reports the end of the process, or nothing once closed.
func TestProcWatchPolls(t *testing.T) {
	for _, tc := range []struct {
		name  string
		close bool
		want  bool
	}{
		{"process ends", false, true},
		{"watch closed", true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := sleeper(t)
			w := &procWatch{unit: &unit{watches: map[uint32]*procWatch{}}, pid: uint32(cmd.Process.Pid), stop: make(chan struct{})}
			w.unit.watches[w.pid] = w
			got := make(chan bool, 1)
			go func() { got <- w.wait() }()
			if tc.close {
				w.close()
			} else {
				_ = cmd.Process.Kill()
				_ = cmd.Wait() // reaped: the PID no longer exists
			}
			if g := <-got; g != tc.want {
				t.Errorf("wait() = %v; want %v", g, tc.want)
			}
		})
	}
}
