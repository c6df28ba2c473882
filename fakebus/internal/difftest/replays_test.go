package difftest

import (
	"context"
	"fmt"
	"testing"
)

// replays are sequences on which fakebus once differed from systemd, as
// the tester printed them after shrinking: TestDifferentialReplays runs
// each on the sandbox's systemd and on fakebus playing its release.
var replays = []struct {
	name string
	seq  []Op
}{
	// A scope of a zombie runs on until the zombie is reaped (the fake
	// ended it at once; 257, 262).
	{"zombie scope", []Op{
		{Kind: "StartTransientUnit", Unit: 2, Mode: "replace", Spawn: []ProcKind{1}, Props: []Prop{{"PIDs", PIDList{0}}}},
	}},
	// UnitExists for the name of a failed transient unit (247's text
	// differs).
	{"failed unit's name taken", []Op{
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{{"ExecStart", Command(2)}, {"CollectMode", "inactive"}}},
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace"},
		{Kind: "StartTransientUnit", Unit: 1, Mode: "replace"},
	}},
	// A unit no file defines: LoadError NoSuchUnit, Result success,
	// Type "" (the fake: "", "" and simple).
	{"not-found unit", []Op{
		{Kind: "LoadUnit", Unit: 0},
	}},
	// SetUnitProperties loads a slice no one started, which is
	// collected at once (the fake kept it loaded).
	{"set on a slice not loaded", []Op{
		{Kind: "SetUnitProperties", Unit: 4},
	}},
	// A transient timer with unit settings but no timer settings fails
	// to load (the fake refused any timer with settings as unsupported).
	{"timer without triggers", []Op{
		{Kind: "StartTransientUnit", Unit: 6, Mode: "replace", Props: []Prop{{"Description", "a unit"}}},
	}},
	// SetUnitProperties of a setting only a transient unit being made
	// takes (the fake set it on the loaded unit).
	{"not a live setting", []Op{
		{Kind: "StartTransientUnit", Unit: 0, Mode: "replace", Props: []Prop{{"ExecStart", Command(0)}}},
		{Kind: "SetUnitProperties", Unit: 0, Props: []Prop{{"CollectMode", ""}}},
	}},
	// StartTransientUnit words an unknown job mode otherwise than
	// StartUnit.
	{"transient job mode", []Op{
		{Kind: "StartTransientUnit", Unit: 1, Mode: "bogus", Props: []Prop{{"ExecStart", Command(2)}}},
		{Kind: "StartUnit", Unit: 1, Mode: "bogus"},
	}},
}

func TestDifferentialReplays(t *testing.T) {
	real, fake := sandboxBackends(t)
	ctx := context.Background()
	for n, r := range replays {
		t.Run(r.name, func(t *testing.T) {
			i, want, got, err := runBoth(ctx, real, fake, r.seq, fmt.Sprintf("dr%d", n))
			switch {
			case err != nil:
				t.Fatal(err)
			case i >= 0 && knownDifference(r.seq[i], want, got) == nil:
				t.Errorf("step %d differs:\n-%s\n+fakebus:\n%s", i+1, want, got)
			}
		})
	}
}
