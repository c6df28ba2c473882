package fakebus_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus"
)

// TestUserManagerForeignProcess: an unprivileged user manager cannot move
// another user's process into its cgroup: a scope given one fails, Result
// resources, and its start job fails (systemd 247, 252, 257, 262; the
// conformance case UserManagerRefusesPIDs). Root's manager and the
// system manager take it; a PID outside the caller's process tree (a
// made-up one, WithMadeUpPIDs) is recorded unchecked.
func TestUserManagerForeignProcess(t *testing.T) {
	own := os.Geteuid()
	other := own + 1000 // a uid that owns none of the test's processes
	const madeUp = 4194304 + 1
	for _, tc := range []struct {
		name string
		opts []fakebus.Option
		pid  uint32
		want fakebus.UnitInfo
		job  sdbus.JobResult
	}{
		{"another user's manager", []fakebus.Option{fakebus.WithUserManager(other)}, uint32(os.Getpid()),
			fakebus.UnitInfo{ActiveState: "failed", SubState: "failed", Result: "resources"}, sdbus.JobFailed},
		{"the caller's own manager", []fakebus.Option{fakebus.WithUserManager(own)}, uint32(os.Getpid()),
			fakebus.UnitInfo{ActiveState: "active", SubState: "running", Result: "success"}, sdbus.JobDone},
		{"the system manager", nil, uint32(os.Getpid()),
			fakebus.UnitInfo{ActiveState: "active", SubState: "running", Result: "success"}, sdbus.JobDone},
		{"a made-up PID", []fakebus.Option{fakebus.WithUserManager(other), fakebus.WithMadeUpPIDs()}, madeUp,
			fakebus.UnitInfo{ActiveState: "active", SubState: "running", Result: "success"}, sdbus.JobDone},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := fakebus.New(t, tc.opts...)
			c := s.PrivateConn(t)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			j, err := c.StartTransientUnit(ctx, "placed.scope", sdbus.ModeFail, []sdbus.Property{sdbus.PropPIDs(tc.pid)})
			if err != nil {
				t.Fatal(err)
			}
			// Wait's error is the failure of a job that did not end done.
			if res, err := j.Wait(ctx); res != tc.job || (err == nil) != (tc.job == sdbus.JobDone) {
				t.Errorf("start job = %q, %v; want %q", res, err, tc.job)
			}
			info, ok := s.Unit("placed.scope")
			if !ok {
				t.Fatal("placed.scope is not loaded")
			}
			got := fakebus.UnitInfo{ActiveState: info.ActiveState, SubState: info.SubState, Result: info.Result}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("placed.scope (-want +got):\n%s", diff)
			}
		})
	}
}
