package fakebus_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/sdbus-go/sdbus/fakebus"
)

// TestAddDependencyUnitFiles: the calls in order, as error names ("" for
// success) with their change lists, as systemd 252 answered them (247
// for the invalid target).
func TestAddDependencyUnitFiles(t *testing.T) {
	for _, version := range []string{fakebus.DefaultVersion, "247.3-7+deb11u8"} {
		t.Run(version, func(t *testing.T) {
			s := fakebus.New(t, fakebus.WithVersion(version))
			r := rawBus(t, s)
			etc, run := s.UnitDir(), s.RuntimeUnitDir()
			file := outsideUnit(t, "a.service", installable)
			r.mustManager(t, "LinkUnitFiles", []any{[]string{file}, false, false}, new([]change))
			for n, text := range map[string]string{"t.target": "[Unit]\n", "static.service": "[Service]\nExecStart=/bin/true\n"} {
				if err := os.WriteFile(filepath.Join(etc, n), []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.Symlink("t.target", filepath.Join(etc, "talias.target")); err != nil {
				t.Fatal(err)
			}
			r.mustManager(t, "MaskUnitFiles", []any{[]string{"masked.target"}, false, false}, new([]change))
			badTarget := "org.freedesktop.systemd1.BadUnitSetting"
			if version != fakebus.DefaultVersion {
				badTarget = "org.freedesktop.DBus.Error.InvalidArgs"
			}
			const (
				invalid = "org.freedesktop.DBus.Error.InvalidArgs"
				noSuch  = "org.freedesktop.systemd1.NoSuchUnit"
			)
			for _, tc := range []struct {
				files       []string
				target, typ string
				runtime     bool
				want        string
				changes     []change
			}{
				{[]string{"a.service"}, "t.target", "Wants", false, "", []change{{"symlink", filepath.Join(etc, "t.target.wants/a.service"), file}}},
				{[]string{"a.service"}, "t.target", "Wants", false, "", []change{}},
				{[]string{"a.service"}, "t.target", "Requires", false, "", []change{{"symlink", filepath.Join(etc, "t.target.requires/a.service"), file}}},
				{[]string{"a.service", "static.service"}, "none.target", "Requires", true, noSuch, nil},
				{[]string{"a.service", "static.service"}, "t.target", "Requires", true, "", []change{
					{"symlink", filepath.Join(run, "a.service"), file},
					{"symlink", filepath.Join(run, "t.target.requires/a.service"), file},
					{"symlink", filepath.Join(run, "t.target.requires/static.service"), filepath.Join(etc, "static.service")},
				}},
				{[]string{"static.service"}, "talias.target", "Wants", false, "", []change{{"symlink", filepath.Join(etc, "t.target.wants/static.service"), filepath.Join(etc, "static.service")}}},
				{[]string{"a.service"}, "t.target", "After", false, invalid, nil},
				{[]string{"a.service"}, "t.target", "wants", false, invalid, nil},
				{[]string{"bogus"}, "bogus", "Bogus", false, invalid, nil},
				{[]string{"bogus"}, "bogus", "Wants", false, badTarget, nil},
				{[]string{"none.service"}, "none.target", "Wants", false, noSuch, nil},
				{[]string{"a.service"}, "masked.target", "Wants", false, "org.freedesktop.systemd1.UnitMasked", nil},
				{[]string{"none.service"}, "t.target", "Wants", false, noSuch, nil},
				{[]string{"bogus"}, "t.target", "Wants", false, invalid, nil},
				{[]string{"/nowhere/x.service"}, "t.target", "Wants", false, noSuch, nil},
				{[]string{}, "t.target", "Wants", false, "", []change{}},
			} {
				var got []change
				err := r.manager("AddDependencyUnitFiles", []any{tc.files, tc.target, tc.typ, tc.runtime, false}, &got)
				if name := errName(err); name != tc.want {
					t.Errorf("AddDependencyUnitFiles(%v, %s, %s, runtime %v) = %q, want %q", tc.files, tc.target, tc.typ, tc.runtime, name, tc.want)
					continue
				}
				if err != nil {
					continue
				}
				if diff := cmp.Diff(sortedChanges(tc.changes), sortedChanges(got)); diff != "" {
					t.Errorf("AddDependencyUnitFiles(%v, %s, %s, runtime %v): changes (-want +got):\n%s", tc.files, tc.target, tc.typ, tc.runtime, diff)
				}
			}
			var st string
			r.mustManager(t, "GetUnitFileState", []any{"static.service"}, &st)
			if st != "enabled" {
				t.Errorf("static.service after AddDependencyUnitFiles: %s, want enabled", st)
			}
		})
	}
}

// TestDisableWithInstallInfo: DisableUnitFilesWithFlagsAndInstallInfo as
// 257 answers it: the changes of DisableUnitFiles and whether a unit has
// install information; force and unknown flags are refused. 252 lacks it.
func TestDisableWithInstallInfo(t *testing.T) {
	s := fakebus.New(t, fakebus.WithVersion("257.13-1~deb13u1"))
	r := rawBus(t, s)
	etc := s.UnitDir()
	for n, text := range map[string]string{"inst.service": installable, "static.service": "[Service]\nExecStart=/bin/true\n"} {
		if err := os.WriteFile(filepath.Join(etc, n), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	noinst := outsideUnit(t, "noinst.service", "[Service]\nExecStart=/bin/true\n")
	r.mustManager(t, "LinkUnitFiles", []any{[]string{noinst}, false, false}, new([]change))
	r.mustManager(t, "EnableUnitFiles", []any{[]string{"inst.service"}, false, false}, new(bool), new([]change))
	const invalid = "org.freedesktop.DBus.Error.InvalidArgs"
	for _, tc := range []struct {
		names   []string
		flags   uint64
		want    string
		carries bool
		changes []change
	}{
		{[]string{"static.service"}, 0, "", false, []change{}},
		{[]string{"inst.service"}, 0, "", true, []change{{"unlink", filepath.Join(etc, "multi-user.target.wants/inst.service"), ""}}},
		{[]string{"inst.service", "static.service"}, 4, "", true, []change{}},
		{[]string{"inst.service"}, 1, "", true, []change{}},
		{[]string{"noinst.service"}, 0, "", true, []change{{"unlink", filepath.Join(etc, "noinst.service"), ""}}},
		{[]string{"inst.service"}, 2, invalid, false, nil},
		{[]string{"inst.service"}, 16, invalid, false, nil},
		{[]string{"none.service"}, 0, "org.freedesktop.systemd1.NoSuchUnit", false, nil},
		{[]string{"bogus"}, 0, "org.freedesktop.systemd1.BadUnitSetting", false, nil},
	} {
		var carries bool
		var got []change
		err := r.manager("DisableUnitFilesWithFlagsAndInstallInfo", []any{tc.names, tc.flags}, &carries, &got)
		if name := errName(err); name != tc.want {
			t.Errorf("DisableUnitFilesWithFlagsAndInstallInfo(%v, %d) = %q, want %q", tc.names, tc.flags, name, tc.want)
			continue
		}
		if err != nil {
			continue
		}
		if carries != tc.carries {
			t.Errorf("DisableUnitFilesWithFlagsAndInstallInfo(%v): carries install info %v, want %v", tc.names, carries, tc.carries)
		}
		if diff := cmp.Diff(tc.changes, got); diff != "" {
			t.Errorf("DisableUnitFilesWithFlagsAndInstallInfo(%v): changes (-want +got):\n%s", tc.names, diff)
		}
	}
	old := rawBus(t, fakebus.New(t, fakebus.WithVersion("252.39-1~deb12u2")))
	if got := errName(old.manager("DisableUnitFilesWithFlagsAndInstallInfo", []any{[]string{"x.service"}, uint64(0)})); got != "org.freedesktop.DBus.Error.UnknownMethod" {
		t.Errorf("on 252: %q, want UnknownMethod", got)
	}
}
