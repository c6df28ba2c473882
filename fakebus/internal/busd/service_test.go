package busd

import (
	"testing"

	"github.com/godbus/dbus/v5"

	"github.com/google/go-cmp/cmp"
)

// serviceWatcher connects a client that receives the service's signals on
// testIface (by the service's name), every signal on org.test.Any and the
// NameOwnerChanged signals.
func serviceWatcher(t *testing.T, b *Bus) (*dbus.Conn, chan *dbus.Signal) {
	c := busClient(t, b)
	addMatch(t, c, "type='signal',sender='"+testService+"',interface='"+testIface+"'")
	addMatch(t, c, "type='signal',interface='org.test.Any'")
	addMatch(t, c, "type='signal',sender='org.freedesktop.DBus',member='NameOwnerChanged'")
	return c, signals(c, 100)
}

func TestServiceNameReleasedThenTaken(t *testing.T) {
	b, _ := newTestBus(t)
	c, ch := serviceWatcher(t, b)
	owner := func() string {
		var o string
		if err := c.BusObject().Call("org.freedesktop.DBus.GetNameOwner", 0, testService).Store(&o); err != nil {
			return dbusErrorName(err)
		}
		return o
	}
	nocs := func(n int) [][]any {
		var got [][]any
		for i := 0; i < n; i++ {
			got = append(got, nextDriverSignal(t, ch, "NameOwnerChanged").Body)
		}
		return got
	}

	// Released first: nobody owns the name while the new instance, already
	// connected, sends; a rule naming the service matches it all the same.
	old, renewed := b.ReconnectService()
	if diff := cmp.Diff([][]any{{testService, old, ""}, {old, old, ""}, {renewed, "", renewed}}, nocs(3)); diff != "" {
		t.Errorf("NameOwnerChanged of the release (-want +got):\n%s", diff)
	}
	if got := owner(); got != errNameHasNoOwner {
		t.Errorf("owner while released = %q, want %s", got, errNameHasNoOwner)
	}
	b.Emit(testPath, testIface, "Unowned")
	b.EmitFrom(b.ReserveUniqueName(), testPath, testIface, "Forged")
	b.Emit(testPath, "org.test.Any", "Gap")
	for _, want := range []string{testIface + ".Unowned", "org.test.Any.Gap"} {
		if s := nextSignal(t, ch); s.Name != want || s.Sender != renewed {
			t.Errorf("got %s from %s, want %s from %s", s.Name, s.Sender, want, renewed)
		}
	}
	b.TakeServiceName()
	if diff := cmp.Diff([][]any{{testService, "", renewed}}, nocs(1)); diff != "" {
		t.Errorf("NameOwnerChanged of the take-over (-want +got):\n%s", diff)
	}
	b.Emit(testPath, testIface, "Owned")
	if s := nextSignal(t, ch); s.Name != testIface+".Owned" || s.Sender != renewed {
		t.Errorf("got %s from %s, want Owned from %s", s.Name, s.Sender, renewed)
	}
	if got := owner(); got != renewed {
		t.Errorf("owner = %q, want %s", got, renewed)
	}
}
