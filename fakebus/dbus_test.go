package fakebus_test

import (
	"path"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus"
)

// rawPrivate is a godbus client of the fake's private socket.
func rawPrivate(t *testing.T, s *fakebus.Server) *raw {
	t.Helper()
	addr, err := s.PrivateAddress()
	if err != nil {
		t.Fatal(err)
	}
	c, err := dbus.Dial(addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if err := c.Auth(nil); err != nil {
		t.Fatal(err)
	}
	r := &raw{Conn: c, sigs: make(chan *dbus.Signal, 1024)}
	c.Signal(r.sigs)
	// The first message is a Ping too long to be left unread behind BEGIN,
	// as on systemd's private socket (sdbus's firstcall.go). Answered once
	// the fake has finished authenticating it (and counts it in Clients).
	long := dbus.ObjectPath("/org/freedesktop/systemd1/" + strings.Repeat("p", 256))
	if err := c.Object("org.freedesktop.systemd1", long).Call("org.freedesktop.DBus.Peer.Ping", 0).Err; err != nil {
		t.Fatal(err)
	}
	return r
}

// start calls StartUnit and returns the job's path.
func (r *raw) start(t *testing.T, unit string) dbus.ObjectPath {
	t.Helper()
	var job dbus.ObjectPath
	r.mustManager(t, "StartUnit", []any{unit, "replace"}, &job)
	return job
}

// jobID returns the id of the job at p.
func jobID(p dbus.ObjectPath) uint32 {
	n, _ := strconv.ParseUint(path.Base(string(p)), 10, 32)
	return uint32(n)
}

// closeWait closes r and waits until the fake has forgotten it.
func closeWait(t *testing.T, s *fakebus.Server, r *raw) {
	t.Helper()
	n := s.Clients()
	r.Close()
	for deadline := time.Now().Add(5 * time.Second); s.Clients() >= n; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the fake still serves a closed connection after 5s")
		}
	}
}

func TestJobSignalsGoToRequesters(t *testing.T) {
	s := fakebus.New(t,
		fakebus.WithUnitFile(oneshotFile("held.service")),
		fakebus.WithUnitFile(oneshotFile("dep.service")),
		fakebus.WithUnitFile(fakebus.UnitFile{Name: "main.service", Properties: append(oneshotFile("").Properties,
			sdbus.Property{Name: "Requires", Value: dbus.MakeVariant([]string{"dep.service"})})}),
		fakebus.WithUnitFile(oneshotFile("flush.service")))
	if err := s.Script("held.service", fakebus.Script{Delay: time.Hour}); err != nil {
		t.Fatal(err)
	}
	watcher, priv := rawBus(t, s), rawPrivate(t, s)
	watcher.match(t, dbus.WithMatchInterface(managerIface))
	watcher.match(t, dbus.WithMatchInterface("org.freedesktop.DBus.Properties"))
	// seen returns the JobRemoved and unit signals the watcher gets up to
	// the JobRemoved of a job it starts itself.
	seen := func(r *raw) []string {
		t.Helper()
		var out []string
		for _, sig := range r.until(t, jobRemoved(r.start(t, "flush.service"))) {
			switch {
			case sig.Name == managerIface+".JobRemoved":
				out = append(out, "JobRemoved "+sig.Body[2].(string))
			case sig.Sender != "org.freedesktop.DBus" && sig.Name != managerIface+".JobNew":
				out = append(out, sig.Name)
			}
		}
		return out[:len(out)-1]
	}

	// Merged: the job's JobRemoved goes out while one requester remains.
	first, second := rawBus(t, s), rawBus(t, s)
	job := first.start(t, "held.service")
	if merged := second.start(t, "held.service"); merged != job {
		t.Fatalf("second StartUnit = %s, want the merged job %s", merged, job)
	}
	closeWait(t, s, first)
	s.FinishJob(jobID(job), sdbus.JobDone)
	if got := seen(watcher); len(got) != 1 || got[0] != "JobRemoved held.service" {
		t.Errorf("with a merged requester left, the watcher saw %v; want held.service's JobRemoved only", got)
	}
	// Its last requester gone, the job's end reaches direct connections
	// only.
	stop := second.start(t, "held.service") // started again: a new job
	closeWait(t, s, second)
	s.FinishJob(jobID(stop), sdbus.JobDone)
	if got := seen(watcher); len(got) != 0 {
		t.Errorf("after its requester left, the watcher saw %v; want nothing", got)
	}
	priv.until(t, jobRemoved(stop))

	// A job pulled in as a dependency has no requester.
	main := watcher.start(t, "main.service")
	var removed []string
	for _, sig := range watcher.until(t, jobRemoved(main)) {
		if sig.Name == managerIface+".JobRemoved" {
			removed = append(removed, sig.Body[2].(string))
		}
	}
	if len(removed) != 1 {
		t.Errorf("JobRemoved for %v; want main.service's only", removed)
	}

	// A subscription ends with its connection.
	sub := rawBus(t, s)
	sub.mustManager(t, "Subscribe", nil)
	if got := seen(watcher); len(got) == 0 {
		t.Error("no unit signals while a client is subscribed")
	}
	closeWait(t, s, sub)
	seen(watcher) // what was sent before the subscriber left
	if got := seen(watcher); len(got) != 0 {
		t.Errorf("unit signals after the only subscriber left: %v", got)
	}
}
