package fakebus_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus"
)

// TestStartRateLimit: the start after StartLimitBurst= starts within the
// interval fails the unit and its job; a start of an active unit does not
// count, ResetFailedUnit forgets the starts, a daemon-reload does before
// 257, and a burst or an interval of 0 turns the limit off. What each
// step is measured against is in the differential tester's replays
// ("start rate limit", "start rate limit counts", "start rate limit
// across a reload").
func TestStartRateLimit(t *testing.T) {
	type step struct {
		op   string // "start", "restart", "reset-failed", "reload"
		want string // the job's result, then ActiveState and Result; "" for no job
	}
	unit := func(props ...sdbus.Property) fakebus.UnitFile {
		return fakebus.UnitFile{Name: "limited.service", Properties: append([]sdbus.Property{
			sdbus.PropExecStart([]string{"/bin/sleep", "infinity"}, false),
		}, props...)}
	}
	burst := func(n uint32) sdbus.Property { return sdbus.PropRaw("StartLimitBurst", n) }
	for _, tc := range []struct {
		name    string
		version string
		unit    fakebus.UnitFile
		steps   []step
	}{
		{"burst 2", "252", unit(burst(2)), []step{
			{"start", "done active success"},
			{"start", "done active success"}, // active: not counted
			{"restart", "done active success"},
			{"restart", "failed failed start-limit-hit"},
			{"start", "failed failed start-limit-hit"},
			{"reset-failed", ""},
			{"start", "done active success"},
			{"reset-failed", ""}, // of an active unit too
			{"restart", "done active success"},
			{"restart", "done active success"},
			{"restart", "failed failed start-limit-hit"},
		}},
		{"reload forgets before 257", "252", unit(burst(2)), []step{
			{"start", "done active success"},
			{"reload", ""},
			{"restart", "done active success"},
			{"restart", "done active success"},
		}},
		{"reload keeps from 257", "257", unit(burst(2)), []step{
			{"start", "done active success"},
			{"reload", ""},
			{"restart", "done active success"},
			{"restart", "failed failed start-limit-hit"},
		}},
		{"burst 0", "252", unit(burst(0)), []step{
			{"start", "done active success"},
			{"restart", "done active success"},
			{"restart", "done active success"},
			{"restart", "done active success"},
		}},
		{"interval 0", "252", unit(burst(1), sdbus.PropRaw("StartLimitIntervalUSec", uint64(0))), []step{
			{"start", "done active success"},
			{"restart", "done active success"},
			{"restart", "done active success"},
		}},
		{"default burst", "252", unit(), []step{
			{"start", "done active success"},
			{"restart", "done active success"},
			{"restart", "done active success"},
			{"restart", "done active success"},
			{"restart", "done active success"},
			{"restart", "failed failed start-limit-hit"},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := fakebus.New(t, fakebus.WithVersion(tc.version), fakebus.WithUnitFile(tc.unit))
			c := s.Conn(t)
			ctx := ctxFor(t)
			var want, got []string
			for _, st := range tc.steps {
				want = append(want, st.op+": "+st.want)
				var j *sdbus.Job
				var err error
				switch st.op {
				case "start":
					j, err = c.StartUnit(ctx, "limited.service", sdbus.ModeReplace)
				case "restart":
					j, err = c.RestartUnit(ctx, "limited.service", sdbus.ModeReplace)
				case "reset-failed":
					err = c.ResetFailedUnit(ctx, "limited.service")
				case "reload":
					err = c.Reload(ctx)
				}
				if err != nil {
					t.Fatalf("%s: %v", st.op, err)
				}
				if j == nil {
					got = append(got, st.op+": ")
					continue
				}
				r, err := j.Wait(ctx)
				if err != nil && r == "" {
					t.Fatalf("%s: %v", st.op, err)
				}
				up, err := c.UnitProperties(ctx, "limited.service")
				if err != nil {
					t.Fatal(err)
				}
				sp, err := c.ServiceProperties(ctx, "limited.service")
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, st.op+": "+string(r)+" "+string(up.ActiveState)+" "+sp.Result)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("steps (-want +got):\n%s", diff)
			}
		})
	}
}
