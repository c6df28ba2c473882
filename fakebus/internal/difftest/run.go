package difftest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/godbus/dbus/v5"
)

const (
	busName     = "org.freedesktop.systemd1"
	managerPath = dbus.ObjectPath("/org/freedesktop/systemd1")
	managerIf   = "org.freedesktop.systemd1.Manager"
	unitIf      = "org.freedesktop.systemd1.Unit"
)

// Step is what one operation did on a backend, normalized (the
// normalizations are listed in the package doc).
type Step struct {
	Op      string   // the operation (Op.String)
	Reply   string   // "ok", the reply's values, or the error's name and message
	Signals []string // JobNew and JobRemoved of the sequence's units, in order
	Jobs    []string // the jobs still queued once the state settled
	Units   []string // each pool unit's state and the properties set on it
	// Looping are the services restarting without end (a Restart= with
	// no start rate limit: restarted loopRestarts times and going on) when
	// the step was recorded; their jobs are named L1, L2, ... apart from
	// the others' J1, J2, ... (the count of their restarts in a step is
	// timing's).
	Looping []string `json:",omitempty"`
}

func (s Step) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n  reply: %s\n", s.Op, s.Reply)
	for _, x := range s.Signals {
		fmt.Fprintf(&b, "  signal: %s\n", x)
	}
	for _, x := range s.Jobs {
		fmt.Fprintf(&b, "  job: %s\n", x)
	}
	for _, x := range s.Units {
		fmt.Fprintf(&b, "  unit: %s\n", x)
	}
	if len(s.Looping) > 0 {
		fmt.Fprintf(&b, "  looping: %s\n", strings.Join(s.Looping, " "))
	}
	return b.String()
}

// Backend is a systemd manager reached over D-Bus: the real one or a
// fake. Each run of a sequence dials a connection of its own, so runs
// with different prefixes can run at the same time.
type Backend struct {
	Name string
	// Settle is how long the job queue and the units' states must stay
	// the same before a step counts as done: systemd's jobs and
	// processes run on their own (30 ms suffice); the fake's state
	// changes only by its own timers (5 ms, even on a loaded machine).
	Settle time.Duration
	// Dial returns a new connection to the manager's bus: authenticated,
	// Hello said.
	Dial func() (*dbus.Conn, error)
	// ConfigDir and RuntimeDir are the manager's configuration and
	// runtime unit directories (/etc/systemd/system, /run/systemd/system);
	// FilesBase is where a run makes its Outside directory, a directory
	// the manager can read ("" for the system's temporary directory).
	ConfigDir, RuntimeDir, FilesBase string
	// LivePIDs: the manager's processes are processes of this PID
	// namespace (real systemd in the sandbox). A step has not settled
	// while a pool or auxiliary service's main process is one that ends
	// by itself
	// (not a sleep) or a zombie: systemd has yet to see it end, however
	// long that takes on a loaded machine. The fake's main PIDs may be
	// made up: never looked at.
	LivePIDs bool
	// NoCleanupReload: a run removes its unit files without the
	// daemon-reload after it. Runs that share the manager at once
	// (TestDifferentialEdges) must not see each other's reloads (which
	// reset, for one, what the manager shows of a running service's
	// commands); their caller reloads once they are done.
	NoCleanupReload bool
}

// Major is the release the backend's name ends with ("systemd
// 247.3-7+deb11u8", "fakebus 262.1-1"): 247, 262; 0 if none.
func (b *Backend) Major() int {
	f := strings.Fields(b.Name)
	if len(f) == 0 {
		return 0
	}
	n, _ := strconv.Atoi(strings.SplitN(f[len(f)-1], ".", 2)[0])
	return n
}

// session is a run's connection, subscribed to the manager's signals.
type session struct {
	conn *dbus.Conn
	sigs chan *dbus.Signal
}

func (b *Backend) open(ctx context.Context) (*session, error) {
	conn, err := b.Dial()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", b.Name, err)
	}
	s := &session{conn: conn, sigs: make(chan *dbus.Signal, 4096)}
	conn.Signal(s.sigs)
	err = conn.AddMatchSignal(dbus.WithMatchInterface(managerIf), dbus.WithMatchObjectPath(managerPath))
	if err == nil {
		err = s.manager().CallWithContext(ctx, managerIf+".Subscribe", 0).Err
	}
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("%s: subscribe: %w", b.Name, err)
	}
	return s, nil
}

func (s *session) manager() dbus.BusObject { return s.conn.Object(busName, managerPath) }

// run is one sequence's run on a backend.
type run struct {
	b      *Backend
	s      *session
	ctx    context.Context
	prefix string
	procs  procs
	jobs   map[string]string // job path or id -> "J<n>" ("L<n>" a looping service's), in order of appearance
	// looping are the services restarting without end at the step being
	// recorded (Step.Looping), short names.
	looping []string
	loops   int              // the jobs named L<n> so far
	set     map[int][]string // unit index -> the properties set on it, in order
	used    map[int]bool     // the units an operation named: cleanup's
	aux     map[int]bool     // the units made with an auxiliary service (Op.Aux)
	pidRe   *regexp.Regexp   // whole numbers in replies, for the PIDs of spawned processes

	// Unit files.
	files bool // a unit-file step ran: the records show the units' files, cleanup removes them
	// installed: a link, enable, disable, mask or unmask ran: cleanup
	// unmasks and disables the pool's units.
	installed bool
	dir       string         // the Outside directory, once made
	written   map[int]string // unit index -> the path of the file last written for it
	paths     *strings.Replacer
}

// typeIf is each unit type's interface.
var typeIf = map[unitKind]string{kService: "org.freedesktop.systemd1.Service", kScope: "org.freedesktop.systemd1.Scope",
	kSlice: "org.freedesktop.systemd1.Slice", kSocket: "org.freedesktop.systemd1.Socket", kTimer: "org.freedesktop.systemd1.Timer",
	kTarget: "org.freedesktop.systemd1.Target"}

// Run runs seq on b, its units named with prefix, and returns what each
// step did. It cleans up after itself: the sequence's units are stopped
// (killed first) and their failures reset, its processes killed and
// reaped. An error means the run itself broke (the backend went away),
// not that a step failed.
func Run(ctx context.Context, b *Backend, seq []Op, prefix string) ([]Step, error) {
	sess, err := b.open(ctx)
	if err != nil {
		return nil, err
	}
	defer sess.conn.Close()
	r := &run{b: b, s: sess, ctx: ctx, prefix: prefix, jobs: map[string]string{}, set: map[int][]string{}, used: map[int]bool{}, aux: map[int]bool{},
		pidRe: regexp.MustCompile(`\b[0-9]+\b`), written: map[int]string{}}
	r.setPaths()
	defer r.cleanup()
	r.drain()
	var steps []Step
	for _, o := range seq {
		for _, k := range o.Spawn {
			if err := r.procs.spawn(k); err != nil {
				return steps, err
			}
		}
		r.used[o.Unit%len(pool)] = true
		st := Step{Op: o.String(), Reply: r.do(o)}
		for _, p := range o.Props {
			if o.Kind == OpStartTransient || o.Kind == OpSetProperties {
				r.set[o.Unit%len(pool)] = appendNew(r.set[o.Unit%len(pool)], p.Name)
			}
		}
		for _, l := range o.Lines {
			if p := readBack(pool[o.Unit%len(pool)], l.Key); p != "" {
				r.set[o.Unit%len(pool)] = appendNew(r.set[o.Unit%len(pool)], p)
			}
		}
		jobs, units, looping, err := r.settle()
		if err != nil {
			return steps, err
		}
		st.Looping, r.looping = looping, looping
		// The signals first: a job is named by its first appearance
		// (job), in them or else in the queue, however often the queue
		// was read while the step settled.
		st.Signals = r.signals()
		st.Jobs, st.Units = r.nameJobs(jobs), units
		steps = append(steps, st)
	}
	return steps, nil
}

func appendNew(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

// do makes o's call and returns its normalized reply.
func (r *run) do(o Op) string {
	name := unitName(r.prefix, o.Unit)
	var call *dbus.Call
	m := r.s.manager()
	switch o.Kind {
	case OpStartTransient:
		aux := []auxUnit{}
		if o.Aux != nil {
			aux = append(aux, auxUnit{auxName(r.prefix, o.Unit), r.properties(o.Aux)})
			r.aux[o.Unit%len(pool)] = true
		}
		call = m.CallWithContext(r.ctx, managerIf+".StartTransientUnit", 0, name, o.Mode, r.properties(o.Props), aux)
	case OpStart, OpStop, OpRestart, OpReloadUnit, OpTryRestart, OpReloadOrRestart, OpReloadOrTryRestart:
		call = m.CallWithContext(r.ctx, managerIf+"."+string(o.Kind), 0, name, o.Mode)
	case OpKill:
		call = m.CallWithContext(r.ctx, managerIf+".KillUnit", 0, name, o.Whom, o.Signal)
	case OpResetFailed:
		call = m.CallWithContext(r.ctx, managerIf+".ResetFailedUnit", 0, name)
	case OpSetProperties:
		call = m.CallWithContext(r.ctx, managerIf+".SetUnitProperties", 0, name, o.Runtime, r.properties(o.Props))
	case OpAttach:
		call = m.CallWithContext(r.ctx, managerIf+".AttachProcessesToUnit", 0, name, "", r.pids(o.PIDs))
	case OpProcesses:
		call = m.CallWithContext(r.ctx, managerIf+".GetUnitProcesses", 0, name)
	case OpLoad:
		return r.load(name, o.Unit)
	case OpReexec:
		return r.reexec()
	case OpWriteFile, OpRemoveFile, OpLink, OpEnable, OpDisable, OpMask, OpUnmask, OpReload, OpFileState, OpReadFileState, OpListFiles:
		return r.paths.Replace(r.fileOp(o, name))
	default:
		return "unknown operation " + string(o.Kind)
	}
	return r.reply(call)
}

// reexec calls Reexecute, which systemd does not answer (the bus replies
// NoReply once its connection has gone), and waits until the manager,
// back on the bus under a new unique name, answers a call again.
func (r *run) reexec() string {
	m := r.s.manager()
	reply := r.reply(m.CallWithContext(r.ctx, managerIf+".Reexecute", 0))
	for {
		var v dbus.Variant
		err := m.CallWithContext(r.ctx, "org.freedesktop.DBus.Properties.Get", 0, managerIf, "Version").Store(&v)
		if err == nil {
			return reply
		}
		select {
		case <-r.ctx.Done():
			return reply + " (manager gone: " + err.Error() + ")"
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// load loads the unit (LoadUnit) and reads what a client reads of a unit
// that may not exist: its load state and error, states, result and type.
func (r *run) load(name string, i int) string {
	var path dbus.ObjectPath
	if err := r.s.manager().CallWithContext(r.ctx, managerIf+".LoadUnit", 0, name).Store(&path); err != nil {
		return r.reply(&dbus.Call{Err: err})
	}
	obj := r.s.conn.Object(busName, path)
	k := pool[i%len(pool)]
	out := fmt.Sprintf("%s LoadError=%s %s/%s", r.get(obj, unitIf, "LoadState"), r.get(obj, unitIf, "LoadError"),
		r.get(obj, unitIf, "ActiveState"), r.get(obj, unitIf, "SubState"))
	if k != kSlice && k != kTarget {
		out += " Result=" + r.get(obj, typeIf[k], "Result")
	}
	if k == kService {
		out += " Type=" + r.get(obj, typeIf[k], "Type")
	}
	return out
}

type auxUnit struct {
	Name  string
	Props []property
}

type property struct {
	Name  string
	Value dbus.Variant
}

type execCommand struct {
	Path   string
	Argv   []string
	Ignore bool
}

func (r *run) properties(ps []Prop) []property {
	out := make([]property, 0, len(ps))
	names := r.expand(0) // {uN}: pool unit N's name
	for _, p := range ps {
		var v any
		switch x := p.Value.(type) {
		case Command:
			argv := x.argv()
			v = []execCommand{{Path: argv[0], Argv: argv}}
		case PIDList:
			v = r.pids(x)
		case string:
			v = names(x)
		case []string:
			l := make([]string, len(x))
			for i, s := range x {
				l[i] = names(s)
			}
			v = l
		default:
			v = x
		}
		out = append(out, property{p.Name, dbus.MakeVariant(v)})
	}
	return out
}

func (r *run) pids(refs []int) []uint32 {
	out := make([]uint32, 0, len(refs))
	for _, ref := range refs {
		out = append(out, r.procs.pid(ref))
	}
	return out
}

// reply normalizes a call's outcome: job paths become J<n>, the PIDs of
// spawned processes P<k>.
func (r *run) reply(call *dbus.Call) string {
	var de dbus.Error
	switch {
	case call.Err == nil:
		var parts []string
		for _, v := range call.Body {
			parts = append(parts, r.value(v))
		}
		if len(parts) == 0 {
			return "ok"
		}
		return strings.Join(parts, " ")
	case errors.As(call.Err, &de):
		msg := ""
		if len(de.Body) > 0 {
			msg, _ = de.Body[0].(string)
		}
		if mentionsProcess(msg) {
			msg = r.pidNames(msg)
		}
		return de.Name + ": " + msg
	}
	return "error: " + call.Err.Error()
}

// mentionsProcess reports whether an error message may name a PID
// ("Process with ID 7 does not exist.", "PID 7 does not belong to any
// loaded unit."): only then are its numbers taken for PIDs. A value in
// another message is no process, though a spawned one may have its
// number (262 seed 53015: "Invalid KillSignal setting: 65" read as P0 in
// a fresh sandbox, whose PIDs are small).
func mentionsProcess(msg string) bool {
	return strings.Contains(msg, "PID") || strings.Contains(strings.ToLower(msg), "process")
}

// value prints a reply's value or a property's, normalized.
func (r *run) value(v any) string {
	switch x := v.(type) {
	case dbus.ObjectPath:
		if strings.HasPrefix(string(x), "/org/freedesktop/systemd1/job/") {
			return r.job(string(x))
		}
		return string(x)
	case dbus.Variant:
		return r.value(x.Value())
	case [][]any:
		var parts []string
		for _, p := range x {
			parts = append(parts, r.record(p))
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case uint32, []uint32, string:
		// What may hold a PID: D-Bus carries PIDs as uint32 (MainPID,
		// PIDs), and a message may name one. Other numbers are left
		// alone: an ExecMainStatus of 203 is no process.
		return r.pidNames(dbus.MakeVariant(v).String())
	}
	return dbus.MakeVariant(v).String()
}

// record prints a structure: GetUnitProcesses' (sus) with the process
// named by r.pidName (PID for one the sequence did not spawn); an Exec*
// command's (sasbttttuii) with its times and PID, and a timer's (stt) or
// (sst) with its next elapse, shown only as set or not (they differ from
// run to run); any other with its fields' values.
func (r *run) record(p []any) string {
	set := func(v any) string {
		if fmt.Sprint(v) == "0" {
			return "0"
		}
		return "set"
	}
	switch {
	case len(p) == 3:
		if base, ok := p[0].(string); ok {
			// A timer's TimersMonotonic (stt) or TimersCalendar (sst):
			// when it next elapses, as set or not (it differs from run
			// to run).
			if _, ok := p[2].(uint64); ok {
				return fmt.Sprintf("(%q %v next=%s)", base, r.value(p[1]), set(p[2]))
			}
		}
		if pid, ok := p[1].(uint32); ok {
			// A PID the sequence did not spawn is a unit's own process
			// (a service's main process): which number it has differs
			// from run to run, and the fake makes one up.
			name := r.pidName(fmt.Sprint(pid))
			if name == fmt.Sprint(pid) {
				name = "PID"
			}
			return fmt.Sprintf("(%q %s %q)", p[0], name, p[2])
		}
	case len(p) == 10:
		return fmt.Sprintf("(%q %q %v times=%s/%s/%s/%s pid=%s code=%v status=%v)", p[0], p[1], p[2],
			set(p[3]), set(p[4]), set(p[5]), set(p[6]), set(p[7]), p[8], p[9])
	}
	parts := make([]string, len(p))
	for i, f := range p {
		parts[i] = r.value(f)
	}
	return "(" + strings.Join(parts, " ") + ")"
}

// job names a job by the order it appeared in: J1, J2, ... Its path and
// its id name the same job.
func (r *run) job(path string) string { return r.jobOf(path, "") }

// jobOf names the job at path of unit (short name, "" if not known):
// J<n> in order of appearance, L<n> for a looping service's.
func (r *run) jobOf(path, unit string) string {
	id := path[strings.LastIndexByte(path, '/')+1:]
	if n, ok := r.jobs[id]; ok {
		return n
	}
	var n string
	if unit != "" && slices.Contains(r.looping, unit) {
		r.loops++
		n = fmt.Sprintf("L%d", r.loops)
	} else {
		n = fmt.Sprintf("J%d", len(r.jobs)+1-r.loops)
	}
	r.jobs[id] = n
	return n
}

func (r *run) pidName(s string) string {
	if k := r.procs.index(s); k >= 0 {
		return fmt.Sprintf("P%d", k)
	}
	return s
}

func (r *run) pidNames(s string) string {
	return r.pidRe.ReplaceAllStringFunc(s, r.pidName)
}

// settle waits until the manager's job queue and the pool units' states
// stay the same over two reads Settle apart, with no main process about
// to end and no service about to restart (at most 10 s), and returns
// them with the services restarting without end (looping), which it
// does not wait for.
func (r *run) settle() (jobs, units, looping []string, err error) {
	deadline := time.Now().Add(10 * time.Second)
	prev := ""
	for {
		listed := r.listUnits()
		loaded := r.loadedServices(listed)
		looping = r.loopingServices(loaded)
		// Before the reads: a process that ended after them would leave
		// them stale.
		ending := r.ending(loaded, looping) || r.killing(listed, looping) || r.scopeEmptying(listed)
		var idle bool
		jobs, idle, err = r.listJobsIdle()
		if err != nil {
			return nil, nil, nil, err
		}
		ending = ending || r.queuedToRun(jobs, listed, idle)
		units = r.units()
		cur := strings.Join(jobs, "\n") + "\n--\n" + strings.Join(units, "\n")
		// A read that shows a service waiting to restart soon is never
		// the last (its lines are the same each time round a restart
		// loop, and ending's look may have come between two rounds).
		if cur == prev && !ending && !r.restartsSoon(loaded, units, looping) || time.Now().After(deadline) {
			return jobs, units, looping, nil
		}
		prev = cur
		time.Sleep(r.b.Settle)
	}
}

// loadedService is a pool service or an auxiliary service that is loaded.
type loadedService struct {
	name string // short name
	path dbus.ObjectPath
	sub  string // its SubState, "" if not read
}

// loadedServices returns the pool's and the auxiliary services that are
// loaded (listed: listUnits), with their object paths.
func (r *run) loadedServices(listed map[string]listedUnit) []loadedService {
	var out []loadedService
	for _, name := range r.services() {
		if u, err := r.lookUp(listed, name); err == nil {
			out = append(out, loadedService{name[len(r.prefix):], u.path, u.sub})
		}
	}
	return out
}

// listedUnit is a loaded unit as ListUnitsByPatterns lists it.
type listedUnit struct {
	load, active, sub string // "" if not listed (GetUnit found it by an alias)
	path              dbus.ObjectPath
}

// listUnits lists the loaded units named with the run's prefix, by name,
// in one call where a GetUnit and three Gets a unit would take many
// (nil if the call failed: lookUp asks GetUnit then). ListUnitsByPatterns
// lists every loaded unit (not found ones too) by its name, never by an
// alias, and loads nothing, as GetUnit.
func (r *run) listUnits() map[string]listedUnit {
	var rows []struct {
		Name, Description, LoadState, ActiveState, SubState, Following string
		Path                                                           dbus.ObjectPath
		JobID                                                          uint32
		JobType                                                        string
		JobPath                                                        dbus.ObjectPath
	}
	// The prefix and "u": "de1u*" does not match de10's units.
	if r.s.manager().CallWithContext(r.ctx, managerIf+".ListUnitsByPatterns", 0, []string{}, []string{r.prefix + "u*"}).Store(&rows) != nil {
		return nil
	}
	out := make(map[string]listedUnit, len(rows))
	for _, l := range rows {
		out[l.Name] = listedUnit{l.LoadState, l.ActiveState, l.SubState, l.Path}
	}
	return out
}

// lookUp finds loaded unit name as GetUnit does: in listed, else (a name
// a unit file may have made an alias of another unit's, or the list
// failed) by GetUnit. The error is GetUnit's: for a name not listed,
// NoSuchUnit "Unit NAME not loaded.", as on every release.
func (r *run) lookUp(listed map[string]listedUnit, name string) (listedUnit, error) {
	if u, ok := listed[name]; ok {
		return u, nil
	}
	if listed != nil && !r.files {
		return listedUnit{}, dbus.Error{Name: "org.freedesktop.systemd1.NoSuchUnit", Body: []any{"Unit " + name + " not loaded."}}
	}
	var path dbus.ObjectPath
	err := r.s.manager().CallWithContext(r.ctx, managerIf+".GetUnit", 0, name).Store(&path)
	return listedUnit{path: path}, err
}

// loopRestarts is how many restarts make a service that goes on
// restarting one that restarts without end: more than a start rate limit
// the tester draws lets through (StartLimitBurst= 5 at most).
const loopRestarts = 12

// loopingServices returns those of the loaded services (short names)
// that restarted loopRestarts times and are not inactive or
// failed: a Restart= with no start rate limit (StartLimitBurst=0, an
// interval of 0 or 1 µs), which restarts for ever.
func (r *run) loopingServices(loaded []loadedService) []string {
	var out []string
	for _, u := range loaded {
		obj := r.s.conn.Object(busName, u.path)
		var n uint32
		var active string
		if obj.CallWithContext(r.ctx, "org.freedesktop.DBus.Properties.Get", 0, typeIf[kService], "NRestarts").Store(&n) != nil || n < loopRestarts {
			continue
		}
		if obj.CallWithContext(r.ctx, "org.freedesktop.DBus.Properties.Get", 0, unitIf, "ActiveState").Store(&active) == nil && active != "inactive" && active != "failed" {
			out = append(out, u.name)
		}
	}
	return out
}

// services returns the full names of the pool's services and of the
// auxiliary services made so far.
func (r *run) services() []string {
	var services []string
	for i, k := range pool {
		if k == kService {
			services = append(services, unitName(r.prefix, i))
		}
		if r.aux[i] {
			// A timer's or socket's service, which it may start at once.
			services = append(services, auxName(r.prefix, i))
		}
	}
	return services
}

// ending reports whether one of the loaded services, but those looping,
// is about to change by itself: it waits to restart (auto-restart) for
// less than restartSoon, or its main or control process is about to end
// (Backend.LivePIDs): a zombie, or a process that is not a sleep (a
// command that ends by itself, or systemd's child before its exec).
func (r *run) ending(loaded []loadedService, looping []string) bool {
	for _, u := range loaded {
		if slices.Contains(looping, u.name) {
			continue
		}
		if r.holdOffShort(u.path, u.sub) {
			return true
		}
		if !r.b.LivePIDs {
			continue
		}
		// The main process, and the control process (a forking
		// service's ExecStart= runs as one).
		for _, prop := range []string{"MainPID", "ControlPID"} {
			var pid uint32
			err := r.s.conn.Object(busName, u.path).CallWithContext(r.ctx, "org.freedesktop.DBus.Properties.Get", 0, typeIf[kService], prop).Store(&pid)
			if err == nil && pid != 0 && processEnding(pid) {
				return true
			}
		}
	}
	return false
}

// killing reports whether one of the run's units (listed), but the
// looping services, is in the kill phase of its stop (stop-sigterm,
// stop-sigkill) on a backend whose processes are live: its processes, the
// tester's sleeps and programs that end, die of the signal, and systemd
// is about to see them gone, however long that takes on a loaded machine
// (the fake stops at once). One whose processes outlive the signal stays
// so until the step's deadline.
func (r *run) killing(listed map[string]listedUnit, looping []string) bool {
	if !r.b.LivePIDs {
		return false
	}
	for name, u := range listed {
		if (u.sub == "stop-sigterm" || u.sub == "stop-sigkill") && !slices.Contains(looping, strings.TrimPrefix(name, r.prefix)) {
			return true
		}
	}
	return false
}

// deathGrace is how long after a live process the sequence spawned died
// the tester waits for systemd to see a scope's control group empty.
const deathGrace = 2 * time.Second

// scopeEmptying reports whether a live process the sequence spawned died
// less than deathGrace ago while one of the run's scopes (listed) is
// loaded with an empty control group, on a backend whose processes are
// live: systemd ends or collects such a scope once it reads the group's
// cgroup.events, however long that takes on a loaded machine (262 kept a
// scope running after KillUnit's SIGHUP killed its process, in one probe
// of four); the fake at once. A scope that never held a process (made
// for a zombie) and runs on costs a step at most deathGrace.
func (r *run) scopeEmptying(listed map[string]listedUnit) bool {
	died := r.procs.died.Load()
	if !r.b.LivePIDs || died == 0 || time.Since(time.Unix(0, died)) > deathGrace {
		return false
	}
	for name, u := range listed {
		if !strings.HasSuffix(name, ".scope") {
			continue
		}
		var cg string
		err := r.s.conn.Object(busName, u.path).CallWithContext(r.ctx, "org.freedesktop.DBus.Properties.Get", 0, typeIf[kScope], "ControlGroup").Store(&cg)
		if err != nil || cg == "" {
			continue
		}
		if b, err := os.ReadFile(filepath.Join("/sys/fs/cgroup", cg, "cgroup.events")); err == nil && strings.Contains(string(b), "populated 0") {
			return true
		}
	}
	return false
}

// restartsSoon reports whether one of the units' lines (units) shows a
// service waiting to restart within restartSoon, but for those looping.
func (r *run) restartsSoon(loaded []loadedService, units, looping []string) bool {
	for _, l := range units {
		name, rest, _ := strings.Cut(l, ": ")
		name = strings.TrimSuffix(name, " (aux)")
		if !strings.Contains(rest, `/"auto-restart`) || slices.Contains(looping, name) {
			continue
		}
		i := slices.IndexFunc(loaded, func(u loadedService) bool { return u.name == name })
		if i >= 0 && r.holdOffShort(loaded[i].path, "auto-restart") {
			return true
		}
	}
	return false
}

// holdOffShort reports whether the service at path waits to restart
// (its SubState auto-restart, or sub if given) for less than restartSoon.
func (r *run) holdOffShort(path dbus.ObjectPath, sub string) bool {
	obj := r.s.conn.Object(busName, path)
	if sub == "" && obj.CallWithContext(r.ctx, "org.freedesktop.DBus.Properties.Get", 0, unitIf, "SubState").Store(&sub) != nil {
		return false
	}
	if !strings.HasPrefix(sub, "auto-restart") {
		return false
	}
	// The hold-off under way: RestartUSecNext where the release has it
	// (RestartSteps= make it grow), else RestartUSec=.
	var holdOff uint64
	err := obj.CallWithContext(r.ctx, "org.freedesktop.DBus.Properties.Get", 0, typeIf[kService], "RestartUSecNext").Store(&holdOff)
	if err != nil {
		err = obj.CallWithContext(r.ctx, "org.freedesktop.DBus.Properties.Get", 0, typeIf[kService], "RestartUSec").Store(&holdOff)
	}
	return err == nil && holdOff < uint64(restartSoon/time.Microsecond)
}

// restartSoon is the longest hold-off (RestartUSecNext) a step's record
// waits out: a service restarting sooner restarts, over and over until
// its start rate limit stops it, before the step is recorded.
const restartSoon = 5 * time.Second

// processEnding reports whether process pid is a zombie, has a signal
// pending that ends it, or is not a sleep.
func processEnding(pid uint32) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false // gone
	}
	// "PID (comm) S ...": the state follows the last ')'.
	if st := string(stat); strings.HasPrefix(strings.TrimSpace(st[strings.LastIndexByte(st, ')')+1:]), "Z") {
		return true
	}
	if fatalSignalPending(pid) {
		return true
	}
	cmd, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	return err == nil && !bytes.HasPrefix(cmd, []byte("/bin/sleep\x00"))
}

// fatalSignalPending reports whether process pid has a signal pending
// (SigPnd, ShdPnd of /proc/PID/status) that it does not ignore (SigIgn)
// and whose default action ends it: KillUnit's signal sent, the process
// not yet run to take it, on a loaded machine (257 seed 560414 of a long
// run: a sleep read running after SIGTERM, the step recorded before
// systemd saw it end).
func fatalSignalPending(pid uint32) bool {
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return false
	}
	var pending, ignored uint64
	for _, line := range strings.Split(string(status), "\n") {
		key, val, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		mask, err := strconv.ParseUint(strings.TrimSpace(val), 16, 64)
		if err != nil {
			continue
		}
		switch key {
		case "SigPnd", "ShdPnd":
			pending |= mask
		case "SigIgn":
			ignored |= mask
		}
	}
	return pending&^ignored&^harmlessSignalMask != 0
}

// harmlessSignalMask holds, as /proc/PID/status's masks do (bit n-1 for
// signal n), the signals whose default action does not end a process:
// SIGCHLD, SIGCONT, SIGSTOP, SIGTSTP, SIGTTIN, SIGTTOU, SIGURG, SIGWINCH.
const harmlessSignalMask = 1<<16 | 1<<17 | 1<<18 | 1<<19 | 1<<20 | 1<<21 | 1<<22 | 1<<27

// listJobs lists the queued jobs of the sequence's units, each line
// beginning with the job's path (nameJobs names it).
func (r *run) listJobs() ([]string, error) {
	jobs, _, err := r.listJobsIdle()
	return jobs, err
}

// listJobsIdle is listJobs, and reports whether no job of the manager
// (the run's or another's) is running.
func (r *run) listJobsIdle() (jobs []string, idle bool, err error) {
	var list []struct {
		ID                uint32
		Unit, Type, State string
		JobPath, UnitPath dbus.ObjectPath
	}
	if err := r.s.manager().CallWithContext(r.ctx, managerIf+".ListJobs", 0).Store(&list); err != nil {
		return nil, false, fmt.Errorf("%s: ListJobs: %w", r.b.Name, err)
	}
	sort.Slice(list, func(i, j int) bool { return list[i].ID < list[j].ID })
	idle = true
	for _, j := range list {
		idle = idle && j.State != "running"
		if r.ours(j.Unit) {
			jobs = append(jobs, fmt.Sprintf("%s %s %s %s", j.JobPath, j.Unit[len(r.prefix):], j.Type, j.State))
		}
	}
	return jobs, idle, nil
}

// queuedToRun reports whether a start, stop or restart job of the run's
// waits for a unit that is inactive or failed while no job of the manager
// runs (idle): nothing holds it back, and systemd runs it once its loop
// is idle. On a loaded machine a read can come first (262 showed a start
// job waiting, its unit inactive, with four sandboxes on two cores).
func (r *run) queuedToRun(jobs []string, listed map[string]listedUnit, idle bool) bool {
	if !idle {
		return false
	}
	for _, l := range jobs {
		f := strings.Fields(l) // path, unit, type, state
		if len(f) != 4 || f[3] != "waiting" || f[2] != "start" && f[2] != "stop" && f[2] != "restart" {
			continue
		}
		if u, ok := listed[r.prefix+f[1]]; ok && (u.active == "inactive" || u.active == "failed") {
			return true
		}
	}
	return false
}

// nameJobs names the job whose path begins each of listJobs' lines.
func (r *run) nameJobs(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		path, rest, _ := strings.Cut(l, " ")
		unit, _, _ := strings.Cut(rest, " ")
		out[i] = r.jobOf(path, unit) + " " + rest
	}
	return out
}

// units reads each pool unit: whether it is loaded, its states and
// result, and the properties the sequence set on it.
func (r *run) units() []string {
	var out []string
	listed := r.listUnits()
	for i, k := range pool {
		name := unitName(r.prefix, i)
		short := unitName("", i)
		u, err := r.lookUp(listed, name)
		if err != nil {
			var de dbus.Error
			if errors.As(err, &de) {
				out = append(out, short+": "+de.Name)
			} else {
				out = append(out, short+": "+err.Error())
			}
			continue
		}
		obj := r.s.conn.Object(busName, u.path)
		// The properties one by one: a GetAll of the Unit interface
		// would read UnitFileState too, which systemd then keeps until
		// the next daemon-reload.
		line := short + ": " + r.states(obj, u)
		if k != kSlice && k != kTarget {
			line += " Result=" + r.get(obj, typeIf[k], "Result")
		}
		if k == kService {
			line += fmt.Sprintf(" ExecMain=%s/%s", r.get(obj, typeIf[k], "ExecMainCode"), r.get(obj, typeIf[k], "ExecMainStatus"))
		}
		for _, p := range r.set[i] {
			// A percentage form reads back as the limit it sets.
			if base, ok := strings.CutSuffix(p, "Scale"); ok {
				p = base
			}
			line += " " + p + "=" + r.typeOrUnit(obj, k, p)
		}
		if k == kService && slices.ContainsFunc(r.set[i], restartTuning) {
			// What the restart settings make of the hold-offs: the
			// next one (from the restarts so far), and RestartUSec=,
			// which a smaller maximum lowers.
			for _, p := range []string{"NRestarts", "RestartUSec", "RestartUSecNext"} {
				if !slices.Contains(r.set[i], p) {
					line += " " + p + "=" + r.get(obj, typeIf[k], p)
				}
			}
		}
		if k == kService && slices.Contains(r.set[i], "TimeoutStopUSec") && !slices.Contains(r.set[i], "TimeoutAbortUSec") {
			// Unset, the abort timeout reads the stop timeout.
			line += " TimeoutAbortUSec=" + r.get(obj, typeIf[k], "TimeoutAbortUSec")
		}
		if r.files {
			line += r.fileRecord(obj, k, r.set[i])
		}
		out = append(out, r.paths.Replace(line))
	}
	for i := range pool {
		if r.aux[i] {
			out = append(out, r.auxRecord(listed, i))
		}
	}
	if r.files {
		out = append(out, r.wantedByDefault())
	}
	return out
}

// restartTuning reports whether property p is one of the settings (from
// 254) that change how a service restarts.
func restartTuning(p string) bool {
	return p == "RestartMode" || p == "RestartSteps" || p == "RestartMaxDelayUSec"
}

// auxRecord is the line of unit i's auxiliary service: its states, result
// and main process status.
func (r *run) auxRecord(listed map[string]listedUnit, i int) string {
	short := auxName("", i) + " (aux)"
	u, err := r.lookUp(listed, auxName(r.prefix, i))
	if err != nil {
		return short + ": " + r.reply(&dbus.Call{Err: err})
	}
	obj := r.s.conn.Object(busName, u.path)
	svc := typeIf[kService]
	return fmt.Sprintf("%s: %s Result=%s ExecMain=%s/%s", short, r.states(obj, u),
		r.get(obj, svc, "Result"), r.get(obj, svc, "ExecMainCode"), r.get(obj, svc, "ExecMainStatus"))
}

// states is a loaded unit's load, active and sub states as a unit line
// shows them: as listed, or read (a unit found by an alias).
func (r *run) states(obj dbus.BusObject, u listedUnit) string {
	if u.load == "" {
		return fmt.Sprintf("%s %s/%s", r.get(obj, unitIf, "LoadState"), r.get(obj, unitIf, "ActiveState"), r.get(obj, unitIf, "SubState"))
	}
	return fmt.Sprintf("%s %s/%s", r.value(dbus.MakeVariant(u.load)), r.value(dbus.MakeVariant(u.active)), r.value(dbus.MakeVariant(u.sub)))
}

// get reads one property, normalized.
func (r *run) get(obj dbus.BusObject, iface, name string) string {
	var v dbus.Variant
	if err := obj.CallWithContext(r.ctx, "org.freedesktop.DBus.Properties.Get", 0, iface, name).Store(&v); err != nil {
		var de dbus.Error
		if errors.As(err, &de) {
			return "(" + de.Name + ")"
		}
		return "(" + err.Error() + ")"
	}
	return r.value(v)
}

// typeOrUnit reads property name of a unit of kind k, normalized: from
// the type's interface if it has it, else from the Unit interface.
func (r *run) typeOrUnit(obj dbus.BusObject, k unitKind, name string) string {
	var v dbus.Variant
	if err := obj.CallWithContext(r.ctx, "org.freedesktop.DBus.Properties.Get", 0, typeIf[k], name).Store(&v); err == nil {
		return r.value(v)
	}
	return r.get(obj, unitIf, name)
}

// signals returns the job signals of the sequence's units received since
// the last call, normalized.
func (r *run) signals() []string {
	var out []string
	for {
		select {
		case s := <-r.s.sigs:
			if line := r.signal(s); line != "" {
				out = append(out, line)
			}
		default:
			return out
		}
	}
}

// ours reports whether unit name is one of the sequence's (a pool unit or
// an auxiliary service: prefix, then "u"). Prefixes of sequences that run
// at once may begin alike (de1, de13): the name must go on with "u".
func (r *run) ours(name string) bool {
	return strings.HasPrefix(name, r.prefix+"u")
}

func (r *run) signal(s *dbus.Signal) string {
	switch s.Name {
	case managerIf + ".JobNew":
		if len(s.Body) == 3 {
			if u, _ := s.Body[2].(string); r.ours(u) {
				return fmt.Sprintf("JobNew %s %s", r.signalJob(s.Body[1], u), u[len(r.prefix):])
			}
		}
	case managerIf + ".JobRemoved":
		if len(s.Body) == 4 {
			if u, _ := s.Body[2].(string); r.ours(u) {
				return fmt.Sprintf("JobRemoved %s %s %v", r.signalJob(s.Body[1], u), u[len(r.prefix):], s.Body[3])
			}
		}
	}
	return ""
}

// signalJob names the job a signal about unit (full name) carries.
func (r *run) signalJob(v any, unit string) string {
	if p, ok := v.(dbus.ObjectPath); ok {
		return r.jobOf(string(p), unit[len(r.prefix):])
	}
	return r.value(v)
}

func (r *run) drain() { r.signals() }

// cleanup kills and stops the units the sequence named (no other unit of
// its prefix can exist), resets their failures, and kills and reaps its
// processes, so that the next sequence starts from the same state.
func (r *run) cleanup() {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	m := r.s.manager()
	var names []string
	for i := range r.used {
		names = append(names, unitName(r.prefix, i))
	}
	for i := range r.aux {
		names = append(names, auxName(r.prefix, i))
	}
	for _, name := range names {
		m.CallWithContext(ctx, managerIf+".KillUnit", 0, name, "all", int32(9))
		m.CallWithContext(ctx, managerIf+".StopUnit", 0, name, "replace")
	}
	for ctx.Err() == nil {
		if jobs, err := r.listJobs(); err != nil || len(jobs) == 0 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if r.files {
		r.cleanupFiles(ctx)
	}
	for _, name := range names {
		m.CallWithContext(ctx, managerIf+".ResetFailedUnit", 0, name)
	}
	r.procs.cleanup()
}

// procs are the processes a sequence spawned, in order.
type procs struct {
	list []*proc
	died atomic.Int64 // when a live process last died (Unix nanoseconds), 0 if none did
}

type proc struct {
	cmd  *exec.Cmd
	kind ProcKind
	done chan struct{} // closed once reaped (for Live, by the goroutine that waits for it)
	pid  uint32
}

func (p *procs) spawn(k ProcKind) error {
	argv := []string{"/bin/sleep", "1000"}
	if k != Live {
		argv = []string{"/bin/true"}
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("spawn %s: %w", k, err)
	}
	pr := &proc{cmd: cmd, kind: k, done: make(chan struct{}), pid: uint32(cmd.Process.Pid)}
	p.list = append(p.list, pr)
	switch k {
	case Live:
		go func() {
			cmd.Wait()
			p.died.Store(time.Now().UnixNano())
			close(pr.done)
		}()
	case Zombie:
		// Exited, not reaped: its /proc/PID/stat says state Z.
		for i := 0; i < 500 && procState(pr.pid) != "Z"; i++ {
			time.Sleep(2 * time.Millisecond)
		}
		if s := procState(pr.pid); s != "Z" {
			return fmt.Errorf("spawn zombie: process %d in state %q", pr.pid, s)
		}
	case Reaped:
		cmd.Wait()
		close(pr.done)
	}
	return nil
}

func procState(pid uint32) string {
	b, err := os.ReadFile("/proc/" + strconv.FormatUint(uint64(pid), 10) + "/stat")
	if err != nil {
		return ""
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 || i+2 >= len(s) {
		return ""
	}
	return s[i+2 : i+3]
}

// pidUnset is a PID above the largest pid_max Linux allows (2^22).
const pidUnset = 1<<22 + 1

func (p *procs) pid(ref int) uint32 {
	switch {
	case ref == PID1:
		return 1
	case ref >= 0 && ref < len(p.list):
		return p.list[ref].pid
	}
	return pidUnset
}

// index is the index of the spawned process whose PID is s, or -1.
func (p *procs) index(s string) int {
	for i, pr := range p.list {
		if strconv.FormatUint(uint64(pr.pid), 10) == s {
			return i
		}
	}
	return -1
}

// cleanup kills the live processes and reaps every process.
func (p *procs) cleanup() {
	for _, pr := range p.list {
		select {
		case <-pr.done:
			continue
		default:
		}
		if pr.kind == Live {
			pr.cmd.Process.Kill()
			<-pr.done
			continue
		}
		pr.cmd.Wait() // a zombie
		close(pr.done)
	}
	p.list = nil
}
