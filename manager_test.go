package sdbus_test

import (
	"context"
	"errors"
	"syscall"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus"
)

func TestManagerProperties(t *testing.T) {
	leakCheck(t)
	ctx := testCtx(t)
	s := fakebus.New(t, fakebus.WithVersion("252.38-1~deb12u1"))
	c := s.Conn(t)
	got, err := c.ManagerProperties(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got.UserspaceTimestamp.IsZero() || got.NNames == 0 || got.Architecture == "" || got.Features == "" {
		t.Errorf("ManagerProperties = %+v: missing timestamp, names, architecture or features", got)
	}
	// DefaultTasksMax is a share of what the host allows (conformance
	// DefaultTasksMax checks the share): a number, as the raw read says.
	def, err := c.ManagerProperty(ctx, "DefaultTasksMax")
	if err != nil {
		t.Fatal(err)
	}
	n, ok := def.Value().(uint64)
	if !ok || n == 0 || n == 1<<64-1 {
		t.Fatalf("DefaultTasksMax = %v, want a number of tasks", def)
	}
	want := sdbus.ManagerProperties{
		Version:               "252.38-1~deb12u1",
		SystemState:           sdbus.SystemRunning,
		DefaultStandardOutput: "journal",
		DefaultStandardError:  "inherit",
		DefaultTasksMax:       sdbus.Limit{Value: n},
		LogLevel:              "info",
		LogTarget:             "journal-or-kmsg",
	}
	ignore := cmpopts.IgnoreFields(sdbus.ManagerProperties{}, "Features", "Virtualization", "Architecture",
		"NNames", "Environment", "UserspaceTimestamp", "FinishTimestamp")
	if diff := cmp.Diff(want, got, ignore); diff != "" {
		t.Errorf("ManagerProperties (-want +got):\n%s", diff)
	}
}

func TestManagerProperty(t *testing.T) {
	leakCheck(t)
	ctx := testCtx(t)
	s := fakebus.New(t)
	c := s.Conn(t)
	for _, tc := range []struct {
		name    string
		want    dbus.Variant
		wantErr error
	}{
		{"ControlGroup", dbus.MakeVariant(""), nil},
		{"SystemState", dbus.MakeVariant("running"), nil},
		{"NFailedUnits", dbus.MakeVariant(uint32(0)), nil},
		{"NoSuchProperty", dbus.Variant{}, sdbus.ErrNotSupported},
		{"", dbus.Variant{}, sdbus.ErrInvalidArgs},
		{"bad\xff", dbus.Variant{}, sdbus.ErrInvalidArgs},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := c.ManagerProperty(ctx, tc.name)
			if !errors.Is(err, tc.wantErr) || (tc.wantErr == nil) != (err == nil) {
				t.Fatalf("ManagerProperty(%q) error = %v, want %v", tc.name, err, tc.wantErr)
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(dbus.Variant{}, dbus.Signature{})); diff != "" {
				t.Errorf("ManagerProperty(%q) (-want +got):\n%s", tc.name, diff)
			}
		})
	}
}

// startService starts a transient service running argv and waits for its
// start job.
func startService(ctx context.Context, t *testing.T, c *sdbus.Conn, name string, oneshot bool, argv ...string) {
	t.Helper()
	props := []sdbus.Property{sdbus.PropExecStart(argv, false)}
	if oneshot {
		props = append(props, sdbus.PropType(sdbus.ServiceOneshot))
	}
	j, err := c.StartTransientUnit(ctx, name, sdbus.ModeReplace, props)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = j.Wait(ctx)
}

func TestUnitProperty(t *testing.T) {
	leakCheck(t)
	ctx := testCtx(t)
	s := fakebus.New(t)
	c := s.Conn(t)
	startService(ctx, t, c, "up.service", false, "/bin/sleep", "infinity")
	for _, tc := range []struct {
		name              string
		unit, iface, prop string
		want              any
		wantErr           error
	}{
		{"short interface", "up.service", "Unit", "ActiveState", "active", nil},
		{"full interface", "up.service", "org.freedesktop.systemd1.Service", "Type", "simple", nil},
		{"type interface", "up.service", "Service", "ExecMainCode", int32(0), nil},
		// Like go-systemd: systemd's answer for a unit without a file is
		// its not-found defaults.
		{"not loaded", "nope.service", "Unit", "LoadState", "not-found", nil},
		{"not loaded type interface", "nope.service", "Service", "MainPID", uint32(0), nil},
		{"unknown property", "up.service", "Service", "NoSuchProperty", nil, sdbus.ErrNotSupported},
		{"wrong interface", "up.service", "Scope", "Controller", nil, sdbus.ErrNotSupported},
		{"bad unit name", "up", "Unit", "Id", nil, sdbus.ErrInvalidArgs},
		{"bad interface", "up.service", "a..b", "Id", nil, sdbus.ErrInvalidArgs},
		{"empty property", "up.service", "Unit", "", nil, sdbus.ErrInvalidArgs},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, err := c.UnitProperty(ctx, tc.unit, tc.iface, tc.prop)
			if !errors.Is(err, tc.wantErr) || (tc.wantErr == nil) != (err == nil) {
				t.Fatalf("UnitProperty error = %v, want %v", err, tc.wantErr)
			}
			if diff := cmp.Diff(tc.want, v.Value()); diff != "" {
				t.Errorf("UnitProperty (-want +got):\n%s", diff)
			}
		})
	}
}

func TestUnitTypeProperties(t *testing.T) {
	leakCheck(t)
	ctx := testCtx(t)
	s := fakebus.New(t, fakebus.WithMadeUpPIDs())
	c := s.Conn(t)
	j, err := c.StartTransientUnit(ctx, "tp.scope", sdbus.ModeReplace, []sdbus.Property{sdbus.PropPIDs(4242)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := j.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		unit, has string
	}{
		{"tp.scope", "Controller"},
		{"-.slice", "MemoryMax"},
		{"nope.service", "ExecMainStatus"},
	} {
		t.Run(tc.unit, func(t *testing.T) {
			m, err := c.UnitTypeProperties(ctx, tc.unit)
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := m[tc.has]; !ok {
				t.Errorf("UnitTypeProperties(%s) has no %s: %v", tc.unit, tc.has, m)
			}
		})
	}
	if _, err := c.UnitTypeProperties(ctx, "no-suffix"); !errors.Is(err, sdbus.ErrInvalidArgs) {
		t.Errorf("UnitTypeProperties(no-suffix) = %v, want ErrInvalidArgs", err)
	}
}

// ExecMainCode and ExecMainStatus tell an exit from a signal.
func TestServiceExecMain(t *testing.T) {
	leakCheck(t)
	for _, tc := range []struct {
		name       string
		argv       []string
		oneshot    bool
		end        func(ctx context.Context, c *sdbus.Conn, unit string) error
		wantCode   sdbus.ExecCode
		wantStatus int32
		wantResult string
	}{
		{"exit 0", []string{"/bin/true"}, true, nil, sdbus.ExecExited, 0, "success"},
		{"exit 3", []string{"/bin/sh", "-c", "exit 3"}, true, nil, sdbus.ExecExited, 3, "exit-code"},
		{"running", []string{"/bin/sleep", "infinity"}, false, nil, sdbus.ExecNotExited, 0, "success"},
		{"killed", []string{"/bin/sleep", "infinity"}, false, func(ctx context.Context, c *sdbus.Conn, unit string) error {
			return c.KillUnit(ctx, unit, sdbus.KillMain, syscall.SIGKILL)
		}, sdbus.ExecKilled, 9, "signal"},
		{"stopped", []string{"/bin/sleep", "infinity"}, false, func(ctx context.Context, c *sdbus.Conn, unit string) error {
			j, err := c.StopUnit(ctx, unit, sdbus.ModeReplace)
			if err == nil {
				_, err = j.Wait(ctx)
			}
			return err
		}, sdbus.ExecKilled, 15, "success"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := testCtx(t)
			s := fakebus.New(t)
			c := s.Conn(t)
			const unit = "exec.service"
			props := []sdbus.Property{sdbus.PropExecStart(tc.argv, false)}
			if tc.oneshot {
				props = append(props, sdbus.PropType(sdbus.ServiceOneshot))
			}
			if err := s.AddUnitFile(fakebus.UnitFile{Name: unit, Properties: props}); err != nil {
				t.Fatal(err)
			}
			// systemd unloads an inactive unit nobody references (its
			// ExecMain* with it); an active target that wants it keeps
			// it loaded, as on a real system.
			if err := s.AddUnitFile(fakebus.UnitFile{Name: "holder.target", Properties: []sdbus.Property{sdbus.PropWants(unit)}}); err != nil {
				t.Fatal(err)
			}
			if j, err := c.StartUnit(ctx, "holder.target", sdbus.ModeReplace); err != nil {
				t.Fatal(err)
			} else {
				_, _ = j.Wait(ctx)
			}
			if j, err := c.StartUnit(ctx, unit, sdbus.ModeReplace); err != nil {
				t.Fatal(err)
			} else {
				_, _ = j.Wait(ctx)
			}
			if tc.end != nil {
				if err := tc.end(ctx, c, unit); err != nil {
					t.Fatal(err)
				}
			}
			got, err := c.ServiceProperties(ctx, unit)
			if err != nil {
				t.Fatal(err)
			}
			if got.ExecMainCode != tc.wantCode || got.ExecMainStatus != tc.wantStatus || got.Result != tc.wantResult {
				t.Errorf("ExecMainCode, ExecMainStatus, Result = %v, %d, %s; want %v, %d, %s",
					got.ExecMainCode, got.ExecMainStatus, got.Result, tc.wantCode, tc.wantStatus, tc.wantResult)
			}
			if got.ExecMainPID == 0 || got.ExecMainStartTimestamp.IsZero() {
				t.Errorf("ExecMainPID %d, ExecMainStartTimestamp %v: want both set", got.ExecMainPID, got.ExecMainStartTimestamp)
			}
			if ended := tc.wantCode != sdbus.ExecNotExited; ended != !got.ExecMainExitTimestamp.IsZero() || ended != (got.MainPID == 0) {
				t.Errorf("ended %v, but ExecMainExitTimestamp %v, MainPID %d", ended, got.ExecMainExitTimestamp, got.MainPID)
			}
			if got.ExecMainCode.Signaled() != (tc.wantCode == sdbus.ExecKilled) {
				t.Errorf("Signaled() = %v", got.ExecMainCode.Signaled())
			}
		})
	}
}

func TestUnitPropertiesStatusFields(t *testing.T) {
	leakCheck(t)
	ctx := testCtx(t)
	s := fakebus.New(t)
	if err := s.AddUnitFile(fakebus.UnitFile{Name: "file.service", Properties: []sdbus.Property{sdbus.PropExecStart([]string{"/bin/sleep", "infinity"}, false)}}); err != nil {
		t.Fatal(err)
	}
	c := s.Conn(t)
	startService(ctx, t, c, "tr.service", false, "/bin/sleep", "infinity")
	j, err := c.StartUnit(ctx, "file.service", sdbus.ModeReplace)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := j.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	type fields struct {
		UnitFileState, SourcePath    string
		CanStart, CanStop, CanReload bool
		TriggeredBy                  []string
	}
	for _, tc := range []struct {
		unit string
		want fields
	}{
		{"tr.service", fields{UnitFileState: "transient", CanStart: true, CanStop: true, TriggeredBy: []string{}}},
		{"file.service", fields{UnitFileState: "static", CanStart: true, CanStop: true, TriggeredBy: []string{}}},
		{"-.slice", fields{UnitFileState: "", CanStart: true, TriggeredBy: []string{}}},
	} {
		t.Run(tc.unit, func(t *testing.T) {
			u, err := c.UnitProperties(ctx, tc.unit)
			if err != nil {
				t.Fatal(err)
			}
			got := fields{u.UnitFileState, u.SourcePath, u.CanStart, u.CanStop, u.CanReload, u.TriggeredBy}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("UnitProperties(%s) (-want +got):\n%s", tc.unit, diff)
			}
		})
	}
	// CPUUsageNSec reads as unknown without accounting.
	sp, err := c.ServiceProperties(ctx, "tr.service")
	if err != nil {
		t.Fatal(err)
	}
	if !sp.CPUUsageNSec.Unlimited {
		t.Errorf("CPUUsageNSec = %v, want unknown", sp.CPUUsageNSec)
	}
}

// Typed reads of a unit that is not loaded are ErrNoSuchUnit (go-systemd
// returned the defaults); the raw reads return systemd's defaults.
func TestTypedReadOfNotLoadedUnit(t *testing.T) {
	leakCheck(t)
	ctx := testCtx(t)
	s := fakebus.New(t)
	c := s.Conn(t)
	for name, read := range map[string]func() error{
		"UnitProperties":    func() error { _, err := c.UnitProperties(ctx, "gone.scope"); return err },
		"ScopeProperties":   func() error { _, err := c.ScopeProperties(ctx, "gone.scope"); return err },
		"ServiceProperties": func() error { _, err := c.ServiceProperties(ctx, "gone.service"); return err },
	} {
		t.Run(name, func(t *testing.T) {
			if err := read(); !errors.Is(err, sdbus.ErrNoSuchUnit) {
				t.Errorf("%s = %v, want ErrNoSuchUnit", name, err)
			}
		})
	}
	v, err := c.UnitProperty(ctx, "gone.scope", "Scope", "DevicePolicy")
	if err != nil || v.Value() != "auto" {
		t.Errorf("UnitProperty(gone.scope, DevicePolicy) = %v, %v; want the default auto", v, err)
	}
}

// FuzzRawReadArguments puts arbitrary strings into the raw reads: never a
// panic, never a lost connection, always nil or a typed error.
func FuzzRawReadArguments(f *testing.F) {
	for _, s := range []string{"", "Version", "Unit", "a.service", "caf\xe9", "a\x00b", "org.freedesktop.systemd1.Unit", "x.."} {
		for i := uint8(0); i < 4; i++ {
			f.Add(i, s)
		}
	}
	srv := fakebus.New(f)
	c := srv.Conn(f)
	calls := []func(ctx context.Context, s string) error{
		func(ctx context.Context, s string) error { _, err := c.ManagerProperty(ctx, s); return err },
		func(ctx context.Context, s string) error { _, err := c.UnitProperty(ctx, s, "Unit", "Id"); return err },
		func(ctx context.Context, s string) error { _, err := c.UnitProperty(ctx, "-.slice", s, s); return err },
		func(ctx context.Context, s string) error { _, err := c.UnitTypeProperties(ctx, s); return err },
	}
	f.Fuzz(func(t *testing.T, which uint8, s string) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		err := calls[int(which)%len(calls)](ctx, s)
		var e *sdbus.Error
		if err != nil && !errors.As(err, &e) {
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

// The migration table's claim: retry code testing godbus's dbus.ErrClosed
// never fires with sdbus; a lost connection is ErrDisconnected, a closed
// Conn ErrClosed.
func TestGodbusErrClosedNeverMatches(t *testing.T) {
	leakCheck(t)
	ctx := testCtx(t)
	s := fakebus.New(t)
	lost, err := s.Dial(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer lost.Close()
	closed := s.Conn(t)
	s.DropConnections()
	<-lost.Done()
	closed.Close()
	for _, tc := range []struct {
		name string
		c    *sdbus.Conn
		want error
	}{
		{"connection lost", lost, sdbus.ErrDisconnected},
		{"Conn closed", closed, sdbus.ErrClosed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.c.ManagerProperty(ctx, "Version")
			if !errors.Is(err, tc.want) || errors.Is(err, dbus.ErrClosed) {
				t.Errorf("ManagerProperty = %v; want %v and not dbus.ErrClosed", err, tc.want)
			}
		})
	}
}
