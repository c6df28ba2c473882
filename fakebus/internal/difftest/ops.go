package difftest

import (
	"fmt"
	"strings"
)

// OpKind is what a step does: a Manager method, or spawning a process.
type OpKind string

// The operations of a sequence.
const (
	OpStartTransient OpKind = "StartTransientUnit"
	OpStart          OpKind = "StartUnit"
	OpStop           OpKind = "StopUnit"
	OpRestart        OpKind = "RestartUnit"
	// The reload family: a reload, and the restarts that reload
	// instead where the unit can, or start nothing when it is
	// inactive (unit_queue_job_check_and_mangle_type).
	OpReloadUnit         OpKind = "ReloadUnit"
	OpTryRestart         OpKind = "TryRestartUnit"
	OpReloadOrRestart    OpKind = "ReloadOrRestartUnit"
	OpReloadOrTryRestart OpKind = "ReloadOrTryRestartUnit"
	OpKill               OpKind = "KillUnit"
	OpResetFailed        OpKind = "ResetFailedUnit"
	OpSetProperties      OpKind = "SetUnitProperties"
	OpAttach             OpKind = "AttachProcessesToUnit"
	OpProcesses          OpKind = "GetUnitProcesses"
	OpLoad               OpKind = "LoadUnit" // and read the unit's load state, error, states, result and type

	// Unit files.
	OpWriteFile     OpKind = "WriteUnitFile"  // write the unit's file (Dir, Lines); not a call
	OpRemoveFile    OpKind = "RemoveUnitFile" // remove the file the sequence last wrote for the unit; not a call
	OpLink          OpKind = "LinkUnitFiles"  // of the unit's file in the Outside directory
	OpEnable        OpKind = "EnableUnitFiles"
	OpDisable       OpKind = "DisableUnitFiles"
	OpMask          OpKind = "MaskUnitFiles"
	OpUnmask        OpKind = "UnmaskUnitFiles"
	OpReload        OpKind = "Reload"
	OpReexec        OpKind = "Reexecute" // and wait until the manager answers again
	OpFileState     OpKind = "GetUnitFileState"
	OpReadFileState OpKind = "Get UnitFileState" // the unit's UnitFileState property
	OpListFiles     OpKind = "ListUnitFilesByPatterns"
)

// ProcKind is the state a spawned process is left in.
type ProcKind int

const (
	// Live is a child of the tester that runs until it is killed, and
	// is reaped when it ends.
	Live ProcKind = iota
	// Zombie is a child that exited and is not reaped until the
	// sequence ends.
	Zombie
	// Reaped is a child that exited and was reaped: its PID names no
	// process.
	Reaped
)

func (k ProcKind) String() string {
	switch k {
	case Live:
		return "Live"
	case Zombie:
		return "Zombie"
	case Reaped:
		return "Reaped"
	}
	return fmt.Sprintf("ProcKind(%d)", int(k))
}

// Process references in Op.PIDs besides the index of a spawned process.
const (
	PID1     = -1 // the manager's PID 1
	PIDUnset = -2 // a PID no process has (above the kernel's pid_max)
)

// Command is an ExecStart= value: the index of a command in commands.
type Command int

func (c Command) argv() []string { return commands[int(c)%len(commands)] }

// PIDList is a scope's PIDs= value: references as in Op.PIDs.
type PIDList []int

// Prop is a property set by StartTransientUnit or SetUnitProperties.
// Value holds a value of its D-Bus type, a Command (ExecStart=) or a
// PIDList (PIDs=).
type Prop struct {
	Name  string
	Value any
}

// Op is one step of a sequence. Spawn lists processes started (as the
// tester's children) before the step's call; PIDs (and a PIDList value)
// refer to the processes spawned so far by index, in the order they were
// spawned, or are PID1 or PIDUnset; an index no process has yet means
// PIDUnset. Runtime is SetUnitProperties' and the unit-file calls' flag;
// Force that of EnableUnitFiles, LinkUnitFiles and MaskUnitFiles; ByPath
// makes EnableUnitFiles name the unit's file by its path (the one last
// written; in the Outside directory if none was).
type Op struct {
	Kind    OpKind
	Unit    int // index into the unit pool (pool)
	Mode    string
	Props   []Prop
	Spawn   []ProcKind
	PIDs    []int
	Whom    string
	Signal  int32
	Runtime bool
	Force   bool
	ByPath  bool
	Dir     FileDir     // WriteUnitFile's directory
	Lines   []Directive // WriteUnitFile's file
	// Aux, if not nil, makes StartTransientUnit create an auxiliary
	// unit with these properties: the service the unit (a timer, a
	// socket) triggers, named after it (auxName), as systemd-run does.
	Aux []Prop
}

// pool is the kinds of the units a sequence works on; unit i of a
// sequence run with prefix P is named P+"u"+i+"."+kind (no "-": in a
// slice's name it would name a parent slice).
var pool = []unitKind{kService, kService, kScope, kScope, kSlice, kSocket, kTimer, kTarget}

func unitName(prefix string, i int) string {
	i %= len(pool)
	return fmt.Sprintf("%su%d.%s", prefix, i, pool[i])
}

// auxName is the name of unit i's auxiliary service (Op.Aux).
func auxName(prefix string, i int) string {
	return fmt.Sprintf("%su%d.service", prefix, i%len(pool))
}

// String is the step as the records print it.
func (o Op) String() string {
	var b strings.Builder
	for _, k := range o.Spawn {
		fmt.Fprintf(&b, "spawn %s; ", k)
	}
	fmt.Fprintf(&b, "%s %s", o.Kind, unitName("", o.Unit))
	switch o.Kind {
	case OpStartTransient, OpStart, OpStop, OpRestart, OpReloadUnit, OpTryRestart, OpReloadOrRestart, OpReloadOrTryRestart:
		fmt.Fprintf(&b, " %q", o.Mode)
	case OpKill:
		fmt.Fprintf(&b, " %q %d", o.Whom, o.Signal)
	case OpSetProperties, OpDisable, OpUnmask:
		fmt.Fprintf(&b, " runtime=%t", o.Runtime)
	case OpLink, OpMask:
		fmt.Fprintf(&b, " runtime=%t force=%t", o.Runtime, o.Force)
	case OpEnable:
		fmt.Fprintf(&b, " runtime=%t force=%t bypath=%t", o.Runtime, o.Force, o.ByPath)
	case OpAttach:
		fmt.Fprintf(&b, " %v", o.PIDs)
	case OpWriteFile:
		fmt.Fprintf(&b, " %s %q", o.Dir, fileText(o.Lines, func(s string) string { return s }))
	}
	for _, p := range o.Props {
		fmt.Fprintf(&b, " %s=%s", p.Name, showValue(p.Value))
	}
	if o.Aux != nil {
		fmt.Fprintf(&b, " aux %s", auxName("", o.Unit))
		for _, p := range o.Aux {
			fmt.Fprintf(&b, " %s=%s", p.Name, showValue(p.Value))
		}
	}
	return b.String()
}

func showValue(v any) string {
	switch v := v.(type) {
	case Command:
		return fmt.Sprintf("%q", v.argv())
	case string:
		return fmt.Sprintf("%q", v)
	}
	return fmt.Sprintf("%#v", v)
}

// GoString prints the sequence as Go source, for a replay case (replays_test.go).
func GoString(seq []Op) string {
	var b strings.Builder
	b.WriteString("[]Op{\n")
	for _, o := range seq {
		fmt.Fprintf(&b, "\t{Kind: %q, Unit: %d", string(o.Kind), o.Unit)
		if o.Mode != "" {
			fmt.Fprintf(&b, ", Mode: %q", o.Mode)
		}
		if len(o.Spawn) > 0 {
			fmt.Fprintf(&b, ", Spawn: %#v", o.Spawn)
		}
		if len(o.PIDs) > 0 {
			fmt.Fprintf(&b, ", PIDs: %#v", o.PIDs)
		}
		if o.Kind == OpKill {
			fmt.Fprintf(&b, ", Whom: %q, Signal: %d", o.Whom, o.Signal)
		}
		if o.Runtime {
			b.WriteString(", Runtime: true")
		}
		if o.Force {
			b.WriteString(", Force: true")
		}
		if o.ByPath {
			b.WriteString(", ByPath: true")
		}
		if o.Kind == OpWriteFile {
			fmt.Fprintf(&b, ", Dir: %s, Lines: []Directive{", o.Dir)
			for i, l := range o.Lines {
				if i > 0 {
					b.WriteString(", ")
				}
				fmt.Fprintf(&b, "{%q, %q, %q}", l.Section, l.Key, l.Value)
			}
			b.WriteString("}")
		}
		if len(o.Props) > 0 {
			b.WriteString(", Props: " + goProps(o.Props))
		}
		if o.Aux != nil {
			b.WriteString(", Aux: " + goProps(o.Aux))
		}
		b.WriteString("},\n")
	}
	b.WriteString("}")
	return strings.ReplaceAll(b.String(), "difftest.", "")
}

// goValue prints a property's value as Go source of its type: %#v
// prints numbers as untyped constants, which a replay case would take as
// int (or refuse, beyond its range).
func goValue(v any) string {
	switch v := v.(type) {
	case Command:
		return fmt.Sprintf("Command(%d)", int(v))
	case uint8, uint16, uint32, uint64, int16, int32, int64, float64:
		return fmt.Sprintf("%T(%#v)", v, v)
	}
	return fmt.Sprintf("%#v", v)
}

// goProps prints props as Go source.
func goProps(props []Prop) string {
	var b strings.Builder
	b.WriteString("[]Prop{")
	for i, p := range props {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "{%q, %s}", p.Name, goValue(p.Value))
	}
	b.WriteString("}")
	return b.String()
}
