package fakebus_test

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus"
)

// runInScope is the code under test in TestUsingFakebusNew: what a
// container runtime does to place a process in a new scope under a slice.
func runInScope(ctx context.Context, c *sdbus.Conn, name string, pid uint32) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	_, err := c.EnsureTransientUnit(ctx, name, []sdbus.Property{
		sdbus.PropSlice("pods.slice"),
		sdbus.PropPIDs(pid),
		sdbus.PropMemoryMax(256 << 20),
	}, sdbus.EnsureOptions{Exists: sdbus.ExistsFail})
	if err != nil {
		return fmt.Errorf("placing %d in %s: %w", pid, name, err)
	}
	return nil
}

// TestUsingFakebusNew is a complete test of code that talks to systemd, as
// a user of fakebus writes it: fakebus.New(t) starts a fake manager that
// t's cleanup closes, s.Conn(t) a real *sdbus.Conn to it, and Script makes
// the manager misbehave.
func TestUsingFakebusNew(t *testing.T) {
	for _, tc := range []struct {
		name    string
		script  *fakebus.Script // for the scope's jobs, if any
		twice   bool            // run a second time under the same name
		wantErr error
	}{
		{name: "placed"},
		{name: "start fails", script: &fakebus.Script{Result: sdbus.JobFailed}, wantErr: sdbus.ErrJobFailed},
		{name: "name taken", twice: true, wantErr: sdbus.ErrUnitExists},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := fakebus.New(t)
			if tc.script != nil {
				if err := s.Script("ctr-*.scope", *tc.script); err != nil {
					t.Fatal(err)
				}
			}
			c := s.Conn(t)
			ctx := context.Background()
			err := runInScope(ctx, c, "ctr-1.scope", container(t))
			if tc.twice {
				if err != nil {
					t.Fatal(err)
				}
				err = runInScope(ctx, c, "ctr-1.scope", container(t))
			}
			if !errors.Is(err, tc.wantErr) || (tc.wantErr == nil) != (err == nil) {
				t.Fatalf("runInScope = %v, want %v", err, tc.wantErr)
			}
			if tc.wantErr != nil {
				return
			}
			// Check what the manager was told, through the same client.
			got, err := c.ScopeProperties(ctx, "ctr-1.scope")
			if err != nil {
				t.Fatal(err)
			}
			want := struct {
				Slice     string
				MemoryMax sdbus.Limit
			}{"pods.slice", sdbus.Limit{Value: 256 << 20}}
			if diff := cmp.Diff(want, struct {
				Slice     string
				MemoryMax sdbus.Limit
			}{got.Slice, got.MemoryMax}); diff != "" {
				t.Errorf("scope (-want +got):\n%s", diff)
			}
			// ... or through the fake's own view.
			if info, ok := s.Unit("ctr-1.scope"); !ok || info.ActiveState != "active" {
				t.Errorf("fake's view of ctr-1.scope: %+v, %v", info, ok)
			}
		})
	}
}

// container starts the process a test places in a scope, as a runtime
// starts a container's: the fake, like systemd, refuses a PID no process
// has (fakebus.WithMadeUpPIDs lets a test make one up).
func container(t *testing.T) uint32 {
	t.Helper()
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	return uint32(cmd.Process.Pid)
}
