package busd

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/google/go-cmp/cmp"
)

// socketClient connects a godbus client to a unix socket.
func socketClient(t testing.TB, path string, hello bool) *dbus.Conn {
	t.Helper()
	conn, err := dbus.Dial("unix:path=" + path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if err := conn.Auth(nil); err != nil {
		t.Fatalf("Auth: %v", err)
	}
	if hello {
		if err := conn.Hello(); err != nil {
			t.Fatalf("Hello: %v", err)
		}
	}
	return conn
}

func TestListen(t *testing.T) {
	b, svc := newTestBus(t)
	dir := t.TempDir()
	busSock := filepath.Join(dir, "bus")
	peerSock := filepath.Join(dir, "private")
	// A stale socket file is replaced.
	if err := os.WriteFile(busSock, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := b.Listen(busSock, BusMode); err == nil {
		t.Error("Listen over a regular file succeeded; want an error")
	}
	os.Remove(busSock)
	if err := b.Listen(busSock, BusMode); err != nil {
		t.Fatal(err)
	}
	if err := b.Listen(peerSock, PeerMode); err != nil {
		t.Fatal(err)
	}

	c := socketClient(t, busSock, true)
	addMatch(t, c, "type='signal',sender='"+testService+"'")
	ch := signals(c, 10)
	var name, dest string
	var uid, pid uint32
	if err := c.Object(testService, testPath).Call(testIface+".WhoAmI", 0).Store(&name, &uid, &pid, &dest); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]any{c.Names()[0], uint32(os.Getuid()), uint32(os.Getpid())}, []any{name, uid, pid}); diff != "" {
		t.Errorf("WhoAmI over a socket (-want +got):\n%s", diff)
	}

	pc := socketClient(t, peerSock, false)
	pch := signals(pc, 10)
	if err := pc.Object("", testPath).Call(testIface+".WhoAmI", 0).Store(&name, &uid, &pid, &dest); err != nil {
		t.Fatal(err)
	}
	if name != "" || uid != uint32(os.Getuid()) {
		t.Errorf("PeerMode WhoAmI = %q, %d", name, uid)
	}

	b.Emit(testPath, testIface, "Both")
	if s := nextSignal(t, ch); s.Sender != ":1.1" || s.Name != testIface+".Both" {
		t.Errorf("bus client got %s from %q", s.Name, s.Sender)
	}
	if s := nextSignal(t, pch); s.Sender != "" || s.Name != testIface+".Both" {
		t.Errorf("peer client got %s from %q", s.Name, s.Sender)
	}

	// A claimed uid that differs from SO_PEERCRED is rejected. (godbus never
	// claims one: it sends AUTH EXTERNAL and an empty DATA.)
	for _, tt := range []struct {
		uid  int
		want string
	}{
		{os.Getuid() + 1, "REJECTED EXTERNAL\r\n"},
		{os.Getuid(), "OK " + b.guid + "\r\n"},
	} {
		raw, err := net.Dial("unix", busSock)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(raw, "\x00AUTH EXTERNAL %x\r\n", strconv.Itoa(tt.uid))
		got, err := bufio.NewReader(raw).ReadString('\n')
		raw.Close()
		if got != tt.want {
			t.Errorf("AUTH EXTERNAL as uid %d: %q, %v; want %q", tt.uid, got, err, tt.want)
		}
	}

	c.Close()
	pc.Close()
	<-svc.gone
	<-svc.gone
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{busSock, peerSock} {
		if _, err := os.Lstat(p); !os.IsNotExist(err) {
			t.Errorf("%s still exists after Close: %v", p, err)
		}
	}
	if err := b.Listen(busSock, BusMode); err == nil {
		t.Error("Listen after Close succeeded")
	}
}

// TestBusctl drives sd-bus (pipelined SASL, its own serials) through busctl.
func TestBusctl(t *testing.T) {
	busctl, err := exec.LookPath("busctl")
	if err != nil {
		t.Skip("busctl not installed")
	}
	b, _ := newTestBus(t)
	sock := filepath.Join(t.TempDir(), "bus")
	if err := b.Listen(sock, BusMode); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) (string, string, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, busctl, append([]string{"--address=unix:path=" + sock}, args...)...)
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		return strings.TrimSpace(stdout.String()), strings.TrimSpace(stderr.String()), err
	}
	tests := []struct {
		name       string
		args       []string
		wantOut    string
		wantErrOut string // substring of stderr; a failure is expected if set
	}{
		{"ListNames", []string{"call", driverName, string(driverPath), driverIface, "ListNames"},
			`as 4 ":1.1" ":1.2" "org.freedesktop.DBus" "org.test.Service"`, ""},
		{"GetNameOwner", []string{"call", driverName, string(driverPath), driverIface, "GetNameOwner", "s", testService}, `s ":1.1"`, ""},
		{"service string reply", []string{"call", testService, string(testPath), testIface, "Echo", "s", "hello world"}, `s "hello world"`, ""},
		{"service typed reply", []string{"call", testService, string(testPath), testIface, "Echo", "uo", "42", "/x/y"}, `uo 42 "/x/y"`, ""},
		{"service error", []string{"call", testService, string(testPath), testIface, "Fail"}, "", "it failed"},
		{"unknown name", []string{"call", "org.example.Nobody", "/", "org.example.Foo", "Bar"}, "", "org.example.Nobody"},
		{"ping", []string{"call", testService, "/", "org.freedesktop.DBus.Peer", "Ping"}, "", ""},
	}
	for _, tt := range tests {
		tt := tt
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, err := run(tt.args...)
			if tt.wantErrOut != "" {
				if err == nil || !strings.Contains(errOut, tt.wantErrOut) {
					t.Errorf("busctl %v: err %v, stderr %q; want failure mentioning %q", tt.args, err, errOut, tt.wantErrOut)
				}
				return
			}
			if err != nil {
				t.Fatalf("busctl %v: %v: %s", tt.args, err, errOut)
			}
			if out != tt.wantOut {
				t.Errorf("busctl %v = %q, want %q", tt.args, out, tt.wantOut)
			}
		})
	}
}

// TestBusctlMonitor runs `busctl monitor` (BecomeMonitor) and checks that it
// sees a call to the service, the reply and a signal.
func TestBusctlMonitor(t *testing.T) {
	busctl, err := exec.LookPath("busctl")
	if err != nil {
		t.Skip("busctl not installed")
	}
	b, _ := newTestBus(t)
	sock := filepath.Join(t.TempDir(), "bus")
	if err := b.Listen(sock, BusMode); err != nil {
		t.Fatal(err)
	}
	pr, pw := io.Pipe()
	cmd := exec.Command(busctl, "--address=unix:path="+sock, "monitor")
	cmd.Stdout, cmd.Stderr = pw, pw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			lines <- strings.TrimSpace(sc.Text())
		}
	}()
	waited := make(chan struct{})
	defer func() {
		_ = cmd.Process.Kill()
		go func() {
			_ = cmd.Wait()
			pw.Close()
			close(waited)
		}()
		for range lines {
		}
		<-waited
	}()
	expect := func(want string) {
		t.Helper()
		timer := time.NewTimer(testTimeout)
		defer timer.Stop()
		for {
			select {
			case line, ok := <-lines:
				if !ok {
					t.Fatalf("busctl monitor ended before printing %q", want)
				}
				if strings.Contains(line, want) {
					return
				}
			case <-timer.C:
				t.Fatalf("busctl monitor did not print %q", want)
			}
		}
	}
	expect("Monitoring bus message stream.")
	c := busClient(t, b)
	if err := c.Object(testService, testPath).Call(testIface+".Echo", 0, "monitored").Err; err != nil {
		t.Fatal(err)
	}
	b.Emit(testPath, testIface, "Watched", "signal body")
	for _, want := range []string{
		"Type=method_call", "Member=Echo", `STRING "monitored";`,
		"Type=method_return", "Sender=:1.1", `STRING "monitored";`,
		"Type=signal", "Member=Watched", `STRING "signal body";`,
	} {
		expect(want)
	}
}

// A second server never takes over a socket another one still serves
// (two fakesystemd on one --socket path); a stale socket file, which
// nobody accepts on, is replaced.
func TestListenRefusesASocketInUse(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bus")
	first, _ := newTestBus(t)
	if err := first.Listen(path, BusMode); err != nil {
		t.Fatal(err)
	}
	second, _ := newTestBus(t)
	if err := second.Listen(path, BusMode); !errors.Is(err, ErrSocketInUse) {
		t.Fatalf("Listen on a served socket = %v, want ErrSocketInUse", err)
	}
	socketClient(t, path, true) // still the first server's

	stale := filepath.Join(t.TempDir(), "stale")
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: stale, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	l.SetUnlinkOnClose(false)
	l.Close()
	if err := second.Listen(stale, BusMode); err != nil {
		t.Fatalf("Listen on a stale socket file = %v, want it replaced", err)
	}
	socketClient(t, stale, true)
}
