package fakebus_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/godbus/dbus/v5"
	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus"
)

// TestCleanUnit: CleanUnit's checks in systemd's order, as error names,
// on 252 and on 257 (which knows the resource type "fdstore"); the fake
// has nothing to clean.
func TestCleanUnit(t *testing.T) {
	const (
		invalid    = "org.freedesktop.DBus.Error.InvalidArgs"
		nothing    = "org.freedesktop.systemd1.NothingToClean"
		busy       = "org.freedesktop.systemd1.UnitBusy"
		notSupp    = "org.freedesktop.DBus.Error.NotSupported"
		noSuchUnit = "org.freedesktop.systemd1.NoSuchUnit"
	)
	for _, rel := range []struct {
		version string
		fdstore string // CleanUnit(idle.service, [fdstore])
	}{{"252.39-1~deb12u2", invalid}, {"257.13-1~deb13u1", nothing}} {
		t.Run(rel.version, func(t *testing.T) {
			s := fakebus.New(t, fakebus.WithVersion(rel.version))
			c := s.Conn(t)
			ctx := ctxFor(t)
			j, err := c.StartTransientUnit(ctx, "run.service", sdbus.ModeReplace, sleeper())
			runJob(ctx, t, j, err)
			for n, text := range map[string]string{"idle.service": "[Service]\nExecStart=/bin/true\n", "t.target": "[Unit]\n"} {
				if err := os.WriteFile(filepath.Join(s.UnitDir(), n), []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			r := rawBus(t, s)
			r.mustManager(t, "MaskUnitFiles", []any{[]string{"masked.service"}, true, false}, new([]change))
			for _, tc := range []struct {
				name string
				mask []string
				want string
			}{
				{"bogus", []string{"all"}, invalid},
				{"none.service", []string{"all"}, noSuchUnit},
				{"masked.service", []string{"all"}, "org.freedesktop.systemd1.UnitMasked"},
				{"idle.service", []string{"bogus"}, invalid},
				{"idle.service", []string{"all", "bogus"}, invalid},
				{"t.target", []string{"bogus"}, invalid},
				{"t.target", []string{"all"}, notSupp},
				{"-.slice", []string{"all"}, notSupp},
				{"idle.service", nil, nothing},
				{"idle.service", []string{""}, nothing},
				{"idle.service", []string{"all"}, nothing},
				{"idle.service", []string{"state", "cache", "logs", "runtime", "configuration"}, nothing},
				{"idle.service", []string{"fdstore"}, rel.fdstore},
				{"run.service", []string{"all"}, busy},
				{"run.service", nil, nothing},
			} {
				if got := errName(r.manager("CleanUnit", []any{tc.name, tc.mask})); got != tc.want {
					t.Errorf("CleanUnit(%s, %q) = %q, want %q", tc.name, tc.mask, got, tc.want)
				}
			}
			// A unit loaded for the call alone is collected again.
			var p dbus.ObjectPath
			if got := errName(r.manager("GetUnit", []any{"idle.service"}, &p)); got != noSuchUnit {
				t.Errorf("GetUnit(idle.service) after CleanUnit = %q, want %q", got, noSuchUnit)
			}
		})
	}
}

// TestDumpUnitFileDescriptorStore: 257's answers; 252 lacks the method.
func TestDumpUnitFileDescriptorStore(t *testing.T) {
	for _, tc := range []struct {
		version, name, want string
	}{
		{"257.13-1~deb13u1", "run.service", "org.freedesktop.systemd1.FileDescriptorStoreDisabled"},
		{"257.13-1~deb13u1", "-.slice", "org.freedesktop.DBus.Error.NotSupported"},
		{"257.13-1~deb13u1", "none.service", "org.freedesktop.systemd1.NoSuchUnit"},
		{"257.13-1~deb13u1", "bogus", "org.freedesktop.systemd1.NoSuchUnit"},
		{"252.39-1~deb12u2", "run.service", "org.freedesktop.DBus.Error.UnknownMethod"},
	} {
		t.Run(tc.version+"/"+tc.name, func(t *testing.T) {
			s := fakebus.New(t, fakebus.WithVersion(tc.version))
			c := s.Conn(t)
			ctx := ctxFor(t)
			j, err := c.StartTransientUnit(ctx, "run.service", sdbus.ModeReplace, sleeper())
			runJob(ctx, t, j, err)
			var entries []struct {
				Name             string
				Type, Dev, Maj   uint32
				Ino              uint64
				RDevMaj, RDevMin uint32
				Path             string
				Flags            uint32
			}
			if got := errName(rawBus(t, s).manager("DumpUnitFileDescriptorStore", []any{tc.name}, &entries)); got != tc.want {
				t.Errorf("DumpUnitFileDescriptorStore(%s) = %q, want %q", tc.name, got, tc.want)
			}
		})
	}
}
