package fakebus_test

import (
	"encoding/xml"
	"fmt"
	"os"
	"testing"

	"github.com/godbus/dbus/v5"
	"github.com/godbus/dbus/v5/introspect"
	"github.com/google/go-cmp/cmp"
	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus"
	"github.com/sdbus-go/sdbus/fakebus/internal/sdversions"
)

// TestIntrospectCapturedMethods compares, for every captured release
// (internal/sdversions/data), the methods (with their arguments and
// annotations) and the signals of each interface the fake's Introspect
// lists for the manager, a job and a unit of each type with what that
// release's systemd answered. Properties are not compared here.
func TestIntrospectCapturedMethods(t *testing.T) {
	fsys := os.DirFS("internal/sdversions")
	releases, err := sdversions.CapturedReleases(fsys)
	if err != nil || len(releases) == 0 {
		t.Fatalf("captured releases: %v, %v", releases, err)
	}
	for _, major := range releases {
		t.Run(major, func(t *testing.T) {
			capt, err := sdversions.LoadCapture(fsys, major)
			if err != nil {
				t.Fatal(err)
			}
			s := fakebus.New(t, fakebus.WithVersion(capt.Release), fakebus.WithUnitFile(fakebus.UnitFile{
				Name: "capture-job.service",
				Properties: []sdbus.Property{
					sdbus.PropType(sdbus.ServiceOneshot), sdbus.PropExecStart([]string{"/bin/sleep", "600"}, false),
				},
			}))
			c := s.Conn(t)
			ctx := ctxFor(t)
			j, err := c.StartTransientUnit(ctx, "capture-service.service", sdbus.ModeReplace, sleeper())
			runJob(ctx, t, j, err)
			j, err = c.StartTransientUnit(ctx, "capture-slice.slice", sdbus.ModeReplace, nil)
			runJob(ctx, t, j, err)
			r := rawBus(t, s)
			var job dbus.ObjectPath
			r.mustManager(t, "StartUnit", []any{"capture-job.service", "replace"}, &job)
			for kind, path := range map[string]dbus.ObjectPath{
				"manager": managerPath,
				"service": sdbus.UnitPath("capture-service.service"),
				"job":     job,
				"slice":   sdbus.UnitPath("capture-slice.slice"),
				"target":  sdbus.UnitPath("multi-user.target"),
				"scope":   sdbus.UnitPath("init.scope"),
				// Units the fake does not make: their objects' interfaces
				// and methods all the same.
				"socket":    sdbus.UnitPath("capture-socket.socket"),
				"mount":     sdbus.UnitPath("capture\\x2dmount.mount"),
				"swap":      sdbus.UnitPath("capture.swap"),
				"timer":     sdbus.UnitPath("capture-timer.timer"),
				"path":      sdbus.UnitPath("capture-path.path"),
				"automount": sdbus.UnitPath("capture.automount"),
				"device":    sdbus.UnitPath("dev-capture.device"),
			} {
				want := capt.Objects[kind]
				if want == nil {
					t.Fatalf("no captured %s", kind)
				}
				var data string
				if err := r.Object(systemd1, path).Call("org.freedesktop.DBus.Introspectable.Introspect", 0).Store(&data); err != nil {
					t.Fatal(err)
				}
				var got introspect.Node
				if err := xml.Unmarshal([]byte(data), &got); err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(members(want.Node), members(&got)); diff != "" {
					t.Errorf("%s's methods and signals (-want +got):\n%s", kind, diff)
				}
			}
		})
	}
}

// members lists each interface's methods and signals of an introspection
// node as one line each.
func members(n *introspect.Node) map[string][]string {
	out := map[string][]string{}
	for _, i := range n.Interfaces {
		var l []string
		for _, m := range i.Methods {
			s := "method " + m.Name + "("
			for _, a := range m.Args {
				s += fmt.Sprintf(" %s %s %s", a.Direction, a.Name, a.Type)
			}
			s += " )"
			for _, a := range m.Annotations {
				s += " @" + a.Name + "=" + a.Value
			}
			l = append(l, s)
		}
		for _, sg := range i.Signals {
			s := "signal " + sg.Name + "("
			for _, a := range sg.Args {
				s += fmt.Sprintf(" %s %s", a.Name, a.Type)
			}
			l = append(l, s+" )")
		}
		out[i.Name] = l
	}
	return out
}

// TestManagerPropertiesCaptured: every Manager property a captured
// release's GetAll answered, the fake playing that release answers with
// the same signature through Get, GetAll of the interface and GetAll(""),
// and its introspection lists it with that type.
func TestManagerPropertiesCaptured(t *testing.T) {
	fsys := os.DirFS("internal/sdversions")
	releases, err := sdversions.CapturedReleases(fsys)
	if err != nil || len(releases) == 0 {
		t.Fatalf("captured releases: %v, %v", releases, err)
	}
	for _, major := range releases {
		t.Run(major, func(t *testing.T) {
			capt, err := sdversions.LoadCapture(fsys, major)
			if err != nil {
				t.Fatal(err)
			}
			s := fakebus.New(t, fakebus.WithVersion(capt.Release))
			obj := rawBus(t, s).Object(systemd1, managerPath)
			var iface, all map[string]dbus.Variant
			if err := obj.Call("org.freedesktop.DBus.Properties.GetAll", 0, managerIface).Store(&iface); err != nil {
				t.Fatal(err)
			}
			if err := obj.Call("org.freedesktop.DBus.Properties.GetAll", 0, "").Store(&all); err != nil {
				t.Fatal(err)
			}
			var data string
			if err := obj.Call("org.freedesktop.DBus.Introspectable.Introspect", 0).Store(&data); err != nil {
				t.Fatal(err)
			}
			var node introspect.Node
			if err := xml.Unmarshal([]byte(data), &node); err != nil {
				t.Fatal(err)
			}
			introspected := map[string]string{}
			for _, i := range node.Interfaces {
				if i.Name == managerIface {
					for _, p := range i.Properties {
						introspected[p.Name] = p.Type
					}
				}
			}
			want, got := map[string]string{}, map[string]string{}
			for _, p := range capt.Objects["manager"].Properties {
				if p.Interface != managerIface {
					continue
				}
				want[p.Name] = p.Type
				var v dbus.Variant
				if err := obj.Call("org.freedesktop.DBus.Properties.Get", 0, managerIface, p.Name).Store(&v); err != nil {
					got[p.Name] = "Get: " + err.Error()
					continue
				}
				sig := v.Signature().String()
				for what, m := range map[string]map[string]dbus.Variant{"GetAll": iface, `GetAll("")`: all} {
					if w, ok := m[p.Name]; !ok || w.Signature().String() != sig {
						sig += " " + what + ": " + w.Signature().String()
					}
				}
				if introspected[p.Name] != v.Signature().String() {
					sig += " Introspect: " + introspected[p.Name]
				}
				got[p.Name] = sig
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Manager properties (-want +got):\n%s", diff)
			}
		})
	}
}
