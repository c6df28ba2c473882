package fakebus_test

import (
	"errors"
	"testing"

	"github.com/godbus/dbus/v5"
	"github.com/google/go-cmp/cmp"
	"github.com/sdbus-go/sdbus/fakebus"
)

// systemd 262 leaves CPUAccounting (and the other deprecated cgroup-v1
// settings) out of GetAll and introspection, while Get still answers it
// and StartTransientUnit still accepts it; earlier releases show it
// everywhere.
func TestHiddenProperties(t *testing.T) {
	const sliceIface = "org.freedesktop.systemd1.Slice"
	for _, tc := range []struct {
		version string
		shown   bool // in GetAll and introspection
	}{
		{"247.3-7+deb11u5", true},
		{"252.39-1~deb12u2", true},
		{"257.13-1~deb13u1", true},
		{"262.1-1", false},
	} {
		t.Run(tc.version, func(t *testing.T) {
			s := fakebus.New(t, fakebus.WithVersion(tc.version))
			r := s.RawConn(t)
			var job dbus.ObjectPath
			err := r.Object(systemd1, managerPath).Call(managerIface+".StartTransientUnit", 0, "acct.slice", "fail",
				[]struct {
					Name  string
					Value dbus.Variant
				}{{"CPUAccounting", dbus.MakeVariant(true)}, {"MemoryLimit", dbus.MakeVariant(uint64(1 << 30))}},
				[]struct {
					Name  string
					Props []struct {
						Name  string
						Value dbus.Variant
					}
				}{}).Store(&job)
			if err != nil {
				t.Fatalf("StartTransientUnit with CPUAccounting and MemoryLimit: %v", err)
			}
			obj := r.Object(systemd1, "/org/freedesktop/systemd1/unit/acct_2eslice")
			type seen struct {
				Get, GetAll, Introspect bool
				GetValue                any
			}
			var got seen
			v, err := obj.GetProperty(sliceIface + ".CPUAccounting")
			got.Get, got.GetValue = err == nil, v.Value()
			var all map[string]dbus.Variant
			if err := obj.Call("org.freedesktop.DBus.Properties.GetAll", 0, sliceIface).Store(&all); err != nil {
				t.Fatal(err)
			}
			_, got.GetAll = all["CPUAccounting"]
			node := introspectNode(t, obj)
			for _, i := range node.Interfaces {
				for _, p := range i.Properties {
					if i.Name == sliceIface && p.Name == "CPUAccounting" {
						got.Introspect = true
					}
				}
			}
			want := seen{Get: true, GetAll: tc.shown, Introspect: tc.shown, GetValue: true}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("CPUAccounting on %s (-want +got):\n%s", tc.version, diff)
			}
			if _, ok := all["MemoryAccounting"]; !ok {
				t.Errorf("MemoryAccounting missing from GetAll")
			}
		})
	}
}

// The Manager methods each release has, as its introspection data lists
// them (listed); called without arguments, a method the release has
// answers (its result, or InvalidArgs for its signature), one the release
// lacks UnknownMethod. 258 and later still answer StartAuxiliaryScope,
// unlisted.
func TestManagerMethodsByRelease(t *testing.T) {
	probed := []string{
		"StartUnitWithFlags", "EnqueueMarkedJobs", "BindMountUnit", "MountImageUnit", "GetUnitByPIDFD",
		"QueueSignalUnit", "SoftReboot", "StartAuxiliaryScope", "EnqueueUnitJobMany", "KillUnitSubgroup",
		"RemoveSubgroupFromUnit",
	}
	for _, tc := range []struct {
		version        string
		listed, answer []string
	}{
		{"247.3-7+deb11u5", nil, nil},
		{"252.39-1~deb12u2", []string{"StartUnitWithFlags", "EnqueueMarkedJobs", "BindMountUnit", "MountImageUnit"}, nil},
		{"257.13-1~deb13u1", []string{"StartUnitWithFlags", "EnqueueMarkedJobs", "BindMountUnit", "MountImageUnit",
			"GetUnitByPIDFD", "QueueSignalUnit", "SoftReboot", "StartAuxiliaryScope"}, nil},
		{"262.1-1", []string{"StartUnitWithFlags", "EnqueueMarkedJobs", "BindMountUnit", "MountImageUnit",
			"GetUnitByPIDFD", "QueueSignalUnit", "SoftReboot", "EnqueueUnitJobMany", "KillUnitSubgroup",
			"RemoveSubgroupFromUnit"}, []string{"StartUnitWithFlags", "EnqueueMarkedJobs", "BindMountUnit", "MountImageUnit",
			"GetUnitByPIDFD", "QueueSignalUnit", "SoftReboot", "StartAuxiliaryScope", "EnqueueUnitJobMany", "KillUnitSubgroup",
			"RemoveSubgroupFromUnit"}},
	} {
		if tc.answer == nil {
			tc.answer = tc.listed
		}
		t.Run(tc.version, func(t *testing.T) {
			r := fakebus.New(t, fakebus.WithVersion(tc.version)).RawConn(t)
			obj := r.Object(systemd1, managerPath)
			node := introspectNode(t, obj)
			listed := map[string]bool{}
			for _, i := range node.Interfaces {
				for _, m := range i.Methods {
					if i.Name == managerIface {
						listed[m.Name] = true
					}
				}
			}
			var got, called []string
			for _, name := range probed {
				if listed[name] {
					got = append(got, name)
				}
				var de dbus.Error
				err := obj.Call(managerIface+"."+name, 0).Err
				if err == nil || errors.As(err, &de) && de.Name == "org.freedesktop.DBus.Error.InvalidArgs" {
					called = append(called, name)
				} else if !errors.As(err, &de) || de.Name != "org.freedesktop.DBus.Error.UnknownMethod" {
					t.Errorf("calling %s: %v", name, err)
				}
			}
			if diff := cmp.Diff(tc.listed, got); diff != "" {
				t.Errorf("introspected methods (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.answer, called); diff != "" {
				t.Errorf("methods answering (-want +got):\n%s", diff)
			}
		})
	}
}
