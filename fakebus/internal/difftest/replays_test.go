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
