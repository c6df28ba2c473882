package conformance

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	if os.Getenv(selfChildEnv) != "" {
		os.Exit(selfChild())
	}
	goleak.VerifyTestMain(m)
}

// fakeReleases are the releases the suite runs on fakebus: the four it
// runs on for real (scripts/conformance-systemd), so that each fake run can
// be compared case by case with the real one.
var fakeReleases = []string{"247.3-7+deb11u8", fakebus.DefaultVersion, "257.13-1~deb13u1", "262.1-1"}

// TestConformanceFakebus runs the suite against fakebus playing each of
// fakeReleases (WithVersion), and against the same release's user manager:
// one subtest each, all at once (a fake's cases mostly wait on its
// timers; make check runs them with -parallel 8). Their summary lines
// are logged once all ended, in the order of fakeReleases.
func TestConformanceFakebus(t *testing.T) {
	summaries := make([]string, 2*len(fakeReleases))
	t.Cleanup(func() {
		for _, s := range summaries {
			if s != "" {
				t.Log(s)
			}
		}
	})
	for i, version := range fakeReleases {
		i, version := i, version
		t.Run(version, func(t *testing.T) {
			t.Parallel()
			s := fakebus.New(t, fakebus.WithVersion(version))
			// As on systemd, calls sent while the manager re-executes
			// wait unread (ReexecUnread*).
			s.SetReexecDuration(50 * time.Millisecond)
			summaries[2*i] = runSuite(t, backend{
				name:    "fakebus",
				version: version,
				connect: func(t *testing.T) *sdbus.Conn { return s.Conn(t) },
				connectPrivate: func(t *testing.T) *sdbus.Conn {
					return s.PrivateConn(t)
				},
				unitFile:       func(t *testing.T, _ *env, f aliasedService) { fakeUnitFile(t, s, f) },
				configDir:      s.UnitDir(),
				runtimeDir:     s.RuntimeUnitDir(),
				busAddress:     fakeAddress(s),
				privateAddress: fakePrivateAddress(s),
				subcgroup:      fakeSubcgroup(s),
				rawBus:         fakeRawBus(s),
				rawBusNoFDs:    func(t *testing.T) *dbus.Conn { return s.RawConn(t) },
			})
		})
		// The same release's user manager, on its private socket and its
		// bus, as TestConformanceUserManager reaches the real one.
		t.Run(version+"-user", func(t *testing.T) {
			t.Parallel()
			uid := os.Geteuid()
			// The system manager the user manager runs in, for the
			// limits above it.
			sys := fakebus.New(t, fakebus.WithVersion(version), fakebus.WithUnitFile(fakebus.UnitFile{
				Name: fmt.Sprintf("user@%d.service", uid), Active: true,
				Properties: []sdbus.Property{sdbus.PropSlice(fmt.Sprintf("user-%d.slice", uid)),
					sdbus.PropExecStart([]string{"/bin/sleep", "3600"}, false)},
			}))
			sysConn := sys.Conn(t)
			s := fakebus.New(t, fakebus.WithVersion(version), fakebus.WithUserManager(uid))
			s.SetReexecDuration(50 * time.Millisecond)
			summaries[2*i+1] = runSuite(t, backend{
				name:           fmt.Sprintf("fakebus --user (uid %d)", uid),
				version:        version,
				user:           true,
				connect:        func(t *testing.T) *sdbus.Conn { return s.PrivateConn(t, sdbus.WithSystemManager(sysConn)) },
				connectPrivate: func(t *testing.T) *sdbus.Conn { return s.PrivateConn(t, sdbus.WithSystemManager(sysConn)) },
				systemManager:  func(*testing.T) *sdbus.Conn { return sysConn },
				unitFile:       func(t *testing.T, _ *env, f aliasedService) { fakeUnitFile(t, s, f) },
				configDir:      s.UnitDir(),
				runtimeDir:     s.RuntimeUnitDir(),
				privateAddress: fakePrivateAddress(s),
				subcgroup:      fakeSubcgroup(s),
				// Its bus, as a user manager's on its user bus.
				busAddress:  fakeAddress(s),
				rawBus:      fakeRawBus(s),
				rawBusNoFDs: func(t *testing.T) *dbus.Conn { return s.RawConn(t) },
			})
		})
	}
}

// fakeRawBus connects godbus to the fake's bus socket, as rawBus connects
// to dbus-daemon's: with unix fd passing (Server.RawConn's in-memory pipe
// has none).
func fakeRawBus(s *fakebus.Server) func(*testing.T, ...dbus.ConnOption) *dbus.Conn {
	return func(t *testing.T, opts ...dbus.ConnOption) *dbus.Conn {
		addr, err := s.Address()
		if err != nil {
			t.Fatal(err)
		}
		c, err := dbus.Dial(addr, opts...)
		return helloed(t, c, err)
	}
}

func fakeAddress(s *fakebus.Server) func(*testing.T) string {
	return func(t *testing.T) string {
		addr, err := s.Address()
		if err != nil {
			t.Fatal(err)
		}
		return addr
	}
}

func fakePrivateAddress(s *fakebus.Server) func(*testing.T) string {
	return func(t *testing.T) string {
		addr, err := s.PrivateAddress()
		if err != nil {
			t.Fatal(err)
		}
		return addr
	}
}

func fakeSubcgroup(s *fakebus.Server) func(*testing.T, *env, string, string) {
	return func(t *testing.T, _ *env, unit, sub string) {
		if err := s.MakeSubcgroup(unit, sub); err != nil {
			t.Fatal(err)
		}
	}
}
