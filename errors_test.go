package sdbus_test

import (
	"context"
	"errors"
	"testing"

	"github.com/godbus/dbus/v5"
	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus"
)

// Errors the manager answers with come back as *sdbus.Error, matching the
// sentinel for their D-Bus name and, as a value, godbus's dbus.Error.
func TestManagerErrorsAreTyped(t *testing.T) {
	leakCheck(t)
	ctx := testCtx(t)
	s := fakebus.New(t, fakebus.WithUnitFile(fakebus.UnitFile{Name: "masked.service", Masked: true}),
		fakebus.WithUnitFile(fakebus.UnitFile{Name: "manual.service", Properties: []sdbus.Property{
			sdbus.PropExecStart([]string{"/bin/true"}, false),
			{Name: "RefuseManualStart", Value: dbus.MakeVariant(true)},
		}}))
	c := s.Conn(t)
	if _, err := c.StartTransientUnit(ctx, "busy.slice", sdbus.ModeReplace, sliceProps()); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		call     func() error
		want     error
		dbusName string
	}{
		{"UnitExists", func() error {
			_, err := c.StartTransientUnit(ctx, "busy.slice", sdbus.ModeReplace, sliceProps())
			return err
		}, sdbus.ErrUnitExists, "org.freedesktop.systemd1.UnitExists"},
		{"NoSuchUnit", func() error {
			_, err := c.GetUnit(ctx, "nope.service")
			return err
		}, sdbus.ErrNoSuchUnit, "org.freedesktop.systemd1.NoSuchUnit"},
		{"NoSuchUnit for ResetFailedUnit", func() error {
			return c.ResetFailedUnit(ctx, "nope.service")
		}, sdbus.ErrNoSuchUnit, "org.freedesktop.systemd1.NoSuchUnit"},
		{"UnitMasked", func() error {
			_, err := c.StartUnit(ctx, "masked.service", sdbus.ModeReplace)
			return err
		}, sdbus.ErrUnitMasked, "org.freedesktop.systemd1.UnitMasked"},
		{"OnlyByDependency", func() error {
			_, err := c.StartUnit(ctx, "manual.service", sdbus.ModeReplace)
			return err
		}, sdbus.ErrOnlyByDependency, "org.freedesktop.systemd1.OnlyByDependency"},
		{"JobTypeNotApplicable", func() error {
			_, err := c.ReloadUnit(ctx, "busy.slice", sdbus.ModeReplace)
			return err
		}, sdbus.ErrJobTypeNotApplicable, "org.freedesktop.systemd1.JobTypeNotApplicable"},
		{"invalid job mode", func() error {
			_, err := c.StartTransientUnit(ctx, "mode.slice", "sideways", sliceProps())
			return err
		}, sdbus.ErrInvalidArgs, "org.freedesktop.DBus.Error.InvalidArgs"},
		{"unknown property", func() error {
			_, err := c.StartTransientUnit(ctx, "prop.slice", sdbus.ModeReplace,
				[]sdbus.Property{{Name: "NoSuchSetting", Value: dbus.MakeVariant(true)}})
			return err
		}, sdbus.ErrNotSupported, "org.freedesktop.DBus.Error.PropertyReadOnly"},
		{"NoSuchJob", func() error {
			_, err := c.StartTransientUnit(ctx, "cancelled.slice", sdbus.ModeReplace, sliceProps())
			if err != nil {
				return err
			}
			return c.CancelJob(ctx, 4242)
		}, sdbus.ErrNoSuchJob, "org.freedesktop.systemd1.NoSuchJob"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call()
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want one matching %v", err, tc.want)
			}
			var se *sdbus.Error
			if !errors.As(err, &se) || se.Name != tc.dbusName || se.Message == "" || se.Op == "" {
				t.Fatalf("err = %#v, want an *sdbus.Error named %s with a message", err, tc.dbusName)
			}
			var de dbus.Error // godbus's error is a value type
			if !errors.As(err, &de) || de.Name != tc.dbusName {
				t.Errorf("errors.As(dbus.Error) = %v", de)
			}
		})
	}
}

func TestErrorMatchesSentinelByName(t *testing.T) {
	for name, want := range map[string]error{
		"org.freedesktop.systemd1.UnitExists":                         sdbus.ErrUnitExists,
		"org.freedesktop.systemd1.NoSuchUnit":                         sdbus.ErrNoSuchUnit,
		"org.freedesktop.systemd1.NoSuchJob":                          sdbus.ErrNoSuchJob,
		"org.freedesktop.systemd1.UnitMasked":                         sdbus.ErrUnitMasked,
		"org.freedesktop.systemd1.JobTypeNotApplicable":               sdbus.ErrJobTypeNotApplicable,
		"org.freedesktop.systemd1.TransactionIsDestructive":           sdbus.ErrTransactionIsDestructive,
		"org.freedesktop.systemd1.OnlyByDependency":                   sdbus.ErrOnlyByDependency,
		"org.freedesktop.systemd1.NoUnitForPID":                       sdbus.ErrNoUnitForPID,
		"org.freedesktop.systemd1.NoSuchProcess":                      sdbus.ErrNoSuchProcess,
		"org.freedesktop.DBus.Error.UnixProcessIdUnknown":             sdbus.ErrNoSuchProcess,
		"org.freedesktop.systemd1.BadUnitSetting":                     sdbus.ErrBadUnitSetting,
		"org.freedesktop.DBus.Error.AccessDenied":                     sdbus.ErrAccessDenied,
		"org.freedesktop.DBus.Error.InteractiveAuthorizationRequired": sdbus.ErrInteractiveAuthorizationRequired,
		"org.freedesktop.DBus.Error.UnknownMethod":                    sdbus.ErrNotSupported,
		"org.freedesktop.DBus.Error.UnknownProperty":                  sdbus.ErrNotSupported,
		"org.freedesktop.DBus.Error.PropertyReadOnly":                 sdbus.ErrNotSupported,
		"org.freedesktop.DBus.Error.InvalidArgs":                      sdbus.ErrInvalidArgs,
		"org.freedesktop.DBus.Error.ServiceUnknown":                   sdbus.ErrServiceUnknown,
		"org.freedesktop.DBus.Error.NameHasNoOwner":                   sdbus.ErrServiceUnknown,
		"org.freedesktop.DBus.Error.NoReply":                          sdbus.ErrTimeout,
		"org.freedesktop.DBus.Error.Disconnected":                     sdbus.ErrDisconnected,
	} {
		err := error(&sdbus.Error{Op: "Test", Name: name, Message: "m", Err: dbus.Error{Name: name, Body: []any{"m"}}})
		if !errors.Is(err, want) {
			t.Errorf("%s does not match %v", name, want)
		}
		if errors.Is(err, sdbus.ErrJobFailed) {
			t.Errorf("%s matches ErrJobFailed", name)
		}
	}
	other := &sdbus.Error{Op: "Test", Name: "org.example.Weird", Err: dbus.Error{Name: "org.example.Weird"}}
	for _, s := range []error{sdbus.ErrUnitExists, sdbus.ErrNotSupported, sdbus.ErrDisconnected} {
		if errors.Is(other, s) {
			t.Errorf("an unknown D-Bus error matches %v", s)
		}
	}
}

func TestErrorStrings(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{&sdbus.Error{Op: "StartTransientUnit", Unit: "x.scope", Name: "org.freedesktop.systemd1.UnitExists", Message: "Unit x.scope already exists."},
			"sdbus: StartTransientUnit x.scope: Unit x.scope already exists. (org.freedesktop.systemd1.UnitExists)"},
		{&sdbus.Error{Op: "wait", Unit: "x.scope", Err: sdbus.ErrDisconnected}, "sdbus: wait x.scope: connection lost"},
		{&sdbus.Error{Op: "wait", Unit: "x.scope", Err: context.DeadlineExceeded}, "sdbus: wait x.scope: context deadline exceeded"},
		{&sdbus.JobError{Unit: "x.service", JobID: 7, Result: sdbus.JobDependency}, "sdbus: job 7 for x.service: a dependency job failed"},
	} {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("Error() = %q, want %q", got, tc.want)
		}
	}
}

// Bad arguments fail before anything is sent, with ErrInvalidArgs and no
// D-Bus error name.
func TestBadArgumentsRejectedLocally(t *testing.T) {
	leakCheck(t)
	ctx := testCtx(t)
	s := fakebus.New(t)
	c := s.Conn(t)
	for _, tc := range []struct {
		name string
		call func() error
	}{
		{"empty unit name", func() error { _, err := c.StartUnit(ctx, "", sdbus.ModeReplace); return err }},
		{"no suffix", func() error { _, err := c.StartUnit(ctx, "foo", sdbus.ModeReplace); return err }},
		{"bad suffix", func() error { _, err := c.StopUnit(ctx, "foo.bogus", sdbus.ModeReplace); return err }},
		{"empty mode", func() error { _, err := c.StartUnit(ctx, "a.service", ""); return err }},
		{"nil property value", func() error {
			_, err := c.StartTransientUnit(ctx, "a.slice", sdbus.ModeReplace, []sdbus.Property{{Name: "Description"}})
			return err
		}},
		{"wrong property type", func() error {
			_, err := c.StartTransientUnit(ctx, "a.slice", sdbus.ModeReplace, []sdbus.Property{{Name: "MemoryMax", Value: dbus.MakeVariant("512M")}})
			return err
		}},
		{"empty property name", func() error {
			return c.SetUnitProperties(ctx, "a.slice", true, sdbus.Property{Value: dbus.MakeVariant(true)})
		}},
		{"builder rejects", func() error {
			_, err := c.StartTransientUnit(ctx, "a.service", sdbus.ModeReplace, []sdbus.Property{sdbus.PropExecStart(nil, false)})
			return err
		}},
		{"bad aux unit", func() error {
			_, err := c.StartTransientUnit(ctx, "a.slice", sdbus.ModeReplace, nil, sdbus.AuxUnit{Name: "nosuffix"})
			return err
		}},
		{"PIDs none", func() error {
			_, err := c.StartTransientUnit(ctx, "a.scope", sdbus.ModeReplace, []sdbus.Property{sdbus.PropPIDs()})
			return err
		}},
		{"AttachProcesses relative cgroup", func() error { return c.AttachProcessesToUnit(ctx, "a.scope", "sub", 1) }},
		{"KillUnit signal", func() error { return c.KillUnit(ctx, "a.scope", sdbus.KillAll, 0) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call()
			var se *sdbus.Error
			if !errors.Is(err, sdbus.ErrInvalidArgs) || !errors.As(err, &se) || se.Name != "" {
				t.Fatalf("err = %v, want a local error matching ErrInvalidArgs", err)
			}
		})
	}
	if n := s.Jobs(); n != 0 {
		t.Errorf("%d jobs were queued", n)
	}
}
