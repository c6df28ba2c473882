package difftest

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// The generator: sequences of operations drawn with rapid, so that rapid
// shrinks a diverging sequence (fewer steps, simpler draws: the first
// value of each table, fewer properties) to the shortest that still
// diverges. Every choice is a draw; tables put the plain case first, as
// rapid shrinks towards it.

// drawSeq draws a sequence of 1 to max operations, its settings from
// table.
func drawSeq(t *rapid.T, max int, table []propSpec) []Op {
	n := rapid.IntRange(1, max).Draw(t, "steps")
	seq := make([]Op, 0, n)
	spawned := 0
	for i := 0; i < n; i++ {
		o := drawOp(t, spawned, table)
		spawned += len(o.Spawn)
		seq = append(seq, o)
	}
	return seq
}

// opWeights is how often each operation is drawn, in percent.
var opWeights = []struct {
	kind   OpKind
	weight int
}{
	{OpStartTransient, 17},
	{OpStop, 9},
	{OpStart, 6},
	{OpRestart, 4},
	{OpReloadUnit, 1},
	{OpTryRestart, 1},
	{OpReloadOrRestart, 1},
	{OpReloadOrTryRestart, 1},
	{OpKill, 4},
	{OpResetFailed, 4},
	{OpSetProperties, 8},
	{OpAttach, 6},
	{OpProcesses, 4},
	{OpLoad, 5},
	// Unit files: 28%.
	{OpWriteFile, 8},
	{OpRemoveFile, 1},
	{OpLink, 2},
	{OpEnable, 4},
	{OpDisable, 2},
	{OpMask, 2},
	{OpUnmask, 1},
	{OpReload, 4},
	{OpReexec, 1},
	{OpFileState, 2},
	{OpReadFileState, 1},
	{OpListFiles, 1},
}

func drawKind(t *rapid.T) OpKind {
	total := 0
	for _, w := range opWeights {
		total += w.weight
	}
	n := rapid.IntRange(0, total-1).Draw(t, "op")
	for _, w := range opWeights {
		if n < w.weight {
			return w.kind
		}
		n -= w.weight
	}
	return opWeights[0].kind
}

func drawOp(t *rapid.T, spawned int, table []propSpec) Op {
	o := Op{Kind: drawKind(t), Unit: rapid.IntRange(0, len(pool)-1).Draw(t, "unit")}
	k := pool[o.Unit]
	switch o.Kind {
	case OpStartTransient:
		o.Mode = drawMode(t)
		switch k {
		case kService:
			if rapid.IntRange(0, 9).Draw(t, "no ExecStart") > 0 {
				o.Props = append(o.Props, Prop{"ExecStart", Command(rapid.IntRange(0, len(commands)-1).Draw(t, "command"))})
			}
			if rapid.IntRange(0, 3).Draw(t, "control command") == 0 {
				o.Props = append(o.Props, drawControl(t))
			}
		case kScope:
			if rapid.IntRange(0, 9).Draw(t, "no PIDs") > 0 {
				var pids PIDList
				o.Spawn, pids = drawPIDs(t, spawned)
				o.Props = append(o.Props, Prop{"PIDs", pids})
			}
		case kTimer:
			if rapid.IntRange(0, 9).Draw(t, "no timer") > 0 {
				for _, p := range table {
					if p.name == "TimersMonotonic" {
						o.Props = append(o.Props, Prop{p.name, rapid.SampledFrom(p.values).Draw(t, p.name)})
					}
				}
			}
			if rapid.Bool().Draw(t, "aux service") {
				o.Aux = []Prop{{"ExecStart", Command(rapid.IntRange(0, len(commands)-1).Draw(t, "aux command"))}}
			}
		}
		o.Props = append(o.Props, drawProps(t, k, table)...)
	case OpStart, OpStop, OpRestart, OpReloadUnit, OpTryRestart, OpReloadOrRestart, OpReloadOrTryRestart:
		o.Mode = drawMode(t)
	case OpKill:
		o.Whom = rapid.SampledFrom(killWhom).Draw(t, "whom")
		o.Signal = rapid.SampledFrom(killSignals).Draw(t, "signal")
	case OpSetProperties:
		o.Runtime = rapid.Bool().Draw(t, "runtime")
		o.Props = drawProps(t, k, table)
	case OpAttach:
		o.Spawn, o.PIDs = drawPIDs(t, spawned)
	case OpWriteFile:
		o.Dir = FileDir(rapid.SampledFrom([]int{0, 0, 0, 0, 0, 1, 1, 1, 2, 2, 3, 3}).Draw(t, "directory"))
		o.Lines = drawFile(t, k)
	case OpLink, OpMask:
		o.Runtime = rapid.IntRange(0, 4).Draw(t, "runtime") == 4
		o.Force = rapid.IntRange(0, 4).Draw(t, "force") == 4
	case OpEnable:
		o.Runtime = rapid.IntRange(0, 4).Draw(t, "runtime") == 4
		o.Force = rapid.IntRange(0, 4).Draw(t, "force") == 4
		o.ByPath = rapid.Bool().Draw(t, "by path")
	case OpDisable, OpUnmask:
		o.Runtime = rapid.IntRange(0, 4).Draw(t, "runtime") == 4
	}
	return o
}

// drawFile draws a unit file for a unit of kind k: mostly the directive
// the type needs, then up to three others of the type or any unit's, now
// and then a malformed line.
func drawFile(t *rapid.T, k unitKind) []Directive {
	own := kindDirectives[k]
	var lines []Directive
	if rapid.IntRange(0, 9).Draw(t, "no main directive") > 0 {
		d := own[0]
		lines = append(lines, Directive{d.section, d.key, rapid.SampledFrom(d.values).Draw(t, d.key)})
	}
	all := append(append([]directiveSpec{}, own...), unitDirectives...)
	n := rapid.IntRange(0, 3).Draw(t, "directives")
	for i := 0; i < n; i++ {
		d := rapid.SampledFrom(all).Draw(t, "directive")
		lines = append(lines, Directive{d.section, d.key, rapid.SampledFrom(d.values).Draw(t, d.key)})
	}
	if rapid.IntRange(0, 9).Draw(t, "malformed") == 9 {
		lines = append(lines, rapid.SampledFrom(malformedLines).Draw(t, "malformed line"))
	}
	return lines
}

func drawMode(t *rapid.T) string {
	if rapid.IntRange(0, 9).Draw(t, "odd mode") < 8 {
		return jobModes[0]
	}
	return rapid.SampledFrom(jobModes).Draw(t, "mode")
}

// drawPIDs draws the processes of a scope or an attach: mostly a process
// spawned for the step (live, zombie or reaped), else one spawned before,
// PID 1 or a PID no process has.
func drawPIDs(t *rapid.T, spawned int) ([]ProcKind, []int) {
	var spawn []ProcKind
	var pids []int
	n := rapid.IntRange(1, 2).Draw(t, "pids")
	for i := 0; i < n; i++ {
		switch c := rapid.IntRange(0, 9).Draw(t, "pid"); {
		case c < 7 || spawned == 0 && c < 8:
			spawn = append(spawn, rapid.SampledFrom([]ProcKind{Live, Zombie, Reaped}).Draw(t, "process"))
			pids = append(pids, spawned+len(spawn)-1)
		case c < 8:
			pids = append(pids, rapid.IntRange(0, spawned-1).Draw(t, "earlier process"))
		case c < 9:
			pids = append(pids, PID1)
		default:
			pids = append(pids, PIDUnset)
		}
	}
	return spawn, pids
}

// drawControl draws a control command of a service: one the fake knows
// that takes time (sleep) only where the fake runs it as long as it
// lasts (controlTimed), otherwise a command that ends at once.
func drawControl(t *rapid.T) Prop {
	name := rapid.SampledFrom(controlSettings).Draw(t, "control setting")
	first := 1 // commands[0] sleeps
	if controlTimed[name] {
		first = 0
	}
	return Prop{name, Command(rapid.IntRange(first, len(commands)-1).Draw(t, "control command"))}
}

// drawProps draws 0 to 3 properties for a unit of kind k: mostly one the
// kind takes with one of its values; sometimes one of another kind, a
// value of the wrong type, or a property nobody has.
func drawProps(t *rapid.T, k unitKind, table []propSpec) []Prop {
	n := rapid.IntRange(0, 3).Draw(t, "properties")
	var out []Prop
	for i := 0; i < n; i++ {
		c := rapid.IntRange(0, 19).Draw(t, "property kind")
		var p propSpec
		if c < 17 {
			var mine []propSpec
			for _, s := range table {
				if s.scope.takes(k) {
					mine = append(mine, s)
				}
			}
			p = rapid.SampledFrom(mine).Draw(t, "property")
		} else {
			p = rapid.SampledFrom(table).Draw(t, "any property")
		}
		v := rapid.SampledFrom(p.values).Draw(t, p.name)
		switch c {
		case 18:
			v = rapid.SampledFrom(wrongValues).Draw(t, "wrong value")
		case 19:
			p.name = "NoSuchProperty"
		}
		out = append(out, Prop{p.name, v})
	}
	return out
}

// TestGoString checks that a sequence prints as a replay case that
// compiles to the same values: numbers keep their type.
func TestGoString(t *testing.T) {
	seq := []Op{{Kind: "StartTransientUnit", Unit: 1, Mode: "replace", Props: []Prop{
		{"LimitNOFILE", uint64(0xffffffffffffffff)}, {"Nice", int32(-1)}, {"KillSignal", int32(9)},
		{"DefaultDependencies", false}, {"Description", "a unit"}, {"After", []string{"basic.target"}},
		{"ExecStart", Command(1)}, {"CPUWeight", uint64(100)},
	}}}
	want := "[]Op{\n\t{Kind: \"StartTransientUnit\", Unit: 1, Mode: \"replace\", Props: []Prop{" +
		`{"LimitNOFILE", uint64(0xffffffffffffffff)}, {"Nice", int32(-1)}, {"KillSignal", int32(9)}, ` +
		`{"DefaultDependencies", false}, {"Description", "a unit"}, {"After", []string{"basic.target"}}, ` +
		`{"ExecStart", Command(1)}, {"CPUWeight", uint64(0x64)}}},` + "\n}"
	if diff := cmp.Diff(want, GoString(seq)); diff != "" {
		t.Errorf("GoString (-want +got):\n%s", diff)
	}
}
