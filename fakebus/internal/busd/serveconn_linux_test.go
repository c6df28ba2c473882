package busd

import (
	"net"
	"os"
	"syscall"
	"testing"

	"github.com/godbus/dbus/v5"
	"github.com/google/go-cmp/cmp"
)

func TestServeConn(t *testing.T) {
	b, _ := newTestBus(t)
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	conns := make([]net.Conn, 2)
	for i, fd := range fds {
		f := os.NewFile(uintptr(fd), "socketpair")
		c, err := net.FileConn(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		conns[i] = c
	}
	b.ServeConn(conns[0], BusMode)
	c, err := dbus.NewConn(conns[1])
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Auth(nil); err != nil {
		t.Fatal(err)
	}
	if err := c.Hello(); err != nil {
		t.Fatal(err)
	}
	var name, dest string
	var uid, pid uint32
	if err := c.Object(testService, testPath).Call(testIface+".WhoAmI", 0).Store(&name, &uid, &pid, &dest); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]any{c.Names()[0], uint32(os.Getuid()), uint32(os.Getpid())}, []any{name, uid, pid}); diff != "" {
		t.Errorf("WhoAmI over ServeConn (-want +got):\n%s", diff)
	}
	if ps := b.Peers(); len(ps) != 1 || !ps[0].credKnown {
		t.Errorf("credentials not taken from SO_PEERCRED")
	}
}
