package fakebus_test

import (
	"encoding/xml"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/godbus/dbus/v5"
	"github.com/godbus/dbus/v5/introspect"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
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

// TestPropertiesCaptured: every property a captured release answered
// for the manager, a job and a unit of each type (internal/sdversions/data),
// the fake playing that release answers with the same signature through
// Get, GetAll of its interface and GetAll(""), and its introspection lists
// it with that type; GetAll("") answers exactly the names systemd's did
// (262's hidden cgroup-v1 settings left out, still answered by Get). A
// value that is the same on every boot, and that the fake does not model
// (modeledProps), is the captured one; a usage counter is infinity (not
// measured), as on a unit that never ran.
func TestPropertiesCaptured(t *testing.T) {
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
			s := fakebus.New(t, fakebus.WithVersion(capt.Release),
				fakebus.WithUnitFile(fakebus.UnitFile{
					Name: "capture-job.service",
					Properties: []sdbus.Property{
						sdbus.PropType(sdbus.ServiceOneshot), sdbus.PropExecStart([]string{"/bin/sleep", "600"}, false),
					},
				}),
				fakebus.WithUnitFile(fakebus.UnitFile{
					Name:       "capture-file.service",
					Properties: []sdbus.Property{sdbus.PropExecStart([]string{"/bin/sleep", "infinity"}, false)},
				}))
			c := s.Conn(t)
			ctx := ctxFor(t)
			j, err := c.StartTransientUnit(ctx, "capture-service.service", sdbus.ModeReplace, sleeper())
			runJob(ctx, t, j, err)
			j, err = c.StartTransientUnit(ctx, "capture.slice", sdbus.ModeReplace, nil)
			runJob(ctx, t, j, err)
			r := rawBus(t, s)
			var job dbus.ObjectPath
			r.mustManager(t, "StartUnit", []any{"capture-job.service", "replace"}, &job)
			r.mustManager(t, "LoadUnit", []any{"capture-file.service"}, new(dbus.ObjectPath))
			for kind, path := range map[string]dbus.ObjectPath{
				"manager":      managerPath,
				"job":          job,
				"service":      sdbus.UnitPath("capture-service.service"),
				"service-file": sdbus.UnitPath("capture-file.service"),
				"slice":        sdbus.UnitPath("capture.slice"),
				"target":       sdbus.UnitPath("multi-user.target"),
				"scope":        sdbus.UnitPath("init.scope"),
				// Units the fake does not make: answered as not found.
				"socket":    sdbus.UnitPath("capture-socket.socket"),
				"mount":     sdbus.UnitPath("run-capture.mount"),
				"swap":      sdbus.UnitPath("run-captureswap.swap"),
				"timer":     sdbus.UnitPath("capture-timer.timer"),
				"path":      sdbus.UnitPath("capture-path.path"),
				"automount": sdbus.UnitPath("run-captureauto.automount"),
				"device":    sdbus.UnitPath("dev-capture.device"),
			} {
				t.Run(kind, func(t *testing.T) {
					checkCapturedProps(t, r, path, capt.Objects[kind], modeledProps(kind))
				})
			}
		})
	}
}

// modeledProps are the properties whose value the fake's model gives an
// object of a captured kind as it makes it in TestPropertiesCaptured, which
// differs from the captured object's: the state it is in, what it was made
// from, the type's settings the fake models.
func modeledProps(kind string) map[string]bool {
	out := map[string]bool{}
	for _, n := range strings.Fields(modeled[kind]) {
		out[n] = true
	}
	if kind != "manager" && kind != "job" {
		for _, n := range strings.Fields(modeled["unit"]) {
			out[n] = true
		}
	}
	return out
}

var modeled = map[string]string{
	// The manager's logging as the fake sets it, its features (no
	// SELinux, the hierarchy).
	"manager": `LogTarget DefaultStandardError Features`,
	// The fake's job has finished starting, systemd's was running.
	"job": `State`,
	// The state of each unit as the fake made it (multi-user.target,
	// init.scope; the types it does not make are not found).
	"unit": `LoadState ActiveState SubState UnitFileState CanStart CanStop CanReload
		AssertResult ConditionResult Transient Slice`,
	// TasksMax: the fake's limit is infinity, systemd's a share of the
	// host's (DefaultTasksMax=15%).
	"service":      `TasksMax`,
	"service-file": `TasksMax`,
	"scope":        `TasksMax`,
	"slice":        `TasksMax`,
	"mount":        `TasksMax UnitFilePreset`,
	// Units the fake does not make are not found: no preset, as on
	// systemd (the captured ones were loaded from files).
	"target": `UnitFilePreset`, "socket": `UnitFilePreset`, "swap": `UnitFilePreset`,
	"timer": `UnitFilePreset`, "path": `UnitFilePreset`, "automount": `UnitFilePreset`,
}

// checkCapturedProps checks the properties of the object at path against
// the captured object want (TestPropertiesCaptured).
func checkCapturedProps(t *testing.T, r *raw, path dbus.ObjectPath, want *sdversions.Object, modeled map[string]bool) {
	t.Helper()
	if want == nil {
		t.Fatal("not captured")
	}
	obj := r.Object(systemd1, path)
	getAll := func(iface string) map[string]dbus.Variant {
		call := obj.Call("org.freedesktop.DBus.Properties.GetAll", 0, iface)
		if call.Err != nil {
			t.Fatalf("GetAll(%q): %v", iface, call.Err)
		}
		// Read as decoded: Store loses the signature of empty arrays of
		// structs.
		m, ok := call.Body[0].(map[string]dbus.Variant)
		if !ok {
			t.Fatalf("GetAll(%q) answered %T", iface, call.Body[0])
		}
		return m
	}
	all := getAll("")
	names := make([]string, 0, len(all))
	for n := range all {
		names = append(names, n)
	}
	sort.Strings(names)
	if diff := cmp.Diff(want.GetAllEmpty, names, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("GetAll(\"\") names (-want +got):\n%s", diff)
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
		for _, p := range i.Properties {
			introspected[i.Name+"."+p.Name] = p.Type
		}
	}
	ifaces := map[string]map[string]dbus.Variant{}
	wantSig, gotSig := map[string]string{}, map[string]string{}
	wantVal, gotVal := map[string]string{}, map[string]string{}
	check := func(p sdversions.Prop, listed bool) {
		key := p.Interface + "." + p.Name
		wantSig[key] = p.Type
		var v dbus.Variant
		if err := obj.Call("org.freedesktop.DBus.Properties.Get", 0, p.Interface, p.Name).Store(&v); err != nil {
			gotSig[key] = "Get: " + err.Error()
			return
		}
		sig := v.Signature().String()
		if listed {
			if ifaces[p.Interface] == nil {
				ifaces[p.Interface] = getAll(p.Interface)
			}
			for what, m := range map[string]map[string]dbus.Variant{"GetAll": ifaces[p.Interface], `GetAll("")`: all} {
				if w, ok := m[p.Name]; !ok || w.Signature().String() != sig {
					sig += " " + what + ": " + w.Signature().String()
				}
			}
			if introspected[key] != v.Signature().String() {
				sig += " Introspect: " + introspected[key]
			}
		}
		gotSig[key] = sig
		value := string(p.Value)
		if p.Varies == "usage" && p.Type == "t" {
			value = "18446744073709551615" // not measured, as never run
		} else if p.Varies != "" || modeled[p.Name] || strings.Contains(value, "capture") {
			return
		}
		got, err := sdversions.ValueJSON(v)
		if err != nil {
			t.Fatalf("%s: %v", key, err)
		}
		wantVal[key], gotVal[key] = value, string(got)
	}
	for _, p := range want.Properties {
		check(p, true)
	}
	for _, p := range want.GetOnly {
		check(p, false)
	}
	if diff := cmp.Diff(wantSig, gotSig); diff != "" {
		t.Errorf("signatures (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantVal, gotVal); diff != "" {
		t.Errorf("values (-want +got):\n%s", diff)
	}
}
