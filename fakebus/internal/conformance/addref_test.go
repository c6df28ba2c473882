package conformance

import (
	"errors"
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

// testAddRefAcrossReexec: what EnsureTransientUnit takes as evidence when
// a StartTransientUnit reply is lost at daemon-reexec. A unit made with
// AddRef=true stays loaded after its oneshot ended (CollectMode
// inactive-or-failed notwithstanding), Refs naming the one client, and
// so it stays across a daemon-reexec while that client is connected
// (measured on 247, 252 and 262); it is unloaded when the client leaves.
// On the private socket, where a client has no bus name, AddRef=true is
// refused with InvalidArgs and nothing is created.
func testAddRefAcrossReexec(t *testing.T, e *env) {
	c := e.connect(t)
	raw := e.rawBus(t)
	name := e.unit("addrefreexec", "service")
	cleanup(t, e, name)
	props := append(oneshot("/bin/true"), sdbus.PropCollectMode(sdbus.CollectInactiveOrFailed),
		sdbus.Property{Name: "AddRef", Value: dbus.MakeVariant(true)})
	wait(t, e, start(t, e, c, name, props), sdbus.JobDone)
	settle(t, e, name, "inactive", func(s sdbus.UnitState) bool { return s.ActiveState == sdbus.StateInactive })
	refs := unitProp(t, e, raw, name, "org.freedesktop.systemd1.Unit", "Refs").([]string)
	if len(refs) != 1 || refs[0] == raw.Names()[0] {
		t.Fatalf("Refs of a unit made with AddRef = %q, want the one client that made it", refs)
	}
	if err := e.c.Reexecute(e.ctx); err != nil {
		t.Fatal(err)
	}
	// The re-executed manager answers once it owns its name again.
	after, err := c.UnitProperty(e.ctx, name, "org.freedesktop.systemd1.Unit", "Refs")
	if err != nil {
		t.Fatalf("reading %s after daemon-reexec: %v", name, err)
	}
	if diff := cmp.Diff(refs, after.Value()); diff != "" {
		t.Errorf("Refs across daemon-reexec (-before +after):\n%s", diff)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	unloaded(t, e, name)

	pc := e.connectPrivate(t)
	slice := e.unit("addrefp2p", "slice")
	cleanup(t, e, slice)
	_, err = pc.StartTransientUnit(e.ctx, slice, sdbus.ModeReplace, append(sliceProps(), sdbus.Property{Name: "AddRef", Value: dbus.MakeVariant(true)}))
	if !errors.Is(err, sdbus.ErrInvalidArgs) {
		t.Errorf("StartTransientUnit with AddRef=true on the private socket = %v, want ErrInvalidArgs", err)
	}
	if _, err := e.c.GetUnit(e.ctx, slice); !errors.Is(err, sdbus.ErrNoSuchUnit) {
		t.Errorf("GetUnit of the refused unit = %v, want ErrNoSuchUnit", err)
	}
}

// testEnsureDropsItsReference: EnsureTransientUnit holds a reference on
// the unit it makes (AddRef, on a bus) only until it returns: a oneshot
// that ran is unloaded afterwards as without it, over the bus and over
// the private socket (where no reference is asked for).
func testEnsureDropsItsReference(t *testing.T, e *env) {
	for _, conn := range []struct {
		name string
		c    *sdbus.Conn
	}{{"bus", e.c}, {"private", e.connectPrivate(t)}} {
		name := e.unit("ensureref"+conn.name, "service")
		cleanup(t, e, name)
		out, err := conn.c.EnsureTransientUnit(e.ctx, name, oneshot("/bin/true"), sdbus.EnsureOptions{})
		if err != nil || out != sdbus.Created {
			t.Fatalf("EnsureTransientUnit over the %s = %v, %v; want created", conn.name, out, err)
		}
		unloaded(t, e, name)
	}
}
