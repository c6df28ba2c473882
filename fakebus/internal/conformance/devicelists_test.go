package conformance

import (
	"testing"

	"github.com/godbus/dbus/v5"
	"github.com/google/go-cmp/cmp"
	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus/internal/sdversions"
)

// testDeviceLists: the per-device cgroup lists as systemd keeps them.
// Over D-Bus a device listed already has its entry changed in place
// (DeviceAllow='s access replaced); a new DeviceAllow= rule goes first, a
// new IO entry last (247: first). The IO limits share one list of
// devices, and a limit of infinity hides a device from its property.
// SetUnitProperties' drop-in holds the whole list, which a daemon-reload
// reads back line by line: DeviceAllow= reversed (and 247's IO lists).
func testDeviceLists(t *testing.T, e *env) {
	raw := e.rawBus(t)
	inOrder := sdversions.Behaves(e.release, sdversions.IODevicesInOrder)
	name := e.unit("devlists", "service")
	cleanup(t, e, name)
	j, err := e.c.StartTransientUnit(e.ctx, name, sdbus.ModeReplace, sleeper(
		sdbus.PropDeviceAllow(sdbus.DeviceRule{Specifier: "/dev/full", Access: "r"}, sdbus.DeviceRule{Specifier: "/dev/null", Access: "w"}, sdbus.DeviceRule{Specifier: "/dev/full", Access: "m"}),
		sdbus.PropIOReadBandwidthMax(sdbus.IODeviceLimit{Device: "/dev/full", Value: 1000}, sdbus.IODeviceLimit{Device: "/dev/null", Value: 2000}),
	))
	if err != nil {
		t.Fatal(err)
	}
	wait(t, e, j, sdbus.JobDone)
	for _, p := range []sdbus.Property{
		sdbus.PropDeviceAllow(sdbus.DeviceRule{Specifier: "/dev/null", Access: "r"}),
		sdbus.PropIODeviceWeight(sdbus.IODeviceLimit{Device: "/dev/null", Value: 100}, sdbus.IODeviceLimit{Device: "/dev/zero", Value: 300}),
		sdbus.PropIODeviceWeight(sdbus.IODeviceLimit{Device: "/dev/null", Value: 200}, sdbus.IODeviceLimit{Device: "/dev/full", Value: 400}),
		sdbus.PropIOReadBandwidthMax(sdbus.IODeviceLimit{Device: "/dev/zero", Value: 3000}, sdbus.IODeviceLimit{Device: "/dev/full", Value: 4000}),
		sdbus.PropIOReadBandwidthMax(sdbus.IODeviceLimit{Device: "/dev/null", Value: sdbus.Infinity}),
		sdbus.PropIOWriteIOPSMax(sdbus.IODeviceLimit{Device: "/dev/zero", Value: 5}),
	} {
		if err := e.c.SetUnitProperties(e.ctx, name, true, p); err != nil {
			t.Fatalf("SetUnitProperties %s: %v", p.Name, err)
		}
	}
	want := deviceLists{
		DeviceAllow:        []devRule{{"/dev/null", "r"}, {"/dev/full", "m"}},
		IODeviceWeight:     []ioLimit{{"/dev/null", 200}, {"/dev/zero", 300}, {"/dev/full", 400}},
		IOReadBandwidthMax: []ioLimit{{"/dev/full", 4000}, {"/dev/zero", 3000}},
		IOWriteIOPSMax:     []ioLimit{{"/dev/zero", 5}},
	}
	if !inOrder {
		want.IODeviceWeight = []ioLimit{{"/dev/full", 400}, {"/dev/zero", 300}, {"/dev/null", 200}}
		want.IOReadBandwidthMax = []ioLimit{{"/dev/zero", 3000}, {"/dev/full", 4000}}
	}
	if diff := cmp.Diff(want, readDeviceLists(t, e, raw, name)); diff != "" {
		t.Errorf("lists as set (-want +got):\n%s", diff)
	}
	if err := e.c.Reload(e.ctx); err != nil {
		t.Fatal(err)
	}
	want.DeviceAllow = []devRule{{"/dev/full", "m"}, {"/dev/null", "r"}}
	want.IODeviceWeight = []ioLimit{{"/dev/null", 200}, {"/dev/zero", 300}, {"/dev/full", 400}}
	if diff := cmp.Diff(want, readDeviceLists(t, e, raw, name)); diff != "" {
		t.Errorf("lists after daemon-reload (-want +got):\n%s", diff)
	}
}

type deviceLists struct {
	DeviceAllow                                        []devRule
	IODeviceWeight, IOReadBandwidthMax, IOWriteIOPSMax []ioLimit
}

// readDeviceLists reads the lists testDeviceLists sets on service name.
func readDeviceLists(t *testing.T, e *env, raw *dbus.Conn, name string) deviceLists {
	t.Helper()
	const svc = "org.freedesktop.systemd1.Service"
	var l deviceLists
	for prop, to := range map[string]any{"DeviceAllow": &l.DeviceAllow, "IODeviceWeight": &l.IODeviceWeight,
		"IOReadBandwidthMax": &l.IOReadBandwidthMax, "IOWriteIOPSMax": &l.IOWriteIOPSMax} {
		if err := dbus.Store([]any{unitProp(t, e, raw, name, svc, prop)}, to); err != nil {
			t.Fatalf("%s of %s: %v", prop, name, err)
		}
	}
	return l
}
