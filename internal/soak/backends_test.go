package soak

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus"
)

// policy is the soak Conns' reconnect policy: quick redials, calls wait
// for a connection long enough to ride out a re-execution.
var policy = sdbus.ReconnectPolicy{MinDelay: 20 * time.Millisecond, MaxDelay: time.Second, WaitForConnection: time.Minute}

func oneshot(argv ...string) []sdbus.Property {
	return []sdbus.Property{sdbus.PropType(sdbus.ServiceOneshot), sdbus.PropExecStart(argv, false)}
}

// fake is fakebus, playing the release it plays by default, its
// recorded units' runs counted from the start jobs it queued.
type fake struct {
	s       *fakebus.Server
	mu      sync.Mutex
	started map[string]int
}

func newFake(t *testing.T) (*fake, error) {
	f := &fake{started: map[string]int{}}
	s, err := fakebus.Start(fakebus.WithNotes(func(n fakebus.Note) {
		if n.Kind == fakebus.NoteScript && n.JobType == "start" {
			f.mu.Lock()
			f.started[n.Unit]++
			f.mu.Unlock()
		}
	}))
	if err != nil {
		return nil, err
	}
	f.s = s
	// Each daemon-reexec takes a while, as systemd's does: calls sent
	// meanwhile are left unread.
	s.SetReexecDuration(100 * time.Millisecond)
	for pattern, sc := range map[string]fakebus.Script{
		"*-r.service": {},                              // recorded: counted
		"*-s.service": {Delay: 300 * time.Millisecond}, // slow
	} {
		if err := s.Script(pattern, sc); err != nil {
			return nil, err
		}
	}
	return f, nil
}

func (f *fake) witness(t *testing.T) (*dbus.Conn, error) { return f.s.RawConn(t), nil }

func (f *fake) label() string {
	return "fakebus"
}

func (f *fake) dial(ctx context.Context) (*sdbus.Conn, error) {
	return f.s.Dial(ctx, sdbus.WithReconnect(policy))
}

func (f *fake) reexec(context.Context) error {
	f.s.Reexecute(fakebus.Reexec{})
	return nil
}

func (f *fake) reload(ctx context.Context) error {
	c, err := f.s.Dial(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	return c.Reload(ctx)
}

func (f *fake) restartBus(context.Context) error {
	f.s.DropConnections()
	return nil
}

func (f *fake) recorded(string) []sdbus.Property { return oneshot("/bin/true") }
func (f *fake) slow(string) []sdbus.Property     { return oneshot("/bin/true") }

func (f *fake) runs() (map[string]int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make(map[string]int, len(f.started))
	for k, v := range f.started {
		out[k] = v
	}
	return out, nil
}

func (f *fake) close() { f.s.Close() }

// real is the systemd of the sandbox the soak runs in (scripts/soak):
// each run of a recorded unit appends a line to a file named after it.
type real struct {
	dir     string
	version string
}

func newSystemd() (*real, error) {
	r := &real{dir: "/run/sdbus-soak"}
	if err := os.MkdirAll(r.dir, 0o755); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := sdbus.ConnectSystem(ctx)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	v, err := c.Version(ctx)
	if err != nil {
		return nil, err
	}
	r.version = v.String()
	return r, nil
}

func (r *real) label() string { return "systemd " + r.version }

func (r *real) witness(*testing.T) (*dbus.Conn, error) { return dbus.ConnectSystemBus() }

func (r *real) dial(ctx context.Context) (*sdbus.Conn, error) {
	return sdbus.ConnectSystem(ctx, sdbus.WithReconnect(policy))
}

func (r *real) systemctl(ctx context.Context, args ...string) error {
	out, err := exec.CommandContext(ctx, "systemctl", args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("systemctl %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return nil
}

func (r *real) reexec(ctx context.Context) error { return r.systemctl(ctx, "daemon-reexec") }
func (r *real) reload(ctx context.Context) error { return r.systemctl(ctx, "daemon-reload") }
func (r *real) restartBus(ctx context.Context) error {
	// Restarts every 30 s stay below dbus.service's start limit; a
	// reset makes sure.
	_ = r.systemctl(ctx, "reset-failed", "dbus.service")
	return r.systemctl(ctx, "restart", "dbus.service")
}

func (r *real) recorded(unit string) []sdbus.Property {
	return oneshot("/bin/sh", "-c", "echo run >>"+filepath.Join(r.dir, unit))
}

func (r *real) slow(string) []sdbus.Property { return oneshot("/bin/sleep", "0.3") }

func (r *real) runs() (map[string]int, error) {
	entries, err := os.ReadDir(r.dir)
	if err != nil {
		return nil, err
	}
	out := map[string]int{}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(r.dir, e.Name()))
		if err != nil {
			return nil, err
		}
		out[e.Name()] = strings.Count(string(b), "run\n")
	}
	return out, nil
}

func (r *real) close() {}
