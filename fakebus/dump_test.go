package fakebus_test

import (
	"context"
	"errors"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/google/go-cmp/cmp"
	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus"
	"golang.org/x/sys/unix"
)

// TestDumpUnitsMatchingPatterns: the blocks of the units matching a
// pattern, without the manager's header; no pattern is Dump.
func TestDumpUnitsMatchingPatterns(t *testing.T) {
	s := fakebus.New(t)
	c := s.Conn(t)
	ctx := ctxFor(t)
	for _, n := range []string{"a1.service", "a2.service", "b.service"} {
		j, err := c.StartTransientUnit(ctx, n, sdbus.ModeReplace, sleeper())
		runJob(ctx, t, j, err)
	}
	r := rawBus(t, s)
	var full string
	r.mustManager(t, "Dump", nil, &full)
	for _, tc := range []struct {
		patterns []string
		want     []string // the units dumped
		header   bool
	}{
		{nil, nil, true},
		{[]string{"a*"}, []string{"a1.service", "a2.service"}, false},
		{[]string{"b.service", "nomatch"}, []string{"b.service"}, false},
		{[]string{"nomatch*"}, []string{}, false},
		{[]string{"bogus["}, []string{}, false},
	} {
		t.Run(strings.Join(tc.patterns, ","), func(t *testing.T) {
			var out string
			r.mustManager(t, "DumpUnitsMatchingPatterns", []any{tc.patterns}, &out)
			if tc.header {
				if out != full {
					t.Errorf("DumpUnitsMatchingPatterns() differs from Dump:\n%s\n%s", out, full)
				}
				return
			}
			units := []string{}
			for _, l := range strings.Split(out, "\n") {
				if u, ok := strings.CutPrefix(l, "-> Unit "); ok {
					units = append(units, strings.TrimSuffix(u, ":"))
				} else if strings.HasPrefix(l, "Manager: ") {
					t.Errorf("header in %q", out)
				}
			}
			if diff := cmp.Diff(tc.want, units); diff != "" {
				t.Errorf("units dumped (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDumpByFileDescriptor: systemd never answers these calls to a
// connection that did not negotiate file descriptors (a pipe to the fake
// cannot); neither does the fake (the caller's timeout ends them). 247
// lacks DumpUnitsMatchingPatterns*.
func TestDumpByFileDescriptor(t *testing.T) {
	for _, tc := range []struct {
		version, method string
		args            []any
		want            string // error name; "" for no reply
	}{
		{fakebus.DefaultVersion, "DumpByFileDescriptor", nil, ""},
		{fakebus.DefaultVersion, "DumpUnitsMatchingPatternsByFileDescriptor", []any{[]string{"*"}}, ""},
		{"247.3-7+deb11u8", "DumpByFileDescriptor", nil, ""},
		{"247.3-7+deb11u8", "DumpUnitsMatchingPatternsByFileDescriptor", []any{[]string{"*"}}, "org.freedesktop.DBus.Error.UnknownMethod"},
		{"247.3-7+deb11u8", "DumpUnitsMatchingPatterns", []any{[]string{"*"}}, "org.freedesktop.DBus.Error.UnknownMethod"},
	} {
		t.Run(tc.version+"/"+tc.method, func(t *testing.T) {
			r := rawBus(t, fakebus.New(t, fakebus.WithVersion(tc.version)))
			ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
			defer cancel()
			err := r.Object(systemd1, managerPath).CallWithContext(ctx, managerIface+"."+tc.method, 0, tc.args...).Err
			if tc.want == "" {
				if !errors.Is(err, context.DeadlineExceeded) {
					t.Errorf("%s: %v, want no reply", tc.method, err)
				}
				return
			}
			if got := errName(err); got != tc.want {
				t.Errorf("%s: %q, want %q", tc.method, got, tc.want)
			}
		})
	}
}

// unixFDConn connects a godbus client to the fake's bus socket, where it
// negotiates unix fd passing, and says Hello.
func unixFDConn(t *testing.T, s *fakebus.Server) *dbus.Conn {
	t.Helper()
	addr, err := s.Address()
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
	if err := c.Hello(); err != nil {
		t.Fatal(err)
	}
	if !c.SupportsUnixFDs() {
		t.Fatal("no unix fd passing on the fake's socket")
	}
	return c
}

// TestDumpByFileDescriptorUnixFDs: to a client that takes file
// descriptors, the ByFileDescriptor dumps answer one holding what Dump and
// DumpUnitsMatchingPatterns answer, made as systemd 252 makes it: a memfd
// named data-fd at offset 0, sealed (F_GET_SEALS 0xf), or /dev/null for
// nothing.
func TestDumpByFileDescriptorUnixFDs(t *testing.T) {
	s := fakebus.New(t)
	c := unixFDConn(t, s)
	m := c.Object(systemd1, managerPath)
	var full, some string
	if err := m.Call(managerIface+".Dump", 0).Store(&full); err != nil {
		t.Fatal(err)
	}
	if err := m.Call(managerIface+".DumpUnitsMatchingPatterns", 0, []string{"*.slice"}).Store(&some); err != nil {
		t.Fatal(err)
	}
	type fdInfo struct {
		Link  string
		Seals int
		Data  string
	}
	memfd := "/memfd:data-fd (deleted)"
	for _, tc := range []struct {
		method string
		args   []any
		want   fdInfo
	}{
		{"DumpByFileDescriptor", nil, fdInfo{memfd, 0xf, full}},
		{"DumpUnitsMatchingPatternsByFileDescriptor", []any{[]string{"*.slice"}}, fdInfo{memfd, 0xf, some}},
		{"DumpUnitsMatchingPatternsByFileDescriptor", []any{[]string{"nomatch"}}, fdInfo{"/dev/null", -1, ""}},
	} {
		t.Run(tc.method, func(t *testing.T) {
			var fd dbus.UnixFD
			if err := m.Call(managerIface+"."+tc.method, 0, tc.args...).Store(&fd); err != nil {
				t.Fatal(err)
			}
			f := os.NewFile(uintptr(fd), "dump")
			defer f.Close()
			var got fdInfo
			got.Link, _ = os.Readlink("/proc/self/fd/" + strconv.Itoa(int(fd)))
			var err error
			got.Seals, err = unix.FcntlInt(f.Fd(), unix.F_GET_SEALS, 0)
			if err != nil {
				got.Seals = -1
			}
			data, err := io.ReadAll(f)
			if err != nil {
				t.Fatal(err)
			}
			got.Data = string(data)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s(%v) (-want +got):\n%s", tc.method, tc.args, diff)
			}
		})
	}
}
