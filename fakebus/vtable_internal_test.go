package fakebus

import (
	"testing"

	"github.com/godbus/dbus/v5"
	"github.com/sdbus-go/sdbus/fakebus/internal/busd"
	"github.com/sdbus-go/sdbus/fakebus/internal/sdversions"
)

// TestVtables checks the tables themselves: valid signatures, a name for
// every argument, every method of a unit's or a job's object standing for
// a Manager method with the same arguments after the unit's name or the
// job's ID, and every Manager method of the per-release table
// (sdversions.Methods) in the Manager's table.
func TestVtables(t *testing.T) {
	all := []*vtable{managerVtable, unitVtable, serviceVtable, scopeVtable, sliceVtable, targetVtable,
		socketVtable, mountVtable, swapVtable, automountVtable, deviceVtable, pathVtable, timerVtable, jobVtable, propertiesVtable, introspectableVtable}
	for _, vt := range all {
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
