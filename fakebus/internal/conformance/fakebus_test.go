package conformance

import (
	"testing"

	"github.com/godbus/dbus/v5"
	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestConformanceFakebus runs the suite against fakebus.
func TestConformanceFakebus(t *testing.T) {
	s := fakebus.New(t)
	runSuite(t, backend{
		name:    "fakebus",
		version: fakebus.DefaultVersion,
		connect: func(t *testing.T) *sdbus.Conn { return s.Conn(t) },
		connectPrivate: func(t *testing.T) *sdbus.Conn {
			return s.PrivateConn(t)
		},
		unitFile: func(t *testing.T, _ *env, f aliasedService) { fakeUnitFile(t, s, f) },
		subcgroup: func(t *testing.T, _ *env, unit, sub string) {
			if err := s.MakeSubcgroup(unit, sub); err != nil {
				t.Fatal(err)
			}
		},
		rawBus: func(t *testing.T, opts ...dbus.ConnOption) *dbus.Conn { return s.RawConn(t, opts...) },
	})
}
