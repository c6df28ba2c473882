package busd

import (
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/google/go-cmp/cmp"
)

// hangCall sends a call the test service never answers and waits until
// the bus counts it as pending; it returns the call and the service's
// side of it.
func hangCall(t *testing.T, b *Bus, svc *fakeService, c *dbus.Conn) (*dbus.Call, *Call) {
	t.Helper()
	call := c.Object(testService, testPath).Go(testIface+".Hang", 0, nil)
	for {
		svc.mu.Lock()
		n := len(svc.hung)
		svc.mu.Unlock()
		if n == 1 && b.PendingCalls() == 1 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	svc.mu.Lock()
	defer svc.mu.Unlock()
	return call, svc.hung[0]
}

// As dbus-daemon: when the service's instance leaves the bus, the calls
// it has not answered get NoReply from the bus driver, after the
// NameOwnerChanged signals of its names; its late answer goes nowhere.
func TestServiceLeavingAnswersPendingCallsNoReply(t *testing.T) {
	b, svc := newTestBus(t)
	c, ch := serviceWatcher(t, b)
	call, sc := hangCall(t, b, svc, c)
	old, _ := b.ReconnectService()
	<-call.Done
	var de dbus.Error
	if e, ok := call.Err.(dbus.Error); ok {
		de = e
	}
	if diff := cmp.Diff(dbus.Error{Name: errNoReply, Body: []any{noReplyGone}}, de); diff != "" {
		t.Fatalf("answer to the pending call (-want +got):\n%s\n(err %v)", diff, call.Err)
	}
	for _, name := range []string{testService, old} {
		s := nextDriverSignal(t, ch, "NameOwnerChanged")
		if s.Body[0] != name || s.Sequence > call.ResponseSequence {
			t.Errorf("NameOwnerChanged %v (sequence %d) should come before the NoReply (sequence %d)", s.Body, s.Sequence, call.ResponseSequence)
		}
	}
	if !sc.Dropped() {
		t.Error("Dropped = false for a call the bus answered")
	}
	sc.Reply() // too late: nothing reaches the client
	if n := b.PendingCalls(); n != 0 {
		t.Errorf("PendingCalls = %d after the instance left", n)
	}
	var got string
	if err := c.Object(testService, testPath).Call(testIface+".Echo", 0, "after").Store(&got); err != nil {
		t.Fatal(err)
	}
}

// TimeOut answers as dbus-daemon's reply timeout does, the service still
// on the bus.
func TestCallTimeOut(t *testing.T) {
	b, svc := newTestBus(t)
	c := busClient(t, b)
	call, sc := hangCall(t, b, svc, c)
	sc.TimeOut()
	<-call.Done
	want := dbus.Error{Name: errNoReply, Body: []any{noReplyTimeout}}
	if diff := cmp.Diff(want, call.Err); diff != "" {
		t.Fatalf("answer (-want +got):\n%s", diff)
	}
	if sc.Dropped() {
		t.Error("Dropped = true for a call the service timed out")
	}
	if n := b.PendingCalls(); n != 0 {
		t.Errorf("PendingCalls = %d after the timeout", n)
	}
}
