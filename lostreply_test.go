package sdbus_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus"
)

// The fault matrix's lost replies, for every job-creating call: systemd
// carried the call out, ran the unit's command and (for a transient
// unit) unloaded it, and only the reply was lost: systemd left the bus
// under it (daemon-reexec) or the connection dropped. The call is never
// sent again and the unit never runs twice; the caller learns the
// outcome only from evidence: ErrOutcomeUnknown for a bare job call,
// and EnsureTransientUnit's own verdict (created, from the reference it
// holds across a daemon-reexec; unknown after a dropped connection).
func TestLostReplyEveryJobCall(t *testing.T) {
	leakCheck(t)
	ctx := testCtx(t)
	type call func(ctx context.Context, c *sdbus.Conn, unit string) error
	job := func(f func(*sdbus.Conn) func(context.Context, string, sdbus.JobMode) (*sdbus.Job, error)) call {
		return func(ctx context.Context, c *sdbus.Conn, unit string) error {
			_, err := f(c)(ctx, unit, sdbus.ModeReplace)
			return err
		}
	}
	for _, tc := range []struct {
		member    string // the Manager method the fake receives
		transient bool   // a transient unit (else one from a unit file)
		call      call
	}{
		{"StartUnit", false, job(func(c *sdbus.Conn) func(context.Context, string, sdbus.JobMode) (*sdbus.Job, error) {
			return c.StartUnit
		})},
		{"RestartUnit", false, job(func(c *sdbus.Conn) func(context.Context, string, sdbus.JobMode) (*sdbus.Job, error) {
			return c.RestartUnit
		})},
		{"ReloadOrRestartUnit", false, job(func(c *sdbus.Conn) func(context.Context, string, sdbus.JobMode) (*sdbus.Job, error) {
			return c.ReloadOrRestartUnit
		})},
		{"StartTransientUnit", true, func(ctx context.Context, c *sdbus.Conn, unit string) error {
			_, err := c.StartTransientUnit(ctx, unit, sdbus.ModeReplace, oneshot("/bin/true"))
			return err
		}},
		{"EnsureTransientUnit", true, func(ctx context.Context, c *sdbus.Conn, unit string) error {
			out, err := c.EnsureTransientUnit(ctx, unit, oneshot("/bin/true"), sdbus.EnsureOptions{})
			if err == nil && out != sdbus.Created {
				return errors.New("outcome " + out.String())
			}
			return err
		}},
	} {
		for _, loss := range []string{"reexec", "drop"} {
			t.Run(tc.member+"/"+loss, func(t *testing.T) {
				unit := "lost-" + strings.ToLower(tc.member) + "-" + loss + ".service"
				member := tc.member
				if member == "EnsureTransientUnit" {
					member = "StartTransientUnit"
				}
				var mu sync.Mutex
				calls, runs := 0, 0
				opts := []fakebus.Option{
					fakebus.WithTrace(func(e fakebus.Event) {
						if e.In && e.Msg.Type == dbus.TypeMethodCall && len(e.Msg.Body) > 0 && e.Msg.Body[0] == unit {
							if m, _ := e.Msg.Headers[dbus.FieldMember].Value().(string); m == member {
								mu.Lock()
								calls++
								mu.Unlock()
							}
						}
					}),
					fakebus.WithNotes(func(n fakebus.Note) {
						if n.Kind == fakebus.NoteScript && n.Unit == unit && n.JobType != "stop" {
							mu.Lock()
							runs++
							mu.Unlock()
						}
					}),
				}
				if !tc.transient {
					opts = append(opts, fakebus.WithUnitFile(fakebus.UnitFile{Name: unit, Properties: oneshot("/bin/true")}))
				}
				s := fakebus.New(t, opts...)
				c := s.Conn(t, sdbus.WithReconnect(sdbus.ReconnectPolicy{}))
				if err := s.Script(unit, fakebus.Script{ReplyDelay: time.Hour}); err != nil {
					t.Fatal(err)
				}
				errc := make(chan error, 1)
				go func() { errc <- tc.call(ctx, c, unit) }()
				// The command has run and the job ended; the reply is an
				// hour away.
				for {
					mu.Lock()
					ran := runs > 0
					mu.Unlock()
					if ran && s.Jobs() == 0 {
						break
					}
					if ctx.Err() != nil {
						t.Fatal("the job never ran")
					}
					time.Sleep(time.Millisecond)
				}
				if _, loaded := s.Unit(unit); tc.transient && loaded && tc.member != "EnsureTransientUnit" {
					t.Fatalf("%s still loaded after its oneshot ran: the case needs it collected", unit)
				}
				if err := s.Script(unit, fakebus.Script{}); err != nil { // later jobs reply at once
					t.Fatal(err)
				}
				switch loss {
				case "reexec":
					s.Reexecute(fakebus.Reexec{Pending: 1})
				case "drop":
					s.DropConnections()
				}
				err := <-errc
				mu.Lock()
				gotCalls, gotRuns := calls, runs
				mu.Unlock()
				if gotCalls != 1 || gotRuns != 1 {
					t.Errorf("the fake received %d %s calls and ran %s %d times; want 1 and 1 (the call returned %v)", gotCalls, member, unit, gotRuns, err)
				}
				switch {
				case tc.member == "EnsureTransientUnit" && loss == "reexec":
					// The reference it held kept the ended unit loaded: it
					// knows the call made it and the oneshot ran.
					if err != nil {
						t.Errorf("EnsureTransientUnit after its reply was lost at daemon-reexec = %v; want created", err)
					}
					// It dropped the reference before it returned.
					if u, ok := s.Unit(unit); ok {
						t.Errorf("%s still loaded after EnsureTransientUnit returned: %+v", unit, u)
					}
				case !errors.Is(err, sdbus.ErrOutcomeUnknown) || !errors.Is(err, sdbus.ErrDisconnected):
					t.Errorf("%s after its reply was lost (%s) = %v; want ErrOutcomeUnknown and ErrDisconnected", tc.member, loss, err)
				}
			})
		}
	}
}

// The fault matrix's cut wait with cleanup promised: a job is queued
// when the connection drops and then the caller's ctx ends, for each call
// that promises to clean up after itself (EnsureTransientUnit: the start
// job canceled and the name freed; DestroyUnit: the failed state reset).
// Neither may report an outcome it did not see.
func TestCutWaitWithCleanupEveryCall(t *testing.T) {
	leakCheck(t)
	ctx := testCtx(t)
	for _, tc := range []struct {
		name string
		// setup makes the unit, before the script that delays its jobs.
		setup bool
		call  func(ctx context.Context, c *sdbus.Conn, unit string) error
		// check tells, from the fake's unit afterwards, whether err lies.
		check func(t *testing.T, err error, u fakebus.UnitInfo, loaded bool)
	}{
		{"EnsureTransientUnit", false, func(ctx context.Context, c *sdbus.Conn, unit string) error {
			_, err := c.EnsureTransientUnit(ctx, unit, sliceProps(), sdbus.EnsureOptions{})
			return err
		}, func(t *testing.T, err error, u fakebus.UnitInfo, loaded bool) {
			switch {
			case err == nil:
				t.Error("EnsureTransientUnit succeeded with its start job an hour away")
			case strings.Contains(err.Error(), "name freed") && loaded:
				t.Errorf("EnsureTransientUnit said %q with the unit still loaded: %+v", err, u)
			case loaded && u.JobID != 0 && !errors.Is(err, sdbus.ErrOutcomeUnknown):
				t.Errorf("EnsureTransientUnit = %v with its start job still queued; want ErrOutcomeUnknown", err)
			}
		}},
		{"DestroyUnit", true, func(ctx context.Context, c *sdbus.Conn, unit string) error {
			return c.DestroyUnit(ctx, unit)
		}, func(t *testing.T, err error, u fakebus.UnitInfo, loaded bool) {
			switch {
			case err == nil && loaded && u.ActiveState != "inactive":
				t.Errorf("DestroyUnit succeeded with the unit %s (job %d)", u.ActiveState, u.JobID)
			case err != nil && loaded && u.JobID != 0 && !strings.Contains(err.Error(), "keeps running") && !errors.Is(err, sdbus.ErrOutcomeUnknown):
				t.Errorf("DestroyUnit = %v with its stop job still queued; want it said (keeps running, or ErrOutcomeUnknown)", err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := fakebus.New(t)
			c := s.Conn(t, sdbus.WithReconnect(sdbus.ReconnectPolicy{}))
			unit := "cut-" + strings.ToLower(tc.name) + ".slice"
			if tc.setup {
				startSlice(ctx, t, c, unit)
			}
			if err := s.Script(unit, fakebus.Script{Delay: time.Hour}); err != nil {
				t.Fatal(err)
			}
			short, cancel := context.WithTimeout(ctx, 2*time.Second)
			defer cancel()
			errc := make(chan error, 1)
			go func() { errc <- tc.call(short, c, unit) }()
			for {
				if u, ok := s.Unit(unit); ok && u.JobID != 0 {
					break
				}
				time.Sleep(time.Millisecond)
			}
			time.Sleep(20 * time.Millisecond) // mostly, the reply has arrived
			s.DropConnections()
			err := <-errc
			u, loaded := s.Unit(unit)
			tc.check(t, err, u, loaded)
		})
	}
}
