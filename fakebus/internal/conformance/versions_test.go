package conformance

import (
	"encoding/xml"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/godbus/dbus/v5"
	"github.com/godbus/dbus/v5/introspect"
	"github.com/google/go-cmp/cmp"
	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus/internal/sdversions"
)

// The cases of this file expect what the release the suite talks to does,
// as sdversions records it.

// Every transient-unit setting that differs between releases is accepted
// from its release on and refused before with the recorded error;
// PropertiesRejectedBy, sdbus's version-based hint, never says a refused
// property is accepted, and says an accepted one is refused only where a
// distribution backported it (the hint follows upstream).
func testRejectedByVersion(t *testing.T, e *env) {
	for _, s := range sdversions.Settings {
		name := e.unit("setting", s.Unit)
		cleanup(t, e, name)
		var props []sdbus.Property
		switch s.Unit {
		case "service":
			props = oneshot("/bin/true")
		case "scope":
			props = scope(child(t))
		case "slice":
			props = sliceProps()
		default:
			t.Fatalf("setting %s for %s units: unknown unit type", s.Property, s.Unit)
		}
		props = append(props, sdbus.Property{Name: s.Property, Value: dbus.MakeVariant(s.Value)})
		what := fmt.Sprintf("%s=%v on a %s", s.Property, s.Value, s.Unit)
		accepted := s.Accepts(e.release)
		since, upstream := s.Since()
		j, err := e.c.StartTransientUnit(e.ctx, name, sdbus.ModeReplace, props)
		var se *sdbus.Error
		switch {
		case accepted && err != nil:
			t.Errorf("%s: %v; systemd %s accepts it (from %s)", what, err, e.release, since)
		case accepted:
			wait(t, e, j, sdbus.JobDone)
		case err == nil:
			t.Errorf("%s: accepted; systemd %s refuses it (accepted from %s)", what, e.release, since)
			_, _ = j.Wait(e.ctx)
		case !errors.As(err, &se) || se.Name != s.RefusedWith:
			t.Errorf("%s: %v; want the error %s", what, err, s.RefusedWith)
		}
		if s.RefusedWith != sdversions.PropertyReadOnly {
			continue // refused for its value: the hint is about names
		}
		hinted := slices.Contains(sdbus.PropertiesRejectedBy(e.managerVersion, name, props), s.Property)
		switch {
		case !accepted && !hinted:
			t.Errorf("PropertiesRejectedBy(%s) does not list %s, which systemd %s refuses", e.managerVersion, what, e.release)
		case accepted && hinted && (upstream == sdversions.Release{} || e.release.AtLeast(upstream)):
			t.Errorf("PropertiesRejectedBy(%s) lists %s, which systemd %s accepts", e.managerVersion, what, e.release)
		}
	}
}

// Every feature Conn.Supports probes (the table has one entry per
// sdbus.Feature, which its own test checks) is there exactly from its
// release on, and no probe leaves a unit loaded or a job queued: right
// after each, nothing named like a trial unit is listed.
func testFeatureProbes(t *testing.T, e *env) {
	names := make([]string, 0, len(sdversions.Features))
	for name := range sdversions.Features {
		names = append(names, name)
	}
	sort.Strings(names)
	want, got := map[sdbus.Feature]bool{}, map[sdbus.Feature]bool{}
	for _, name := range names {
		f := sdbus.Feature(name)
		want[f] = sdversions.HasFeature(e.release, name)
		ok, err := e.c.Supports(e.ctx, f)
		if err != nil {
			t.Fatalf("Supports(%s): %v", f, err)
		}
		got[f] = ok
		units, err := e.c.ListUnits(e.ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range units {
			if strings.HasPrefix(u.Name, "sdbusprobe") {
				t.Errorf("probing %s left %s loaded (%s, %s)", f, u.Name, u.LoadState, u.ActiveState)
			}
		}
		jobs, err := e.c.ListJobs(e.ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, j := range jobs {
			if strings.HasPrefix(j.Unit, "sdbusprobe") {
				t.Errorf("probing %s left job %d for %s", f, j.ID, j.Unit)
			}
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("features of systemd %s (-want +got):\n%s", e.release, diff)
	}
	trialLeavesNoUnit(t, e)
}

// trialLeavesNoUnit makes the trials Supports makes (the value under test,
// then a property no systemd has), with names of its own: each is refused
// and the unit it names is then unknown to the manager.
func trialLeavesNoUnit(t *testing.T, e *env) {
	type prop struct {
		Name  string
		Value dbus.Variant
	}
	type aux struct {
		Name  string
		Props []prop
	}
	raw := e.rawBus(t)
	mgr := raw.Object("org.freedesktop.systemd1", "/org/freedesktop/systemd1")
	for _, tc := range []struct {
		kind string
		p    prop
	}{
		{"slice", prop{"CPUWeight", dbus.MakeVariant(uint64(0))}},
		{"scope", prop{"OOMPolicy", dbus.MakeVariant("continue")}},
	} {
		name := e.unit("trial", tc.kind)
		var job dbus.ObjectPath
		err := mgr.CallWithContext(e.ctx, "org.freedesktop.systemd1.Manager.StartTransientUnit", 0, name, "fail",
			[]prop{tc.p, {"SdbusFeatureProbeSentinel", dbus.MakeVariant(true)}}, []aux{}).Store(&job)
		var de dbus.Error
		if !errors.As(err, &de) || de.Name != sdversions.PropertyReadOnly && de.Name != sdversions.InvalidArgs {
			t.Errorf("trial StartTransientUnit %s with %s: %v; want a refusal", name, tc.p.Name, err)
		}
		var path dbus.ObjectPath
		err = mgr.CallWithContext(e.ctx, "org.freedesktop.systemd1.Manager.GetUnit", 0, name).Store(&path)
		if !errors.As(err, &de) || de.Name != "org.freedesktop.systemd1.NoSuchUnit" {
			t.Errorf("GetUnit %s after its trial: %v (%v); want NoSuchUnit", name, path, err)
		}
	}
}

// The unit properties some releases lack, or answer with Get but leave out
// of GetAll: Get and GetAll on a slice agree with the table.
func testReadablesByVersion(t *testing.T, e *env) {
	raw := e.rawBus(t)
	obj := raw.Object("org.freedesktop.systemd1", sdbus.UnitPath("-.slice"))
	all := map[string]map[string]dbus.Variant{}
	for _, p := range sdversions.Readables {
		if all[p.Interface] == nil {
			var m map[string]dbus.Variant
			if err := obj.CallWithContext(e.ctx, "org.freedesktop.DBus.Properties.GetAll", 0, p.Interface).Store(&m); err != nil {
				t.Fatalf("GetAll(%s): %v", p.Interface, err)
			}
			all[p.Interface] = m
		}
		var v dbus.Variant
		getErr := obj.CallWithContext(e.ctx, "org.freedesktop.DBus.Properties.Get", 0, p.Interface, p.Property).Store(&v)
		_, listed := all[p.Interface][p.Property]
		exists, inAll := p.Exists(e.release), p.InGetAll(e.release)
		if getErr != nil && !errors.As(getErr, new(dbus.Error)) {
			t.Fatalf("Get(%s): %v", p.Property, getErr)
		}
		answers := getErr == nil
		if answers != exists {
			t.Errorf("Get(%s.%s) answers: %v (%v); systemd %s: %v", p.Interface, p.Property, answers, getErr, e.release, exists)
		}
		if listed != inAll {
			t.Errorf("GetAll(%s) lists %s: %v; systemd %s: %v", p.Interface, p.Property, listed, e.release, inAll)
		}
	}
}

// The Manager methods some releases lack are in the manager's
// introspection data exactly where the release has them.
func testMethodsByVersion(t *testing.T, e *env) {
	var data string
	raw := e.rawBus(t)
	if err := raw.Object("org.freedesktop.systemd1", "/org/freedesktop/systemd1").CallWithContext(e.ctx,
		"org.freedesktop.DBus.Introspectable.Introspect", 0).Store(&data); err != nil {
		t.Fatal(err)
	}
	var node introspect.Node
	if err := xml.Unmarshal([]byte(data), &node); err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, i := range node.Interfaces {
		if i.Name == "org.freedesktop.systemd1.Manager" {
			for _, m := range i.Methods {
				have[m.Name] = true
			}
		}
	}
	if len(have) == 0 {
		t.Fatal("no Manager interface in the introspection data")
	}
	for name, span := range sdversions.Methods {
		want := span.Has(e.release)
		if have[name] != want {
			t.Errorf("Manager.%s present: %v; systemd %s: %v (present in %v)", name, have[name], e.release, want, span)
		}
	}
}

// Properties.GetAll with the empty interface name answers the properties
// of all the object's interfaces at once (what systemctl show asks): the
// same names, with the same signatures, as GetAll of each interface the
// object's introspection data lists, for the manager, a slice and a
// running service.
func testGetAllEmptyInterface(t *testing.T, e *env) {
	name := e.unit("getall", "service")
	cleanup(t, e, name)
	props := []sdbus.Property{sdbus.PropDescription("sdbus conformance"), sdbus.PropExecStart([]string{"/bin/sleep", "30"}, false)}
	wait(t, e, start(t, e, e.c, name, props), sdbus.JobDone)
	raw := e.rawBus(t)
	for _, path := range []dbus.ObjectPath{"/org/freedesktop/systemd1", sdbus.UnitPath("-.slice"), sdbus.UnitPath(name)} {
		obj := raw.Object("org.freedesktop.systemd1", path)
		var data string
		if err := obj.CallWithContext(e.ctx, "org.freedesktop.DBus.Introspectable.Introspect", 0).Store(&data); err != nil {
			t.Fatal(err)
		}
		var node introspect.Node
		if err := xml.Unmarshal([]byte(data), &node); err != nil {
			t.Fatal(err)
		}
		want := map[string]string{}
		for _, i := range node.Interfaces {
			if len(i.Properties) == 0 {
				continue
			}
			var m map[string]dbus.Variant
			if err := obj.CallWithContext(e.ctx, "org.freedesktop.DBus.Properties.GetAll", 0, i.Name).Store(&m); err != nil {
				t.Fatalf("GetAll(%s) of %s: %v", i.Name, path, err)
			}
			for k, v := range m {
				want[k] = v.Signature().String()
			}
		}
		var all map[string]dbus.Variant
		if err := obj.CallWithContext(e.ctx, "org.freedesktop.DBus.Properties.GetAll", 0, "").Store(&all); err != nil {
			t.Fatalf("GetAll(\"\") of %s: %v", path, err)
		}
		got := map[string]string{}
		for k, v := range all {
			got[k] = v.Signature().String()
		}
		if len(want) == 0 {
			t.Errorf("%s: no properties in any interface", path)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("GetAll(\"\") of %s against GetAll of each interface (-want +got):\n%s", path, diff)
		}
	}
	stop(t, e, e.c, name)
}
