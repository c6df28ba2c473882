package fakebus_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/sdbus-go/sdbus/fakebus"
)

// TestSocketModes: the fake's sockets have the modes of dbus-daemon's
// bus socket (0666) and of systemd's private socket (0700; measured on
// 252, 257, 262), whatever the umask (with the old code they followed it:
// srwxr-xr-x, so a user other than the fake's could not connect to the
// bus, while a real system bus answers anyone's reads).
func TestSocketModes(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	s := fakebus.New(t)
	dir := t.TempDir()
	if err := s.ListenUnix(filepath.Join(dir, "bus"), false); err != nil {
		t.Fatal(err)
	}
	if err := s.ListenUnix(filepath.Join(dir, "private"), true); err != nil {
		t.Fatal(err)
	}
	bus, err := s.Address()
	if err != nil {
		t.Fatal(err)
	}
	private, err := s.PrivateAddress()
	if err != nil {
		t.Fatal(err)
	}
	mode := func(p string) os.FileMode {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Mode().Perm()
	}
	want := map[string]os.FileMode{"bus": 0o666, "private": 0o700, "Address": 0o666, "PrivateAddress": 0o700}
	got := map[string]os.FileMode{
		"bus": mode(filepath.Join(dir, "bus")), "private": mode(filepath.Join(dir, "private")),
		"Address":        mode(strings.TrimPrefix(bus, "unix:path=")),
		"PrivateAddress": mode(strings.TrimPrefix(private, "unix:path=")),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("socket modes (-want +got):\n%s", diff)
	}
}
