package fakebus

import (
	"context"
	"os"
	"sort"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/godbus/dbus/v5/introspect"
	"github.com/google/go-cmp/cmp"
	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus/internal/busd"
	"github.com/sdbus-go/sdbus/fakebus/internal/sdversions"
)

// allVtables are the fake's tables, one per interface.
var allVtables = []*vtable{managerVtable, unitVtable, serviceVtable, scopeVtable, sliceVtable, targetVtable,
	socketVtable, mountVtable, swapVtable, automountVtable, deviceVtable, pathVtable, timerVtable, jobVtable,
	propertiesVtable, introspectableVtable, logControlVtable}

// TestVtables checks the tables themselves: valid signatures, a name for
// every argument, every method of a unit's or a job's object standing for
// a Manager method with the same arguments after the unit's name or the
// job's ID, and every Manager method of the per-release table
// (sdversions.Methods) in the Manager's table.
func TestVtables(t *testing.T) {
	for _, vt := range allVtables {
		for _, vm := range vt.methods {
			for _, a := range []struct{ sig, names string }{{vm.in, vm.inNames}, {vm.out, vm.outNames}} {
				if _, err := dbus.ParseSignature(a.sig); err != nil {
					t.Errorf("%s.%s: signature %q: %v", vt.name, vm.name, a.sig, err)
					continue
				}
				if got, want := len(names(a.names)), len(busd.SplitSignature(a.sig)); got != want {
					t.Errorf("%s.%s: %d names for %q", vt.name, vm.name, got, a.sig)
				}
			}
			if vm.call == nil {
				t.Errorf("%s.%s: no handler", vt.name, vm.name)
			}
			if target, ok := vt.stands[vm.name]; ok {
				tm := managerVtable.byName[target]
				first := "s"
				if vt == jobVtable {
					first = "u"
				}
				for _, a := range vt.fixed[vm.name] {
					first += dbus.SignatureOf(a).String()
				}
				if tm == nil || tm.in != first+vm.in || tm.out != vm.out {
					t.Errorf("%s.%s(%s)%s stands for Manager.%s, which is %+v", vt.name, vm.name, vm.in, vm.out, target, tm)
				}
			}
		}
		for _, s := range vt.signals {
			if got, want := len(names(s.names)), len(busd.SplitSignature(s.sig)); got != want {
				t.Errorf("%s.%s: %d names for %q", vt.name, s.name, got, s.sig)
			}
		}
	}
	for name := range sdversions.Methods {
		if managerVtable.byName[name] == nil {
			t.Errorf("sdversions.Methods has %s, the Manager's table has not", name)
		}
	}
}

func TestSplitSignature(t *testing.T) {
	for sig, want := range map[string]int{"": 0, "s": 1, "ssa(sv)a(sa(sv))": 4, "a{sv}as": 2, "uososa(uosos)": 6, "aay": 1} {
		if got := busd.SplitSignature(sig); len(got) != want {
			t.Errorf("busd.SplitSignature(%q) = %q, want %d types", sig, got, want)
		}
	}
}

// TestVtablesCaptured checks the tables themselves (not Introspect, which
// TestIntrospectCaptured compares) against the introspection data
// captured from each release (internal/sdversions/data), so that the
// tables and the per-release table sdversions.Methods cannot disagree:
// the Manager methods of a release's capture are exactly those of the
// Manager's table that sdversions.HasMethod gives that release; every
// other interface's captured methods and signals are exactly its table's
// rows that the release offers (by the Manager method each stands for),
// with the captured signatures; and org.freedesktop.DBus.Peer, which busd
// answers for every object as sd-bus does outside the vtables, answers
// each captured method with the captured reply signature.
func TestVtablesCaptured(t *testing.T) {
	fsys := os.DirFS("internal/sdversions")
	releases, err := sdversions.CapturedReleases(fsys)
	if err != nil || len(releases) == 0 {
		t.Fatalf("captured releases: %v, %v", releases, err)
	}
	tables := map[string]*vtable{}
	for _, vt := range allVtables {
		tables[vt.name] = vt
	}
	for _, major := range releases {
		t.Run(major, func(t *testing.T) {
			capt, err := sdversions.LoadCapture(fsys, major)
			if err != nil {
				t.Fatal(err)
			}
			v, err := sdbus.ParseVersion(capt.Release)
			if err != nil {
				t.Fatal(err)
			}
			rel := sdversions.Release{Major: v.Major, Minor: v.Minor}

			mgr := capt.Objects["manager"].Interface(managerIface)
			if mgr == nil {
				t.Fatal("no captured Manager interface")
			}
			var want, got []string
			for _, cm := range mgr.Methods {
				want = append(want, cm.Name)
			}
			for _, vm := range managerVtable.methods {
				if sdversions.HasMethod(rel, vm.name) {
					got = append(got, vm.name)
				}
			}
			sort.Strings(want)
			sort.Strings(got)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Manager methods: captured (-) and the table's with HasMethod (+):\n%s", diff)
			}

			ifaces := capt.Interfaces()
			names := make([]string, 0, len(ifaces))
			for name := range ifaces {
				names = append(names, name)
			}
			sort.Strings(names)
			for _, name := range names {
				in := ifaces[name]
				if name == peerIface {
					testPeerCaptured(t, capt.Release, in.Methods)
					continue
				}
				vt := tables[name]
				if vt == nil {
					t.Errorf("interface %s has no table", name)
					continue
				}
				want, got := capturedMembers(in), tableMembers(vt, rel)
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("%s: captured (-) and the table's rows the release offers (+):\n%s", name, diff)
				}
			}
		})
	}
}

const peerIface = "org.freedesktop.DBus.Peer"

// capturedMembers lists the methods and signals of a captured interface,
// one line each, sorted.
func capturedMembers(in introspect.Interface) []string {
	var out []string
	for _, cm := range in.Methods {
		var sig [2]string
		for _, a := range cm.Args {
			if a.Direction == "out" {
				sig[1] += a.Type
			} else {
				sig[0] += a.Type
			}
		}
		out = append(out, "method "+cm.Name+"("+sig[0]+") "+sig[1])
	}
	for _, s := range in.Signals {
		var sig string
		for _, a := range s.Args {
			sig += a.Type
		}
		out = append(out, "signal "+s.Name+"("+sig+")")
	}
	sort.Strings(out)
	return out
}

// tableMembers lists the methods of vt that release r offers and its
// signals, as capturedMembers does.
func tableMembers(vt *vtable, r sdversions.Release) []string {
	var out []string
	for i := range vt.methods {
		vm := &vt.methods[i]
		if g := vt.gate(vm); g == "" || sdversions.HasMethod(r, g) {
			out = append(out, "method "+vm.name+"("+vm.in+") "+vm.out)
		}
	}
	for _, s := range vt.signals {
		out = append(out, "signal "+s.name+"("+s.sig+")")
	}
	sort.Strings(out)
	return out
}

// testPeerCaptured calls each captured Peer method on the manager's
// object of a fake playing version, and checks its reply's signature.
func testPeerCaptured(t *testing.T, version string, methods []introspect.Method) {
	t.Helper()
	s := New(t, WithVersion(version))
	addr, err := s.Address()
	if err != nil {
		t.Fatal(err)
	}
	conn, err := dbus.Connect(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, cm := range methods {
		var in, out string
		for _, a := range cm.Args {
			if a.Direction == "out" {
				out += a.Type
			} else {
				in += a.Type
			}
		}
		if in != "" {
			t.Errorf("%s.%s(%s): the test calls methods without arguments only", peerIface, cm.Name, in)
			continue
		}
		call := conn.Object("org.freedesktop.systemd1", managerPath).CallWithContext(ctx, peerIface+"."+cm.Name, 0)
		if call.Err != nil {
			t.Errorf("%s.%s: %v", peerIface, cm.Name, call.Err)
			continue
		}
		if got := dbus.SignatureOf(call.Body...).String(); got != out {
			t.Errorf("%s.%s replied %q, captured %q", peerIface, cm.Name, got, out)
		}
	}
}
