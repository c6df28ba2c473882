package conformance

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/sdbus-go/sdbus"
)

// rawClient is a godbus client that never subscribes unless told to, with
// match rules for the manager's job and unit signals.
type rawClient struct {
	t    *testing.T
	e    *env
	conn *dbus.Conn
	sigs chan *dbus.Signal
}

func newRawClient(t *testing.T, e *env) *rawClient {
	conn := e.rawBus(t, dbus.WithSignalHandler(dbus.NewSequentialSignalHandler()))
	r := &rawClient{t: t, e: e, conn: conn, sigs: make(chan *dbus.Signal, 1024)}
	conn.Signal(r.sigs)
	for _, opts := range [][]dbus.MatchOption{
		{dbus.WithMatchInterface("org.freedesktop.systemd1.Manager")},
		{dbus.WithMatchInterface("org.freedesktop.DBus.Properties"), dbus.WithMatchMember("PropertiesChanged")},
	} {
		if err := conn.AddMatchSignalContext(e.ctx, append(opts, dbus.WithMatchSender("org.freedesktop.systemd1"))...); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

// call calls a Manager method.
func (r *rawClient) call(method string, args ...any) *dbus.Call {
	return r.conn.Object("org.freedesktop.systemd1", "/org/freedesktop/systemd1").CallWithContext(r.e.ctx,
		"org.freedesktop.systemd1.Manager."+method, 0, args...)
}

// start starts a transient oneshot service running argv and returns its
// job's path.
func (r *rawClient) start(name string, argv ...string) dbus.ObjectPath {
	r.t.Helper()
	type prop struct {
		Name  string
		Value dbus.Variant
	}
	type exec struct {
		Path   string
		Argv   []string
		Ignore bool
	}
	props := []prop{
		{"Description", dbus.MakeVariant("sdbus conformance")},
		{"Type", dbus.MakeVariant("oneshot")},
		{"ExecStart", dbus.MakeVariant([]exec{{argv[0], argv, false}})},
	}
	var job dbus.ObjectPath
	if err := r.call("StartTransientUnit", name, "replace", props, []struct {
		Name  string
		Props []prop
	}{}).Store(&job); err != nil {
		r.t.Fatalf("StartTransientUnit %s: %v", name, err)
	}
	return job
}

// awaitRemoved waits for job's JobRemoved and returns its result and the
// signals received before it.
func (r *rawClient) awaitRemoved(job dbus.ObjectPath) (string, []*dbus.Signal) {
	r.t.Helper()
	var before []*dbus.Signal
	for {
		select {
		case sig := <-r.sigs:
			if sig.Name == "org.freedesktop.systemd1.Manager.JobRemoved" && len(sig.Body) == 4 && sig.Body[1] == job {
				res, _ := sig.Body[3].(string)
				return res, before
			}
			before = append(before, sig)
		case <-r.e.ctx.Done():
			r.t.Fatalf("no JobRemoved for %s; signals received: %v", job, names(before))
			return "", nil
		}
	}
}

// unitSignals returns the unit signals (PropertiesChanged of a unit,
// UnitNew, UnitRemoved) among sigs. PropertiesChanged of a job object is a
// job signal: systemd sends it to the job's requesters too.
func unitSignals(sigs []*dbus.Signal) []string {
	var out []string
	for _, s := range sigs {
		if strings.HasPrefix(string(s.Path), "/org/freedesktop/systemd1/job/") {
			continue
		}
		switch s.Name {
		case "org.freedesktop.DBus.Properties.PropertiesChanged", "org.freedesktop.systemd1.Manager.UnitNew",
			"org.freedesktop.systemd1.Manager.UnitRemoved":
			out = append(out, s.Name+" "+string(s.Path))
		}
	}
	return out
}

func names(sigs []*dbus.Signal) []string {
	out := make([]string, len(sigs))
	for i, s := range sigs {
		out[i] = s.Name
	}
	return out
}

// dbusErrorName returns err's D-Bus error name, or "".
func dbusErrorName(err error) string {
	var de dbus.Error
	if errors.As(err, &de) {
		return de.Name
	}
	return ""
}

// testJobSignalsWithoutSubscribe pins systemd's rule for who gets job
// signals on the bus: a client that never subscribes gets its own job's
// JobRemoved (also while the job is pending across daemon-reload and
// daemon-reexec), and so does every client with a matching rule, but no
// unit signals while nobody is subscribed; Subscribe makes unit signals
// flow until Unsubscribe; a second Subscribe is AlreadySubscribed, an
// Unsubscribe without one NotSubscribed; a job whose requester
// disconnected sends no JobRemoved to the bus. The case runs with no
// subscribed client on the bus.
func testJobSignalsWithoutSubscribe(t *testing.T, e *env) {
	a, other, admin := newRawClient(t, e), newRawClient(t, e), newRawClient(t, e)
	unit := func(what string) string {
		name := e.unit(what, "service")
		t.Cleanup(func() {
			_ = admin.call("StopUnit", name, "replace").Store(new(dbus.ObjectPath))
			_ = admin.call("ResetFailedUnit", name).Store()
		})
		return name
	}
	ownJob := func(what string, during func(), argv ...string) []*dbus.Signal {
		t.Helper()
		job := a.start(unit(what), argv...)
		if during != nil {
			during()
		}
		res, before := a.awaitRemoved(job)
		if res != "done" {
			t.Errorf("%s: JobRemoved result %q, want done", what, res)
		}
		if res, _ := other.awaitRemoved(job); res != "done" {
			t.Errorf("%s: another client with a matching rule saw result %q, want done", what, res)
		}
		// A second job flushes whatever the first one's unit still sent.
		flush := a.start(unit(what+"-flush"), "/bin/true")
		_, more := a.awaitRemoved(flush)
		return append(before, more...)
	}

	// The previous case's client, which subscribed, closed as that case
	// ended, but its disconnect reaches the manager asynchronously (on
	// systemd through dbus-daemon's NameOwnerChanged): until it has, unit
	// signals still go out. Wait for that, then check.
	for deadline := time.Now().Add(10 * time.Second); len(unitSignals(ownJob("settle", nil, "/bin/true"))) != 0; {
		if time.Now().After(deadline) {
			t.Fatal("unit signals still reach the bus 10 s after the last subscribed client closed")
		}
	}
	if got := unitSignals(ownJob("plain", nil, "/bin/true")); len(got) != 0 {
		t.Errorf("unit signals without any subscriber: %v", got)
	}
	ownJob("reload", func() {
		if err := admin.call("Reload").Store(); err != nil {
			t.Fatalf("daemon-reload: %v", err)
		}
	}, "/bin/sleep", "1")
	ownJob("reexec", func() {
		// The manager does not reply to Reexecute: the bus answers
		// NoReply, or the call ends as the manager goes away.
		_ = admin.call("Reexecute").Store()
	}, "/bin/sleep", "2")

	if err := a.call("Subscribe").Store(); err != nil {
		t.Fatalf("Subscribe: %v", err)
	}
	if err := a.call("Subscribe").Store(); dbusErrorName(err) != "org.freedesktop.systemd1.AlreadySubscribed" {
		t.Errorf("second Subscribe = %v, want AlreadySubscribed", err)
	}
	if got := unitSignals(ownJob("subscribed", nil, "/bin/true")); len(got) == 0 {
		t.Error("no unit signals while subscribed")
	}
	if err := a.call("Unsubscribe").Store(); err != nil {
		t.Fatalf("Unsubscribe: %v", err)
	}
	if err := a.call("Unsubscribe").Store(); dbusErrorName(err) != "org.freedesktop.systemd1.NotSubscribed" {
		t.Errorf("second Unsubscribe = %v, want NotSubscribed", err)
	}
	ownJob("drain", nil, "/bin/true") // what was sent while subscribed
	if got := unitSignals(ownJob("unsubscribed", nil, "/bin/true")); len(got) != 0 {
		t.Errorf("unit signals after the last Unsubscribe: %v", got)
	}

	// The requester disconnects while its job runs: nobody is tracked or
	// subscribed, so its JobRemoved does not reach the bus.
	gone := newRawClient(t, e)
	name := unit("orphan")
	orphan := gone.start(name, "/bin/sleep", "1")
	gone.conn.Close()
	deadline := time.Now().Add(10 * time.Second)
	for {
		var state string
		err := admin.conn.Object("org.freedesktop.systemd1", sdbus.UnitPath(name)).CallWithContext(e.ctx,
			"org.freedesktop.DBus.Properties.Get", 0, "org.freedesktop.systemd1.Unit", "ActiveState").Store(&state)
		if err != nil {
			t.Fatal(err)
		}
		if state != "activating" || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	flush := other.start(unit("orphan-flush"), "/bin/true")
	_, before := other.awaitRemoved(flush)
	for _, s := range before {
		if s.Name == "org.freedesktop.systemd1.Manager.JobRemoved" && s.Body[1] == orphan {
			t.Errorf("JobRemoved %v reached the bus after its requester disconnected", s.Body)
		}
	}
}

// testReexecNameMove pins how org.freedesktop.systemd1 moves on
// daemon-reexec: the old instance releases it, then the new one, with a
// new unique name, takes it (old → "", "" → new). Measured so on 247, 252,
// 257 and 262; fakebus does the same.
func testReexecNameMove(t *testing.T, e *env) {
	r := newRawClient(t, e)
	if err := r.conn.AddMatchSignalContext(e.ctx, dbus.WithMatchSender("org.freedesktop.DBus"),
		dbus.WithMatchMember("NameOwnerChanged"), dbus.WithMatchArg(0, "org.freedesktop.systemd1")); err != nil {
		t.Fatal(err)
	}
	var old string
	if err := r.conn.BusObject().CallWithContext(e.ctx, "org.freedesktop.DBus.GetNameOwner", 0, "org.freedesktop.systemd1").Store(&old); err != nil {
		t.Fatal(err)
	}
	_ = r.call("Reexecute").Store() // no reply: NoReply, or the call ends with the old instance
	var moves [][]string
	for len(moves) == 0 || moves[len(moves)-1][1] == "" {
		select {
		case sig := <-r.sigs:
			if sig.Name == "org.freedesktop.DBus.NameOwnerChanged" && len(sig.Body) == 3 {
				moves = append(moves, []string{sig.Body[1].(string), sig.Body[2].(string)})
			}
		case <-e.ctx.Done():
			t.Fatalf("the name never got a new owner; moves so far: %v", moves)
		}
	}
	renewed := moves[len(moves)-1][1]
	want := [][]string{{old, ""}, {"", renewed}}
	if renewed == old || fmt.Sprint(moves) != fmt.Sprint(want) {
		t.Errorf("NameOwnerChanged of org.freedesktop.systemd1 (old, new): %v; want %v", moves, want)
	}
	// The manager answers again before the case ends.
	if err := r.call("GetUnit", "-.slice").Store(new(dbus.ObjectPath)); err != nil {
		t.Fatal(err)
	}
}
