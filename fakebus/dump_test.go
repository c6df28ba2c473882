package fakebus_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus"
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

// TestDumpByFileDescriptor: no connection to the fake passes file
// descriptors, and systemd never answers such a connection these calls;
// neither does the fake (the caller's timeout ends them). 247 lacks
// DumpUnitsMatchingPatterns*.
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
