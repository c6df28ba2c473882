package fakebus_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/google/go-cmp/cmp"
	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus"
)

// TestUnitFileSettings: unit files in the unit directory load with the
// settings the fake understands; what it does not know is ignored.
func TestUnitFileSettings(t *testing.T) {
	type want struct {
		load        string
		description string
		wants       []string
		typ         string
		remain      bool
		killMode    string
		result      sdbus.JobResult // of a start job; "" to not start
	}
	cases := []struct {
		name string
		text string
		want want
	}{
		{"full", `# a comment
; another
[Unit]
Description=  a   service  
Wants=a.service b.service
Wants=c.service
After=a.service
Frobnicate=yes

[Service]
Type=oneshot
RemainAfterExit=yes
KillMode=mixed
ExecStart=/bin/true
Environment="A=1 2" B=3
MemoryMax=1G

[Install]
WantedBy=multi-user.target
`, want{"loaded", "a   service", []string{"a.service", "b.service", "c.service"}, "oneshot", true, "mixed", sdbus.JobDone}},
		{"empty assignment resets a list", "[Unit]\nWants=a.service\nWants=\nWants=b.service\n[Service]\nExecStart=/bin/true\n",
			want{"loaded", "", []string{"b.service"}, "simple", false, "control-group", ""}},
		{"continuation line and quotes", "[Service]\nType=oneshot\nExecStart=/bin/sh \\\n  -c \"exit 3\"\n",
			want{"loaded", "", []string{}, "oneshot", false, "control-group", sdbus.JobFailed}},
		{"a value it cannot use is ignored", "[Service]\nType=bogus\nRemainAfterExit=maybe\nExecStart=/bin/true\n",
			want{"loaded", "", []string{}, "simple", false, "control-group", ""}},
		{"setting in the wrong section is ignored", "[Unit]\nType=oneshot\n[Service]\nDescription=no\nExecStart=/bin/true\n",
			want{"loaded", "", []string{}, "simple", false, "control-group", ""}},
		{"service without ExecStart", "[Unit]\nDescription=x\n[Service]\nType=oneshot\n",
			want{"bad-setting", "x", []string{}, "oneshot", false, "control-group", ""}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			s := fakebus.New(t)
			c := s.Conn(t)
			if err := os.WriteFile(filepath.Join(s.UnitDir(), "app.service"), []byte(tc.text), 0o644); err != nil {
				t.Fatal(err)
			}
			raw := s.RawConn(t)
			obj := raw.Object("org.freedesktop.systemd1", sdbus.UnitPath("app.service"))
			var got want
			all := map[string]map[string]dbus.Variant{}
			for _, iface := range []string{"org.freedesktop.systemd1.Unit", "org.freedesktop.systemd1.Service"} {
				var m map[string]dbus.Variant
				if err := obj.CallWithContext(ctx, "org.freedesktop.DBus.Properties.GetAll", 0, iface).Store(&m); err != nil {
					t.Fatal(err)
				}
				all[iface] = m
			}
			u, s2 := all["org.freedesktop.systemd1.Unit"], all["org.freedesktop.systemd1.Service"]
			got.load, _ = u["LoadState"].Value().(string)
			got.description, _ = u["Description"].Value().(string)
			got.wants, _ = u["Wants"].Value().([]string)
			got.typ, _ = s2["Type"].Value().(string)
			got.remain, _ = s2["RemainAfterExit"].Value().(bool)
			got.killMode, _ = s2["KillMode"].Value().(string)
			if tc.want.description == "" {
				got.description = "" // defaults to the name
			}
			if tc.want.result != "" {
				j, err := c.StartUnit(ctx, "app.service", sdbus.ModeReplace)
				if err != nil {
					t.Fatal(err)
				}
				got.result, _ = j.Wait(ctx)
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("unit (-want +got):\n%s", diff)
			}
		})
	}
}

// TestUnitDirOptions: a configured unit directory is used and kept; the
// default one is removed on Close; the host's directories are refused.
func TestUnitDirOptions(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "units")
	s, err := fakebus.Start(fakebus.WithUnitDir(dir))
	if err != nil {
		t.Fatal(err)
	}
	if s.UnitDir() != dir {
		t.Errorf("UnitDir = %s, want %s", s.UnitDir(), dir)
	}
	tmp := s.RuntimeUnitDir()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); err != nil {
		t.Errorf("the configured unit directory is gone after Close: %v", err)
	}
	if _, err := os.Stat(tmp); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the temporary runtime unit directory %s is left after Close: %v", tmp, err)
	}
	if hostRunsSystemd() {
		for _, host := range []string{"/etc/systemd/system", "/run/systemd/system", "/lib/systemd/system", "/usr/lib/systemd/system"} {
			if s, err := fakebus.Start(fakebus.WithRuntimeUnitDir(host)); err == nil {
				s.Close()
				t.Errorf("Start with the host's %s succeeded", host)
			}
		}
	} else {
		t.Log("systemd does not run this host: its unit directories are not refused (not checked)")
	}
	if s, err := fakebus.Start(fakebus.WithUnitDir(dir), fakebus.WithRuntimeUnitDir(dir)); err == nil {
		s.Close()
		t.Errorf("Start with one directory for both succeeded")
	}
}

// hostRunsSystemd reports whether systemd runs this host (PID 1, or its
// private socket exists): the fake then refuses its directories.
func hostRunsSystemd() bool {
	if comm, err := os.ReadFile("/proc/1/comm"); err == nil && strings.TrimSpace(string(comm)) == "systemd" {
		return true
	}
	_, err := os.Stat("/run/systemd/private")
	return err == nil
}

// TestUnitFileStateFixedByGetOnly: a unit's UnitFileState is fixed when a
// client reads it (Get, or GetAll of Unit), not by a Set of it (refused:
// the property is read-only) nor by reading another property: a Set
// before EnableUnitFiles leaves the Get after it to say enabled (busctl
// on 252 and 262).
func TestUnitFileStateFixedByGetOnly(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s := fakebus.New(t)
	c := s.Conn(t)
	text := "[Service]\nExecStart=/bin/sleep 1000\n[Install]\nWantedBy=multi-user.target\n"
	if err := os.WriteFile(filepath.Join(s.UnitDir(), "ro.service"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	// Loaded for good: started.
	j, err := c.StartUnit(ctx, "ro.service", sdbus.ModeReplace)
	if err != nil {
		t.Fatal(err)
	}
	if r, err := j.Wait(ctx); err != nil || r != sdbus.JobDone {
		t.Fatalf("start job: %v, %v", r, err)
	}
	obj := s.RawConn(t).Object("org.freedesktop.systemd1", sdbus.UnitPath("ro.service"))
	const unitIface = "org.freedesktop.systemd1.Unit"
	if err := obj.CallWithContext(ctx, "org.freedesktop.DBus.Properties.Get", 0, unitIface, "Description").Err; err != nil {
		t.Fatal(err)
	}
	err = obj.CallWithContext(ctx, "org.freedesktop.DBus.Properties.Set", 0, unitIface, "UnitFileState", dbus.MakeVariant("masked")).Err
	var de dbus.Error
	if !errors.As(err, &de) || de.Name != "org.freedesktop.DBus.Error.PropertyReadOnly" {
		t.Errorf("Set UnitFileState: %v, want PropertyReadOnly", err)
	}
	if _, _, err := c.EnableUnitFiles(ctx, []string{"ro.service"}, 0); err != nil {
		t.Fatal(err)
	}
	var got string
	if err := obj.CallWithContext(ctx, "org.freedesktop.DBus.Properties.Get", 0, unitIface, "UnitFileState").Store(&got); err != nil {
		t.Fatal(err)
	}
	if got != "enabled" {
		t.Errorf("UnitFileState first read after EnableUnitFiles = %q, want enabled", got)
	}
}
