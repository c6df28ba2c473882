package busd

import (
	"testing"

	"github.com/godbus/dbus/v5"
	"github.com/google/go-cmp/cmp"
)

const testControl = "org.test.Control"

// controlBus returns a bus with a control service that echoes its
// calls' member and the service's "Block" method blocked until the test
// ends.
func controlBus(t *testing.T) *Bus {
	t.Helper()
	b, _ := newTestBus(t, func(c *Config) {
		c.ControlName = testControl
		c.ControlHandler = func(c *Call) {
			if c.Member == "Fail" {
				c.ReplyError(testErrorName, "control failed")
				return
			}
			c.Reply("control " + c.Member)
		}
	})
	return b
}

func TestControlService(t *testing.T) {
	b := controlBus(t)
	c := busClient(t, b)
	me := c.Names()[0]
	driver := c.BusObject()
	for _, tt := range []struct {
		name   string
		method string
		args   []any
		want   any
	}{
		{"names", "ListNames", nil, []string{ControlUniqueName, ":1.1", me, "org.freedesktop.DBus", testControl, testService}},
		{"owner", "GetNameOwner", []any{testControl}, ControlUniqueName},
		{"has owner", "NameHasOwner", []any{ControlUniqueName}, true},
		{"uid", "GetConnectionUnixUser", []any{testControl}, b.uid},
		{"pid", "GetConnectionUnixProcessID", []any{ControlUniqueName}, b.pid},
		{"request", "RequestName", []any{testControl, uint32(0)}, uint32(requestNameExists)},
		{"release", "ReleaseName", []any{testControl}, uint32(releaseNameNotOwner)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			call := driver.Call("org.freedesktop.DBus."+tt.method, 0, tt.args...)
			if call.Err != nil {
				t.Fatal(call.Err)
			}
			if diff := cmp.Diff(tt.want, call.Body[0]); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	for _, dest := range []string{testControl, ControlUniqueName} {
		t.Run("call "+dest, func(t *testing.T) {
			var got string
			if err := c.Object(dest, "/x").Call("org.test.X.Hello", 0).Store(&got); err != nil || got != "control Hello" {
				t.Errorf("got %q, %v; want \"control Hello\"", got, err)
			}
			if err := c.Object(dest, "/x").Call("org.test.X.Fail", 0).Err; dbusErrorName(err) != testErrorName {
				t.Errorf("Fail: %v, want %s", err, testErrorName)
			}
			if err := c.Object(dest, "/x").Call("org.freedesktop.DBus.Peer.Ping", 0).Err; err != nil {
				t.Errorf("Ping: %v", err)
			}
		})
	}
}

// TestControlReplySender: the control service's replies come from its
// own unique name, which a ReconnectService of the service leaves alone.
func TestControlReplySender(t *testing.T) {
	b := controlBus(t)
	c := busClient(t, b)
	b.RenewServiceName()
	call := c.Object(testControl, "/x").Call("org.test.X.Hello", 0)
	if call.Err != nil {
		t.Fatal(call.Err)
	}
	var owner string
	if err := c.BusObject().Call("org.freedesktop.DBus.GetNameOwner", 0, testControl).Store(&owner); err != nil || owner != ControlUniqueName {
		t.Errorf("owner after renewing the service = %q, %v; want %s", owner, err, ControlUniqueName)
	}
}

// TestControlNotCountedByDropAfterReply: DropAfterReply counts the
// service's replies, never the control service's.
func TestControlNotCountedByDropAfterReply(t *testing.T) {
	b := controlBus(t)
	c := busClient(t, b)
	b.DropAfterReply("Echo", 1)
	if err := c.Object(testControl, "/x").Call("org.test.X.Echo", 0).Err; err != nil {
		t.Fatal(err)
	}
	if err := c.Object(testControl, "/x").Call("org.test.X.Echo", 0).Err; err != nil {
		t.Fatalf("second control call: %v (the connection was dropped)", err)
	}
	if err := c.Object(testService, testPath).Call(testIface+".Echo", 0).Err; err != nil {
		t.Fatal(err)
	}
	if err := c.Object(testControl, "/x").Call("org.test.X.Echo", 0).Err; err == nil {
		t.Fatal("connection still up after the service's Echo: DropAfterReply did not apply")
	}
}

// TestNoControl: without ControlName nobody owns it.
func TestNoControl(t *testing.T) {
	b, _ := newTestBus(t)
	c := busClient(t, b)
	err := c.Object(ControlUniqueName, "/x").Call("org.test.X.Hello", 0).Err
	if dbusErrorName(err) != errNameHasNoOwner {
		t.Errorf("call to %s: %v, want %s", ControlUniqueName, err, errNameHasNoOwner)
	}
}

// TestDropPeersBut keeps the one connection.
func TestDropPeersBut(t *testing.T) {
	b := controlBus(t)
	keep, drop := busClient(t, b), busClient(t, b)
	b.DropPeersBut(peerNamed(t, b, keep.Names()[0]))
	waitFor := func(c *dbus.Conn) error { return c.BusObject().Call("org.freedesktop.DBus.GetId", 0).Err }
	if err := waitFor(keep); err != nil {
		t.Errorf("kept connection: %v", err)
	}
	if err := waitFor(drop); err == nil {
		t.Error("dropped connection still answers")
	}
}
