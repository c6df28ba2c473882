package conformance

import (
	"testing"

	"github.com/godbus/dbus/v5"
	"github.com/google/go-cmp/cmp"
	"github.com/sdbus-go/sdbus"
)

// testAddRef: a transient unit started with AddRef=true is referenced by
// the client that started it (as by RefUnit): once its command has ended
// it stays loaded, inactive with its result and exit status readable, as
// long as that client is connected, and is unloaded when it disconnects.
// systemd-run --wait reads its unit's result this way (measured on 252:
// it sends AddRef=true and reads the unit with GetAll after the start job
// has ended). Its timestamps say when it left inactive and came back.
func testAddRef(t *testing.T, e *env) {
	c := e.connect(t)
	raw := e.rawBus(t)
	name := e.unit("addref", "service")
	cleanup(t, e, name)
	props := append(oneshot("/bin/true"), sdbus.Property{Name: "AddRef", Value: dbus.MakeVariant(true)})
	wait(t, e, start(t, e, c, name, props), sdbus.JobDone)
	st := settle(t, e, name, "inactive", func(s sdbus.UnitState) bool { return s.ActiveState != sdbus.StateActivating })
	want := sdbus.UnitState{Name: name, LoadState: sdbus.LoadLoaded, ActiveState: sdbus.StateInactive, SubState: "dead", Result: "success"}
	if diff := cmp.Diff(want, st); diff != "" {
		t.Errorf("an ended unit referenced with AddRef (-want +got):\n%s", diff)
	}
	const svc = "org.freedesktop.systemd1.Service"
	got := []any{unitProp(t, e, raw, name, svc, "ExecMainCode"), unitProp(t, e, raw, name, svc, "ExecMainStatus")}
	if diff := cmp.Diff([]any{int32(1), int32(0)}, got); diff != "" {
		t.Errorf("ExecMainCode, ExecMainStatus (-want +got):\n%s", diff)
	}
	// Its state's timestamps: it left inactive when its start began and
	// came back when its command ended, never active (a oneshot without
	// RemainAfterExit=); systemd-run --wait prints the runtime from them.
	const unit = "org.freedesktop.systemd1.Unit"
	ts := map[string]uint64{}
	for _, p := range []string{"InactiveExitTimestamp", "InactiveEnterTimestamp", "ActiveEnterTimestamp", "ActiveExitTimestamp"} {
		ts[p] = unitProp(t, e, raw, name, unit, p).(uint64)
		ts[p+"Monotonic"] = unitProp(t, e, raw, name, unit, p+"Monotonic").(uint64)
	}
	switch {
	case ts["InactiveExitTimestamp"] == 0 || ts["InactiveExitTimestampMonotonic"] == 0,
		ts["InactiveEnterTimestamp"] < ts["InactiveExitTimestamp"],
		ts["InactiveEnterTimestampMonotonic"] <= ts["InactiveExitTimestampMonotonic"],
		ts["ActiveEnterTimestamp"]+ts["ActiveEnterTimestampMonotonic"]+ts["ActiveExitTimestamp"]+ts["ActiveExitTimestampMonotonic"] != 0:
		t.Errorf("timestamps of a oneshot that ran = %v; want InactiveExit set, InactiveEnter after it, no Active ones", ts)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	unloaded(t, e, name)
}
