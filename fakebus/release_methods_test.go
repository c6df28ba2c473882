package fakebus_test

import (
	"testing"

	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus"
)

// TestReleaseMethodsFakeOnly: the answers of the later releases'
// Manager methods that the conformance suite cannot share with a real
// systemd, which it talks to as root: SoftReboot answers AccessDenied, as
// to a caller that is not root, where the release has it; a sub-cgroup
// RemoveSubgroupFromUnit removed is gone for AttachProcessesToUnit.
func TestReleaseMethodsFakeOnly(t *testing.T) {
	for _, tc := range []struct {
		version, want string
	}{
		{"252.38-1~deb12u1", "org.freedesktop.DBus.Error.UnknownMethod"},
		{"257.13-1~deb13u1", "org.freedesktop.DBus.Error.AccessDenied"},
		{"262.1-1", "org.freedesktop.DBus.Error.AccessDenied"},
	} {
		t.Run("SoftReboot/"+tc.version, func(t *testing.T) {
			r := rawBus(t, fakebus.New(t, fakebus.WithVersion(tc.version)))
			if got := errName(r.manager("SoftReboot", []any{"relative"})); got != tc.want {
				t.Errorf("SoftReboot: error %q, want %q", got, tc.want)
			}
		})
	}
	t.Run("RemoveSubgroupFromUnit", func(t *testing.T) {
		s := fakebus.New(t, fakebus.WithVersion("262.1-1"), fakebus.WithMadeUpPIDs())
		ctx := ctxFor(t)
		j, err := s.Conn(t).StartTransientUnit(ctx, "deleg.service", sdbus.ModeReplace, sleeper(sdbus.PropDelegate(true)))
		runJob(ctx, t, j, err)
		if err := s.MakeSubcgroup("deleg.service", "/a/b"); err != nil {
			t.Fatal(err)
		}
		r := rawBus(t, s)
		attach := func(sub string) string {
			return errName(r.manager("AttachProcessesToUnit", []any{"deleg.service", sub, []uint32{4242}}))
		}
		if got := attach("/a/b"); got != "" {
			t.Fatalf("AttachProcessesToUnit(/a/b) before the removal: %q", got)
		}
		r.mustManager(t, "RemoveSubgroupFromUnit", []any{"deleg.service", "/a", uint64(0)})
		for _, sub := range []string{"/a", "/a/b"} {
			if got, want := attach(sub), "org.freedesktop.DBus.Error.FileNotFound"; got != want {
				t.Errorf("AttachProcessesToUnit(%s) after removing /a: %q, want %q", sub, got, want)
			}
		}
	})
}
