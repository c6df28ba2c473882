package conformance

import (
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus/internal/sdversions"
)

// testDumpVariants: DumpUnitsMatchingPatterns dumps the matching units
// only, without the manager's header (where the release has it); the
// ByFileDescriptor variants never answer a connection that cannot take
// file descriptors, and answer a memfd holding the dump to one that can.
func testDumpVariants(t *testing.T, e *env) {
	raw := e.rawBus(t)
	name := e.unit("dump", "service")
	e.unitFile(t, e, aliasedService{name: name})
	cleanup(t, e, name)
	j, err := e.c.StartUnit(e.ctx, name, sdbus.ModeReplace)
	if err != nil {
		t.Fatal(err)
	}
	if r, err := j.Wait(e.ctx); err != nil || r != sdbus.JobDone {
		t.Fatalf("start %s: %v, %v", name, r, err)
	}
	var out string
	if !sdversions.HasMethod(e.release, "DumpUnitsMatchingPatterns") {
		if got := managerCall(t, e, raw, "DumpUnitsMatchingPatterns", []any{&out}, []string{name}); errPrefix(got) != "org.freedesktop.DBus.Error.UnknownMethod" {
			t.Errorf("DumpUnitsMatchingPatterns on %s = %s, want UnknownMethod", e.release, got)
		}
	} else {
		if got := managerCall(t, e, raw, "DumpUnitsMatchingPatterns", []any{&out}, []string{name}); got != "ok" {
			t.Fatalf("DumpUnitsMatchingPatterns(%s) = %s", name, got)
		}
		// 257 and later begin a unit's block with "→ Unit", older ones
		// with "-> Unit".
		if !strings.Contains(out, " Unit "+name+":\n") || strings.Contains(out, "Manager: ") || strings.Count(out, " Unit ") != 1 {
			t.Errorf("DumpUnitsMatchingPatterns(%s) = %.300q; want the unit's block alone", name, out)
		}
		if got := managerCall(t, e, raw, "DumpUnitsMatchingPatterns", []any{&out}, []string{"sdbus-conf-nomatch-*"}); got != "ok" || out != "" {
			t.Errorf("DumpUnitsMatchingPatterns(no match) = %s, %.100q; want empty", got, out)
		}
	}

	methods := []struct {
		name string
		args []any
	}{{"DumpByFileDescriptor", nil}}
	if sdversions.HasMethod(e.release, "DumpUnitsMatchingPatternsByFileDescriptor") {
		methods = append(methods, struct {
			name string
			args []any
		}{"DumpUnitsMatchingPatternsByFileDescriptor", []any{[]string{name}}})
	}
	nofd := e.rawBusNoFDs(t)
	var wg sync.WaitGroup
	for _, m := range methods {
		m := m
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(e.ctx, 1500*time.Millisecond)
			defer cancel()
			err := nofd.Object("org.freedesktop.systemd1", "/org/freedesktop/systemd1").CallWithContext(ctx,
				"org.freedesktop.systemd1.Manager."+m.name, 0, m.args...).Err
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("%s without fd passing: %v; want no reply", m.name, err)
			}
		}()
	}
	wg.Wait()
	for _, m := range methods {
		var fd dbus.UnixFD
		if err := raw.Object("org.freedesktop.systemd1", "/org/freedesktop/systemd1").CallWithContext(e.ctx,
			"org.freedesktop.systemd1.Manager."+m.name, 0, m.args...).Store(&fd); err != nil {
			t.Errorf("%s: %v", m.name, err)
			continue
		}
		f := os.NewFile(uintptr(fd), "dump")
		data, err := io.ReadAll(f)
		f.Close()
		if err != nil || !strings.Contains(string(data), " Unit "+name+":\n") {
			t.Errorf("%s: read %d bytes (%v); want a dump naming %s", m.name, len(data), err, name)
		}
	}
}
