package fakebus_test

import (
	"os"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/godbus/dbus/v5"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus"
	"github.com/sdbus-go/sdbus/fakebus/internal/sdversions"
)

// forEachCapture runs f in a subtest for each captured release
// (internal/sdversions/data), with its capture.
func forEachCapture(t *testing.T, f func(t *testing.T, capt *sdversions.Capture)) {
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
			f(t, capt)
		})
	}
}

// capturedObjects starts a fake playing capt's release, makes its units
// as the capture made them (data/README.md), and returns the fake, a raw
// connection to it, and the path of each captured object kind: the
// manager, a running job, a unit of each type, the inner nodes of the
// tree. The units from files are made from the capture's unit files
// (sdversions.CaptureUnitFiles) in the fake's runtime unit directory.
func capturedObjects(t *testing.T, capt *sdversions.Capture) (*fakebus.Server, *raw, map[string]dbus.ObjectPath) {
	t.Helper()
	s := fakebus.New(t, fakebus.WithVersion(capt.Release))
	writeRuntimeUnits(t, s, sdversions.CaptureUnitFiles)
	c := s.Conn(t)
	ctx := ctxFor(t)
	if err := c.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"capture.target", "capture-socket.socket", "capture-timer.timer", "capture-path.path", "run-capture.mount"} {
		j, err := c.StartUnit(ctx, name, sdbus.ModeReplace)
		runJob(ctx, t, j, err)
	}
	j, err := c.StartTransientUnit(ctx, "capture-service.service", sdbus.ModeReplace, sleeper())
	runJob(ctx, t, j, err)
	j, err = c.StartTransientUnit(ctx, "capture.slice", sdbus.ModeReplace, nil)
	runJob(ctx, t, j, err)
	j, err = c.StartTransientUnit(ctx, "capture-scope.scope", sdbus.ModeReplace, []sdbus.Property{sdbus.PropPIDs(uint32(os.Getpid()))})
	runJob(ctx, t, j, err)
	r := rawBus(t, s)
	var job dbus.ObjectPath
	r.mustManager(t, "StartUnit", []any{"capture-job.service", "replace"}, &job)
	for _, name := range []string{"capture-file.service", "run-captureauto.automount", "run-captureswap.swap", "dev-capture.device"} {
		r.mustManager(t, "LoadUnit", []any{name}, new(dbus.ObjectPath))
	}
	return s, r, map[string]dbus.ObjectPath{
		"manager":          managerPath,
		"job":              job,
		"service":          sdbus.UnitPath("capture-service.service"),
		"service-file":     sdbus.UnitPath("capture-file.service"),
		"slice":            sdbus.UnitPath("capture.slice"),
		"target":           sdbus.UnitPath("capture.target"),
		"scope":            sdbus.UnitPath("capture-scope.scope"),
		"socket":           sdbus.UnitPath("capture-socket.socket"),
		"mount":            sdbus.UnitPath("run-capture.mount"),
		"swap":             sdbus.UnitPath("run-captureswap.swap"),
		"timer":            sdbus.UnitPath("capture-timer.timer"),
		"path":             sdbus.UnitPath("capture-path.path"),
		"automount":        sdbus.UnitPath("run-captureauto.automount"),
		"device":           sdbus.UnitPath("dev-capture.device"),
		"node-root":        "/",
		"node-org":         "/org",
		"node-freedesktop": "/org/freedesktop",
		"node-unit":        managerPath + "/unit",
		"node-job":         managerPath + "/job",
	}
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
	forEachCapture(t, func(t *testing.T, capt *sdversions.Capture) {
		s, r, objects := capturedObjects(t, capt)
		for kind, path := range objects {
			if strings.HasPrefix(kind, "node-") {
				continue // no properties
			}
			t.Run(kind, func(t *testing.T) {
				checkCapturedProps(t, r, path, capt.Objects[kind], modeledProps(kind), s.RuntimeUnitDir())
				if strings.Contains(modeled[kind], "TasksMax") {
					checkTasksMax(t, r, path, capt, kind)
				}
			})
		}
	})
}

// checkTasksMax: a unit's TasksMax, when it sets none, is the manager's
// DefaultTasksMax, on the captured release (a share of the host's) and on
// the fake.
func checkTasksMax(t *testing.T, r *raw, path dbus.ObjectPath, capt *sdversions.Capture, kind string) {
	t.Helper()
	var typeIface string
	value := func(o *sdversions.Object, name string) string {
		for _, p := range o.Properties {
			if p.Name == name {
				typeIface = p.Interface
				return string(p.Value)
			}
		}
		return "absent"
	}
	got := value(capt.Objects[kind], "TasksMax")
	iface := typeIface
	if want := value(capt.Objects["manager"], "DefaultTasksMax"); got != want {
		t.Errorf("captured: TasksMax %s, DefaultTasksMax %s", got, want)
	}
	var tasks, def dbus.Variant
	if err := r.Object(systemd1, path).Call("org.freedesktop.DBus.Properties.Get", 0, iface, "TasksMax").Store(&tasks); err != nil {
		t.Fatalf("TasksMax of %s: %v", iface, err)
	}
	if err := r.Object(systemd1, managerPath).Call("org.freedesktop.DBus.Properties.Get", 0, managerIface, "DefaultTasksMax").Store(&def); err != nil {
		t.Fatal(err)
	}
	if tasks.Value() != def.Value() {
		t.Errorf("TasksMax %v, want DefaultTasksMax %v", tasks, def)
	}
}

// modeledProps are the properties whose value the fake gives an object
// of a captured kind as TestPropertiesCaptured makes it otherwise than
// systemd gave the captured object (modeled), each for a stated reason.
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

// varies are the captured values marked as differing from boot to boot
// (sdversions.Prop.Varies), which the test does not compare, and why. A
// usage counter is compared (infinity, as never run), a dependency list
// ("order") too, sorted.
var varies = map[string]string{
	"time":  "timestamps: when the sandbox booted and the unit changed state, the timers' next elapse",
	"pid":   "PIDs, and the commands' runtime records once they ran",
	"id":    "InvocationID, ControlGroupId, a job's Id, a unit's Job: numbered or random per boot",
	"count": "the manager's counts of units and jobs, Progress, SystemState: what the sandbox had loaded",
	"host":  "what the machine decides: architecture, virtualization, taint, resource limits, Effective* limits, the manager's cgroup, environment and unit path",
	"usage": "compared as not measured (infinity)",
	"order": "compared sorted",
}

// modeled lists, by captured kind, the properties whose values the fake
// gives otherwise, and why; the rest of the captured values are compared.
// The differences that concern clients are in docs/fakesystemd.md, "Known
// differences".
var modeled = map[string]string{
	// The manager's log target (the sandbox's systemd logs to the console
	// it was given; the fake answers journal-or-kmsg, as on a booted
	// host).
	"manager": `LogTarget`,
	// A mount's Options are the kernel's (rw,relatime in the capture's
	// sandbox); the fake mounts nothing: its Options are its unit file's.
	// TasksMax: a unit's default is the manager's DefaultTasksMax, 15%
	// of what the host allows: the captured host's, not this one's
	// (TestPropertiesCaptured checks that a unit answers the fake's
	// DefaultTasksMax, conformance DefaultTasksMax the share); a slice's
	// is infinity on both.
	"service":      `TasksMax`,
	"service-file": `TasksMax`,
	"scope":        `TasksMax`,
	"mount":        `TasksMax Options`,
}

// checkCapturedProps checks the properties of the object at path against
// the captured object want (TestPropertiesCaptured). A path in the fake's
// runtime unit directory, runtimeDir, compares as the same path in
// systemd's, /run/systemd/system.
func checkCapturedProps(t *testing.T, r *raw, path dbus.ObjectPath, want *sdversions.Object, modeled map[string]bool, runtimeDir string) {
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
	node := introspectNode(t, obj)
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
		switch {
		case modeled[p.Name]:
			return
		case p.Varies == "usage" && p.Type == "t":
			value = "18446744073709551615" // not measured, as never run
		case p.Varies == "order":
			// Recorded sorted (systemd gives them in hash order): compared
			// sorted.
		case p.Varies != "":
			if _, ok := varies[p.Varies]; !ok {
				t.Errorf("%s: varies %q, which the test does not know", key, p.Varies)
			}
			return
		}
		if p.Varies == "order" {
			var l []string
			if err := v.Store(&l); err == nil {
				sort.Strings(l)
				v = dbus.MakeVariant(l)
			}
		}
		if s, ok := v.Value().(string); ok && strings.HasPrefix(s, runtimeDir+"/") {
			v = dbus.MakeVariant("/run/systemd/system" + strings.TrimPrefix(s, runtimeDir))
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

// TestIntrospectCaptured compares, for every captured release, the whole
// introspection XML the fake answers for each captured object kind (the
// manager, a job, a unit of each type, the inner nodes of the tree) with
// the one that release's systemd answered, line by line: interfaces,
// members, their order, signatures, access and annotations, child nodes.
// The children of .../unit and .../job are the objects the fake and the
// sandbox had at that moment: those lists are checked for what the fake
// made, not against the capture.
func TestIntrospectCaptured(t *testing.T) {
	forEachCapture(t, func(t *testing.T, capt *sdversions.Capture) {
		_, r, objects := capturedObjects(t, capt)
		for kind, path := range objects {
			t.Run(kind, func(t *testing.T) {
				want := capt.Objects[kind]
				if want == nil {
					t.Fatal("not captured")
				}
				var data string
				if err := r.Object(systemd1, path).Call("org.freedesktop.DBus.Introspectable.Introspect", 0).Store(&data); err != nil {
					t.Fatal(err)
				}
				wantLines, wantKids := xmlLines(want.XML)
				gotLines, gotKids := xmlLines(data)
				if diff := cmp.Diff(wantLines, gotLines); diff != "" {
					t.Errorf("Introspect (-want +got):\n%s", diff)
				}
				switch kind {
				case "node-unit":
					// The sandbox's loaded units; the fake's are its own.
					for _, u := range []string{"capture_2dservice_2eservice", "capture_2djob_2eservice", "init_2escope"} {
						if !slices.Contains(gotKids, u) {
							t.Errorf("child nodes %v lack %s", gotKids, u)
						}
					}
				case "node-job":
					if diff := cmp.Diff([]string{strings.TrimPrefix(string(objects["job"]), string(managerPath)+"/job/")}, gotKids); diff != "" {
						t.Errorf("child nodes (-want +got):\n%s", diff)
					}
				default:
					if diff := cmp.Diff(wantKids, gotKids); diff != "" {
						t.Errorf("child nodes (-want +got):\n%s", diff)
					}
				}
			})
		}
	})
}

// xmlLines splits introspection XML into its lines without the child
// <node name=...> lines, and the children's names.
func xmlLines(data string) (lines, kids []string) {
	for _, l := range strings.Split(data, "\n") {
		if n, ok := strings.CutPrefix(l, ` <node name="`); ok {
			kids = append(kids, strings.TrimSuffix(n, `"/>`))
			continue
		}
		lines = append(lines, l)
	}
	return lines, kids
}
