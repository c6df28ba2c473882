package sdbus_test

import (
	"context"
	"errors"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus"
)

// badCalls are public calls with one string D-Bus cannot carry (invalid
// UTF-8 or a NUL byte), each with the argument its error must name.
func badCalls() []struct {
	name string
	arg  string
	call func(ctx context.Context, c *sdbus.Conn) error
} {
	job := func(_ *sdbus.Job, err error) error { return err }
	list := func(_ []sdbus.UnitStatus, err error) error { return err }
	return []struct {
		name string
		arg  string
		call func(ctx context.Context, c *sdbus.Conn) error
	}{
		{"Description", `properties[0] "Description" at offset 3`, func(ctx context.Context, c *sdbus.Conn) error {
			return job(c.StartTransientUnit(ctx, "bad-desc.slice", sdbus.ModeReplace, []sdbus.Property{sdbus.PropDescription("caf\xe9")}))
		}},
		{"ExecStart argv", `properties[0] "ExecStart"[0].Argv[1] at offset 1`, func(ctx context.Context, c *sdbus.Conn) error {
			return job(c.StartTransientUnit(ctx, "bad-exec.service", sdbus.ModeReplace,
				[]sdbus.Property{sdbus.PropExecStart([]string{"/bin/echo", "a\x00b"}, false)}))
		}},
		{"ListUnitsByPatterns pattern", "patterns[1]", func(ctx context.Context, c *sdbus.Conn) error {
			return list(c.ListUnitsByPatterns(ctx, nil, []string{"*.slice", "\xff*"}))
		}},
		{"ListUnitsByPatterns state", "states[0]", func(ctx context.Context, c *sdbus.Conn) error {
			return list(c.ListUnitsByPatterns(ctx, []sdbus.ActiveState{"act\x00ive"}, nil))
		}},
		{"AttachProcessesToUnit sub-cgroup", "subcgroup", func(ctx context.Context, c *sdbus.Conn) error {
			return c.AttachProcessesToUnit(ctx, "bad.scope", "/a\x00b", 1)
		}},
		{"JobMode", "mode", func(ctx context.Context, c *sdbus.Conn) error {
			return job(c.StartUnit(ctx, "bad.slice", sdbus.JobMode("replace\xff")))
		}},
		{"StartTransientUnit JobMode", "mode", func(ctx context.Context, c *sdbus.Conn) error {
			return job(c.StartTransientUnit(ctx, "bad-mode.slice", sdbus.JobMode("fail\x00"), sliceProps()))
		}},
		{"SetUnitProperties Description", `properties[0] "Description" at offset 0`, func(ctx context.Context, c *sdbus.Conn) error {
			return c.SetUnitProperties(ctx, "-.slice", true, sdbus.PropDescription("\xc3"))
		}},
		{"KillUnit whom", "whom", func(ctx context.Context, c *sdbus.Conn) error {
			return c.KillUnit(ctx, "bad.service", sdbus.KillWhom("all\xff"), 15)
		}},
		{"EnableUnitFiles path", "files[0] at offset 2", func(ctx context.Context, c *sdbus.Conn) error {
			_, _, err := c.EnableUnitFiles(ctx, []string{"/d\xffir/a.service"}, 0)
			return err
		}},
		{"ListUnitFilesByPatterns pattern", "patterns[0]", func(ctx context.Context, c *sdbus.Conn) error {
			_, err := c.ListUnitFilesByPatterns(ctx, nil, []string{"a\x00*"})
			return err
		}},
		{"raw property value", `properties[1] "Environment"[0] at offset 2`, func(ctx context.Context, c *sdbus.Conn) error {
			return job(c.StartTransientUnit(ctx, "bad-env.service", sdbus.ModeReplace,
				[]sdbus.Property{sdbus.PropExecStart([]string{"/bin/true"}, false), sdbus.PropRaw("Environment", []string{"A=\xff"})}))
		}},
	}
}

// A string D-Bus cannot carry is the caller's error: it is rejected with
// ErrInvalidArgs naming the argument, nothing is sent, and the shared
// connection stays up: another caller's pending job still gets its result,
// no reconnect happens, and the call is not repeated.
func TestBadArgumentNeverClosesSharedConnection(t *testing.T) {
	leakCheck(t)
	ctx := testCtx(t)
	for _, reconnect := range []bool{false, true} {
		reconnect := reconnect
		t.Run(map[bool]string{false: "plain", true: "reconnecting"}[reconnect], func(t *testing.T) {
			s := fakebus.New(t)
			var dials atomic.Int32
			opts := []sdbus.Option{sdbus.WithDialer(func(context.Context) (io.ReadWriteCloser, error) {
				dials.Add(1)
				return s.Pipe(), nil
			})}
			if reconnect {
				opts = append(opts, fastReconnect())
			}
			c, err := sdbus.Connect(ctx, "fakebus:counted", opts...)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if err := s.Script("other.slice", fakebus.Script{Delay: 100 * time.Millisecond}); err != nil {
				t.Fatal(err)
			}
			other, err := c.StartTransientUnit(ctx, "other.slice", sdbus.ModeReplace, sliceProps())
			if err != nil {
				t.Fatal(err)
			}
			for _, bc := range badCalls() {
				err := bc.call(ctx, c)
				if !errors.Is(err, sdbus.ErrInvalidArgs) {
					t.Errorf("%s: err = %v, want ErrInvalidArgs", bc.name, err)
					continue
				}
				var e *sdbus.Error
				if !errors.As(err, &e) || e.Name != "" || !strings.Contains(e.Message, bc.arg) {
					t.Errorf("%s: err = %#v, want a local *sdbus.Error naming %s", bc.name, err, bc.arg)
				}
			}
			if res, err := other.Wait(ctx); err != nil || res != sdbus.JobDone {
				t.Errorf("the other caller's job: %v, %v; want done", res, err)
			}
			select {
			case <-c.Done():
				t.Fatal("the Conn ended")
			default:
			}
			if n := dials.Load(); n != 1 {
				t.Errorf("%d dials, want 1: the connection was replaced", n)
			}
			if _, err := c.GetUnit(ctx, "-.slice"); err != nil {
				t.Errorf("GetUnit after the bad calls: %v", err)
			}
		})
	}
}

// stringCalls are the public calls that put a caller's string on the wire,
// each with that string in one argument.
func stringCalls() []func(ctx context.Context, c *sdbus.Conn, s string) error {
	job := func(_ *sdbus.Job, err error) error { return err }
	list := func(_ []sdbus.UnitStatus, err error) error { return err }
	return []func(ctx context.Context, c *sdbus.Conn, s string) error{
		func(ctx context.Context, c *sdbus.Conn, s string) error {
			return job(c.StartUnit(ctx, s, sdbus.ModeReplace))
		},
		func(ctx context.Context, c *sdbus.Conn, s string) error {
			return job(c.StartUnit(ctx, "fuzz.slice", sdbus.JobMode(s)))
		},
		func(ctx context.Context, c *sdbus.Conn, s string) error {
			return job(c.StartTransientUnit(ctx, "fuzz-desc.slice", sdbus.ModeReplace, []sdbus.Property{sdbus.PropDescription(s)}))
		},
		func(ctx context.Context, c *sdbus.Conn, s string) error {
			return job(c.StartTransientUnit(ctx, "fuzz-exec.service", sdbus.ModeReplace,
				[]sdbus.Property{sdbus.PropExecStart([]string{"/bin/true", s}, false)}))
		},
		func(ctx context.Context, c *sdbus.Conn, s string) error {
			return job(c.StartTransientUnit(ctx, "fuzz-raw.slice", sdbus.ModeReplace, []sdbus.Property{sdbus.PropRaw(s, s)}))
		},
		func(ctx context.Context, c *sdbus.Conn, s string) error {
			return job(c.StartTransientUnit(ctx, "fuzz-aux.slice", sdbus.ModeReplace, sliceProps(),
				sdbus.AuxUnit{Name: s, Properties: sliceProps()}))
		},
		func(ctx context.Context, c *sdbus.Conn, s string) error {
			return list(c.ListUnitsByPatterns(ctx, []sdbus.ActiveState{sdbus.ActiveState(s)}, []string{s}))
		},
		func(ctx context.Context, c *sdbus.Conn, s string) error {
			return list(c.ListUnitsByNames(ctx, []string{s}))
		},
		func(ctx context.Context, c *sdbus.Conn, s string) error {
			return c.AttachProcessesToUnit(ctx, "fuzz.scope", s, 1)
		},
		func(ctx context.Context, c *sdbus.Conn, s string) error {
			return c.SetUnitProperties(ctx, "-.slice", true, sdbus.PropDescription(s))
		},
		func(ctx context.Context, c *sdbus.Conn, s string) error {
			return c.KillUnit(ctx, "fuzz.service", sdbus.KillWhom(s), 0)
		},
		func(ctx context.Context, c *sdbus.Conn, s string) error { _, err := c.GetUnit(ctx, s); return err },
		func(ctx context.Context, c *sdbus.Conn, s string) error { _, err := c.LoadUnit(ctx, s); return err },
		func(ctx context.Context, c *sdbus.Conn, s string) error { return c.ResetFailedUnit(ctx, s) },
		func(ctx context.Context, c *sdbus.Conn, s string) error { _, err := c.UnitStatus(ctx, s); return err },
		func(ctx context.Context, c *sdbus.Conn, s string) error {
			_, err := c.UnitProperties(ctx, s)
			return err
		},
		func(ctx context.Context, c *sdbus.Conn, s string) error {
			_, err := c.EffectiveLimits(ctx, s)
			return err
		},
		func(ctx context.Context, c *sdbus.Conn, s string) error { _, err := c.Reconcile(ctx, s); return err },
		func(ctx context.Context, c *sdbus.Conn, s string) error {
			_, err := c.EnsureTransientUnit(ctx, s, sliceProps(), sdbus.EnsureOptions{})
			return err
		},
		func(ctx context.Context, c *sdbus.Conn, s string) error {
			_, err := c.EnsureTransientUnit(ctx, "fuzz-ensure.slice", []sdbus.Property{sdbus.PropDescription(s)}, sdbus.EnsureOptions{})
			return err
		},
		func(ctx context.Context, c *sdbus.Conn, s string) error { return c.DestroyUnit(ctx, s) },
		func(ctx context.Context, c *sdbus.Conn, s string) error { return c.FreezeUnit(ctx, s) },
		func(ctx context.Context, c *sdbus.Conn, s string) error {
			_, _, err := c.EnableUnitFiles(ctx, []string{s}, 0)
			return err
		},
		func(ctx context.Context, c *sdbus.Conn, s string) error {
			_, err := c.LinkUnitFiles(ctx, []string{s}, sdbus.UnitFileRuntime)
			return err
		},
		func(ctx context.Context, c *sdbus.Conn, s string) error {
			_, err := c.MaskUnitFiles(ctx, []string{s}, sdbus.UnitFileRuntime)
			return err
		},
		func(ctx context.Context, c *sdbus.Conn, s string) error {
			_, err := c.GetUnitFileState(ctx, s)
			return err
		},
		func(ctx context.Context, c *sdbus.Conn, s string) error {
			_, err := c.ListUnitFilesByPatterns(ctx, []sdbus.UnitFileState{sdbus.UnitFileState(s)}, []string{s})
			return err
		},
		func(ctx context.Context, c *sdbus.Conn, s string) error {
			wctx, cancel := context.WithCancel(ctx)
			defer cancel()
			_, err := c.WatchUnit(wctx, s)
			return err
		},
	}
}

// FuzzStringArguments puts arbitrary strings into every public call that
// carries one: never a panic, never a lost connection, always nil or a
// typed error.
func FuzzStringArguments(f *testing.F) {
	for _, s := range []string{"", "a.service", "caf\xe9", "a\x00b", "/a\x00b", "replace", "*.slice", "\xff*", "all", "-.slice", "/x"} {
		for i := range stringCalls() {
			f.Add(uint8(i), s)
		}
	}
	srv := fakebus.New(f)
	c := srv.Conn(f)
	calls := stringCalls()
	f.Fuzz(func(t *testing.T, which uint8, s string) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		err := calls[int(which)%len(calls)](ctx, c, s)
		var e *sdbus.Error
		var je *sdbus.JobError
		if err != nil && !errors.As(err, &e) && !errors.As(err, &je) {
			t.Fatalf("call %d(%q): untyped error %T: %v", which, s, err, err)
		}
		if errors.Is(err, sdbus.ErrDisconnected) || errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("call %d(%q): %v", which, s, err)
		}
		select {
		case <-c.Done():
			t.Fatalf("call %d(%q) ended the connection", which, s)
		default:
		}
	})
}
