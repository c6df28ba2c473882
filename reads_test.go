package sdbus_test

import (
	"sync/atomic"
	"testing"

	"github.com/godbus/dbus/v5"
	"github.com/google/go-cmp/cmp"
	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus"
)

// systemd 262 leaves CPUAccounting out of GetAll while Get still answers
// it: the typed reads must see the value set, not a zero value, on every
// release.
func TestTypedReadsSeeWhatGetAllHides(t *testing.T) {
	for _, version := range []string{"247.3-7+deb11u5", "252.39-1~deb12u2", "257.13-1~deb13u1", "262.1-1"} {
		t.Run(version, func(t *testing.T) {
			leakCheck(t)
			ctx := testCtx(t)
			c := fakebus.New(t, fakebus.WithVersion(version), fakebus.WithMadeUpPIDs()).Conn(t)
			if _, err := c.EnsureTransientUnit(ctx, "acct.slice", []sdbus.Property{
				sdbus.PropCPUAccounting(true), sdbus.PropMemoryAccounting(true),
			}, sdbus.EnsureOptions{}); err != nil {
				t.Fatal(err)
			}
			if _, err := c.EnsureTransientUnit(ctx, "acct.scope", []sdbus.Property{
				sdbus.PropPIDs(4242), sdbus.PropSlice("acct.slice"), sdbus.PropCPUAccounting(true),
			}, sdbus.EnsureOptions{}); err != nil {
				t.Fatal(err)
			}
			type accounting struct{ CPU, Memory bool }
			want := accounting{true, true}
			sl, err := c.SliceProperties(ctx, "acct.slice")
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, accounting{sl.CPUAccounting, sl.MemoryAccounting}); diff != "" {
				t.Errorf("SliceProperties (-want +got):\n%s", diff)
			}
			sc, err := c.ScopeProperties(ctx, "acct.scope")
			if err != nil {
				t.Fatal(err)
			}
			// The scope sets CPUAccounting only; MemoryAccounting is the
			// manager's default, on (DefaultMemoryAccounting=yes, as
			// measured on 247-262).
			if diff := cmp.Diff(accounting{CPU: true, Memory: true}, accounting{sc.CPUAccounting, sc.MemoryAccounting}); diff != "" {
				t.Errorf("ScopeProperties (-want +got):\n%s", diff)
			}
		})
	}
}

// A property the manager does not have at all (UnknownProperty from Get)
// is left at its zero value, and asked for only once per Conn.
func TestTypedReadsAskForAbsentPropertiesOnce(t *testing.T) {
	leakCheck(t)
	ctx := testCtx(t)
	var gets atomic.Int32
	s := fakebus.New(t, fakebus.WithVersion("235"), fakebus.WithTrace(func(e fakebus.Event) {
		if m, _ := e.Msg.Headers[dbus.FieldMember].Value().(string); e.In && m == "Get" {
			gets.Add(1)
		}
	}))
	c := s.Conn(t)
	for i := 0; i < 2; i++ {
		p, err := c.SliceProperties(ctx, "system.slice")
		if err != nil {
			t.Fatal(err)
		}
		type absent struct {
			EffectiveMemoryMax *sdbus.Limit
			DelegateSubgroup   string
			AllowedCPUs        sdbus.CPUSet
		}
		if diff := cmp.Diff(absent{}, absent{p.EffectiveMemoryMax, p.DelegateSubgroup, p.AllowedCPUs}); diff != "" {
			t.Errorf("read %d: properties 235 lacks (-want +got):\n%s", i, diff)
		}
		if i == 0 && gets.Load() < 2 {
			t.Fatalf("first read made %d Get calls, want LoadState and the absent properties", gets.Load())
		}
		if i == 0 {
			gets.Store(0)
		}
	}
	if n := gets.Load(); n != 1 {
		t.Errorf("second read made %d Get calls, want 1 (LoadState)", n)
	}
}
