package fakebus

import (
	"fmt"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/godbus/dbus/v5"
	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus/internal/busd"
	"github.com/sdbus-go/sdbus/fakebus/internal/sdversions"
)

// callErr is a D-Bus error reply.
type callErr struct{ name, msg string }

func (e *callErr) Error() string { return e.name + ": " + e.msg }

func errInvalidArgs(format string, args ...any) *callErr {
	return &callErr{dbusErr + "InvalidArgs", fmt.Sprintf(format, args...)}
}

func errNoSuchUnit(name string) *callErr {
	return &callErr{errPrefix + "NoSuchUnit", "Unit " + name + " not loaded."}
}

func errNotFound(name string) *callErr {
	return &callErr{errPrefix + "NoSuchUnit", "Unit " + name + " not found."}
}

func errUnknownMethod(c *busd.Call) *callErr {
	return &callErr{dbusErr + "UnknownMethod", fmt.Sprintf("Unknown method %s or interface %s.", c.Member, c.Interface)}
}

// HandleCall answers one method call (busd.Handler).
func (m *manager) HandleCall(c *busd.Call) {
	m.lock()
	defer func() {
		m.callEndedLocked(c)
		m.unlock()
	}()
	if m.closed {
		c.ReplyError(dbusErr+"Disconnected", "The manager is shutting down.")
		return
	}
	if c.Dropped() {
		// Queued to an instance that re-executed before reading it: the
		// bus answered NoReply (reexec.go), and systemd never acts on it.
		return
	}
	var out []any
	var err error
	switch {
	case c.Path == managerPath && c.Interface == managerIface:
		out, err = m.managerCallLocked(c)
		if out == nil && err == nil {
			return // replied by the method itself
		}
	case c.Interface == propsIface:
		out, err = m.propertiesCallLocked(c)
	case c.Interface == "org.freedesktop.DBus.Introspectable" && c.Member == "Introspect":
		out = []any{m.introspectLocked(c.Path)}
	case c.Interface == jobIface && c.Member == "Cancel" && strings.HasPrefix(string(c.Path), jobPathBase):
		out, err = m.cancelJobLocked(jobIDOf(c.Path))
	default:
		err = errUnknownMethod(c)
	}
	if err != nil {
		if ce, ok := err.(*callErr); ok {
			c.ReplyError(ce.name, ce.msg)
		} else {
			c.ReplyError(dbusErr+"Failed", err.Error())
		}
		return
	}
	c.Reply(out...)
}

func jobIDOf(p dbus.ObjectPath) uint32 {
	n, _ := strconv.ParseUint(strings.TrimPrefix(string(p), jobPathBase), 10, 32)
	return uint32(n)
}

// args checks a call's signature.
func args(c *busd.Call, sig string) error {
	if c.Signature.String() != sig {
		return errInvalidArgs("Invalid arguments '%s' to call %s.%s(), expecting '%s'.", c.Signature.String(), c.Interface, c.Member, sig)
	}
	return nil
}

var jobMethods = map[string]jobType{
	"StartUnit": jobStart, "StopUnit": jobStop, "ReloadUnit": jobReload, "RestartUnit": jobRestart,
	"TryRestartUnit": "try-restart", "ReloadOrRestartUnit": "reload-or-restart",
	"ReloadOrTryRestartUnit": "reload-or-try-restart",
}

// managerCallLocked dispatches Manager methods. It returns (nil, nil) when
// the method has replied itself.
func (m *manager) managerCallLocked(c *busd.Call) ([]any, error) {
	if c.Member == "StartAuxiliaryScope" && sdversions.Behaves(m.release, sdversions.AuxiliaryScopeRemoved) {
		if err := args(c, "sahta(sv)"); err != nil {
			return nil, err
		}
		return nil, &callErr{dbusErr + "NotSupported", "StartAuxiliaryScope() method has been removed."}
	}
	if _, gated := sdversions.Methods[c.Member]; gated && !m.has(c.Member) {
		return nil, errUnknownMethod(c) // a method the release lacks
	}
	if typ, ok := jobMethods[c.Member]; ok {
		if err := args(c, "ss"); err != nil {
			return nil, err
		}
		return nil, m.unitJobLocked(c, c.Body[0].(string), c.Body[1].(string), typ, pathReply)
	}
	switch c.Member {
	case "StartTransientUnit":
		if err := args(c, "ssa(sv)a(sa(sv))"); err != nil {
			return nil, err
		}
		return nil, m.startTransientLocked(c)
	case "GetUnit":
		if err := args(c, "s"); err != nil {
			return nil, err
		}
		name := c.Body[0].(string)
		if u := m.unitLocked(name); u != nil {
			return []any{u.path()}, nil
		}
		return nil, errNoSuchUnit(name)
	case "LoadUnit":
		if err := args(c, "s"); err != nil {
			return nil, err
		}
		name := c.Body[0].(string)
		if err := validName(name); err != nil {
			return nil, err
		}
		_, loaded := m.units[m.primaryLocked(name)]
		if u := m.loadLocked(name); u != nil {
			if !loaded {
				// systemd collects a unit loaded this way soon after,
				// unless it is needed; the fake once it has answered.
				defer m.collectLocked(u)
			}
			return []any{u.path()}, nil
		}
		// A unit without a file is "loaded" as not-found and collected
		// later; the fake collects it at once.
		return []any{sdbus.UnitPath(name)}, nil
	case "GetUnitByPID":
		if err := args(c, "u"); err != nil {
			return nil, err
		}
		pid := c.Body[0].(uint32)
		for _, u := range m.sortedUnitsLocked() {
			for _, p := range u.pids {
				if p == pid {
					return []any{u.path()}, nil
				}
			}
			if u.proc != nil && u.proc.pid == pid {
				return []any{u.path()}, nil
			}
		}
		return nil, &callErr{errPrefix + "NoUnitForPID", fmt.Sprintf("PID %d does not belong to any loaded unit.", pid)}
	case "ResetFailedUnit":
		if err := args(c, "s"); err != nil {
			return nil, err
		}
		name := c.Body[0].(string)
		u := m.unitLocked(name)
		if u == nil {
			return nil, errNoSuchUnit(name)
		}
		m.resetFailedLocked(u)
		return []any{}, nil
	case "ResetFailed":
		for _, u := range m.sortedUnitsLocked() {
			m.resetFailedLocked(u)
		}
		return []any{}, nil
	case "KillUnit":
		if err := args(c, "ssi"); err != nil {
			return nil, err
		}
		return m.killLocked(c.Body[0].(string), c.Body[1].(string), c.Body[2].(int32), false)
	case "SetUnitProperties":
		if err := args(c, "sba(sv)"); err != nil {
			return nil, err
		}
		name := c.Body[0].(string)
		u := m.unitLocked(name)
		if u == nil {
			if u = m.loadLocked(name); u == nil {
				return nil, errNotFound(name)
			}
		}
		props, err := m.checkPropsLocked(u.kind, c.Body[2])
		if err != nil {
			return nil, err
		}
		changed := make([]string, 0, len(props))
		for _, p := range props {
			m.setPropLocked(u, p.Name, p.Value)
			changed = append(changed, p.Name)
		}
		m.settingsNoteLocked(u.name, "SetUnitProperties", changed, nil)
		if u.fromFile {
			// systemd keeps them in a drop-in (system.control), which
			// outlives daemon-reload and the unit's unloading.
			m.control[u.name] = append(m.control[u.name], props...)
		}
		m.indexLocked(u)
		if iface := typeIface(u.kind); iface != "" {
			m.signalLocked(u.path(), propsIface, "PropertiesChanged", func() []any {
				return []any{iface, map[string]dbus.Variant{}, changed}
			})
		}
		return []any{}, nil
	case "AttachProcessesToUnit":
		if !m.has("AttachProcessesToUnit") {
			return nil, errUnknownMethod(c)
		}
		if err := args(c, "ssau"); err != nil {
			return nil, err
		}
		return m.attachLocked(c, c.Body[0].(string), c.Body[1].(string), c.Body[2].([]uint32))
	case "ListUnits":
		return []any{m.listLocked(nil, nil, nil)}, nil
	case "ListUnitsFiltered":
		if err := args(c, "as"); err != nil {
			return nil, err
		}
		return []any{m.listLocked(c.Body[0].([]string), nil, nil)}, nil
	case "ListUnitsByPatterns":
		if err := args(c, "asas"); err != nil {
			return nil, err
		}
		return []any{m.listLocked(c.Body[0].([]string), c.Body[1].([]string), nil)}, nil
	case "ListUnitsByNames":
		if err := args(c, "as"); err != nil {
			return nil, err
		}
		return []any{m.listLocked(nil, nil, c.Body[0].([]string))}, nil
	case "ListJobs":
		var out []jobRow
		ids := make([]int, 0, len(m.jobs))
		for id := range m.jobs {
			ids = append(ids, int(id))
		}
		sort.Ints(ids)
		for _, id := range ids {
			j := m.jobs[uint32(id)]
			out = append(out, jobRow{j.id, j.unit.name, string(j.typ), j.state, j.path(), j.unit.path()})
		}
		return []any{nonNilRows(out)}, nil
	case "GetJob":
		if err := args(c, "u"); err != nil {
			return nil, err
		}
		id := c.Body[0].(uint32)
		if _, ok := m.jobs[id]; !ok {
			return nil, noSuchJob(id)
		}
		return []any{jobPath(id)}, nil
	case "CancelJob":
		if err := args(c, "u"); err != nil {
			return nil, err
		}
		return m.cancelJobLocked(c.Body[0].(uint32))
	case "Subscribe":
		if c.Peer.Mode() == busd.BusMode {
			if m.subscribed[c.Peer] {
				return nil, &callErr{errPrefix + "AlreadySubscribed", "Client is already subscribed."}
			}
			m.subscribed[c.Peer] = true
		}
		return []any{}, nil
	case "Unsubscribe":
		if c.Peer.Mode() == busd.BusMode {
			if !m.subscribed[c.Peer] {
				return nil, &callErr{errPrefix + "NotSubscribed", "Client is not subscribed."}
			}
			delete(m.subscribed, c.Peer)
		}
		return []any{}, nil
	case "FreezeUnit", "ThawUnit":
		if !m.has(c.Member) {
			return nil, errUnknownMethod(c)
		}
		if err := args(c, "s"); err != nil {
			return nil, err
		}
		return m.freezeLocked(c.Body[0].(string), c.Member == "FreezeUnit")
	case "Reload":
		m.reloadLocked(c)
		return nil, nil
	case "Reexecute":
		m.reexecLocked(Reexec{})
		return nil, nil
	}
	if out, ok, err := m.moreCallLocked(c); ok {
		if out == nil && err == nil {
			return nil, nil // replied by the method itself
		}
		return out, err
	}
	if out, ok, err := m.unitFileMoreCallLocked(c); ok {
		if out == nil && err == nil {
			return nil, nil // replied by the method itself
		}
		return out, err
	}
	for _, more := range []func(*busd.Call) ([]any, bool, error){
		m.dumpCallLocked, m.cleanCallLocked, m.dynamicUserCallLocked, m.unitFileDepsCallLocked, m.versionedCallLocked,
	} {
		if out, ok, err := more(c); ok {
			if out == nil && err == nil {
				return nil, nil // replied by the method itself, or not at all
			}
			return out, err
		}
	}
	if out, ok, err := m.unitFileCallLocked(c.Member, c.Body, c.Signature.String()); ok {
		return out, err
	}
	return nil, errUnknownMethod(c)
}

type jobRow struct {
	ID       uint32
	Unit     string
	Type     string
	State    string
	Path     dbus.ObjectPath
	UnitPath dbus.ObjectPath
}

func nonNilRows(r []jobRow) []jobRow {
	if r == nil {
		return []jobRow{}
	}
	return r
}

func noSuchJob(id uint32) *callErr {
	return &callErr{errPrefix + "NoSuchJob", fmt.Sprintf("Job %d does not exist.", id)}
}

func validName(name string) error {
	if err := sdbus.ValidateUnitName(name); err != nil {
		return errInvalidArgs("Unit name %s is not valid.", name)
	}
	return nil
}

// validModes are the job modes systemd knows; the per-version table
// (sdversions.JobModes) says since when.
var validModes = map[string]bool{
	"replace": true, "fail": true, "isolate": true, "ignore-dependencies": true, "ignore-requirements": true,
	"replace-irreversibly": true, "flush": true, "triggering": true, "restart-dependencies": true,
}

func (m *manager) checkModeLocked(mode string, typ jobType) error {
	if !validModes[mode] || !m.has("mode:"+mode) {
		return errInvalidArgs("Job mode %s invalid", mode)
	}
	if mode == "isolate" && typ != jobStart {
		return errInvalidArgs("Isolate is only valid for start.")
	}
	if mode == "triggering" && typ != jobStop {
		return errInvalidArgs("Job mode triggering is only valid for stop.")
	}
	return nil
}

// unitJobLocked handles StartUnit and the other job methods; reply makes
// the call's reply from its job (pathReply for the job methods).
func (m *manager) unitJobLocked(c *busd.Call, name, mode string, typ jobType, reply jobReply) error {
	u, typ, err := m.checkUnitJobLocked(name, mode, typ)
	if err != nil {
		return err
	}
	return m.queueAndReplyLocked(c, u, typ, sdbus.JobMode(mode), reply)
}

// checkUnitJobLocked makes systemd's checks of a job method in systemd's
// order and returns the unit and the job type the job gets (a
// try-restart of an inactive unit is a nop, ...).
func (m *manager) checkUnitJobLocked(name, mode string, typ jobType) (*unit, jobType, error) {
	if err := validName(name); err != nil {
		return nil, "", err
	}
	base := typ
	switch typ {
	case "try-restart", "reload-or-restart", "reload-or-try-restart":
		base = jobRestart
	}
	if err := m.checkModeLocked(mode, base); err != nil {
		return nil, "", err
	}
	u := m.loadLocked(name)
	if u == nil && typ == jobStop {
		// systemd refuses to stop a unit it could not load that is
		// not running (unit_queue_job_check_and_mangle_type).
		return nil, "", errNoSuchUnit(name)
	}
	if u == nil {
		return nil, "", errNotFound(name)
	}
	if u.masked {
		return nil, "", &callErr{errPrefix + "UnitMasked", "Unit " + name + " is masked."}
	}
	if mode == "isolate" && !u.boolProp("AllowIsolate", false) {
		return nil, "", &callErr{errPrefix + "NoIsolation", "Operation refused, unit may not be isolated."}
	}
	canReload := u.kind == "service" && u.props["ExecReload"].Value() != nil
	switch typ {
	case "try-restart":
		typ = jobNop
		if u.isActive() || u.active == "activating" {
			typ = jobRestart
		}
	case "reload-or-restart":
		typ = jobRestart
		if canReload && u.isActive() {
			typ = jobReload
		}
	case "reload-or-try-restart":
		switch {
		case !u.isActive():
			typ = jobNop
		case canReload:
			typ = jobReload
		default:
			typ = jobRestart
		}
	case "reload-or-start":
		typ = jobReload
		if !u.isActive() && u.active != "activating" {
			typ = jobStart
		}
	case "try-reload":
		typ = jobReload
		if !u.isActive() && u.active != "activating" {
			typ = jobNop
		}
	}
	if typ == jobReload && !canReload {
		return nil, "", &callErr{errPrefix + "JobTypeNotApplicable", "Job type reload is not applicable for unit " + name + "."}
	}
	if (typ == jobStart || typ == jobRestart) && u.boolProp("RefuseManualStart", false) {
		return nil, "", &callErr{errPrefix + "OnlyByDependency", "Operation refused, unit " + name + " may be requested by dependency only (it is configured to refuse manual start/stop)."}
	}
	if typ == jobStop && u.boolProp("RefuseManualStop", false) {
		return nil, "", &callErr{errPrefix + "OnlyByDependency", "Operation refused, unit " + name + " may be requested by dependency only (it is configured to refuse manual start/stop)."}
	}
	if typ == jobStop && u.perpetual {
		return nil, "", &callErr{errPrefix + "JobTypeNotApplicable", "Job type stop is not applicable for unit " + name + "."}
	}
	if (typ == jobStart || typ == jobRestart) && u.load == "bad-setting" {
		return nil, "", &callErr{errPrefix + "BadUnitSetting", "Unit " + name + " has a bad unit file setting."}
	}
	if (typ == jobStart || typ == jobRestart) && u.load != "loaded" {
		return nil, "", errNotFound(name)
	}
	return u, typ, nil
}

// jobReply builds the reply of a job method from its job and the other
// jobs the call installed.
type jobReply func(j *job, affected []*job) []any

func pathReply(j *job, _ []*job) []any { return []any{j.path()} }

// queueAndReplyLocked installs a job for the caller and replies with its
// path, honouring the job's script: a delayed reply, JobRemoved before
// the reply, a dropped connection.
func (m *manager) queueAndReplyLocked(c *busd.Call, u *unit, typ jobType, mode sdbus.JobMode, build jobReply) error {
	last := m.lastJob
	j, merged, err := m.installLocked(u, typ, mode, c.Peer)
	if err != nil {
		return err
	}
	p := build(j, m.installedWithLocked(j, last))
	if !merged {
		j.caller = c.Peer
	}
	if merged {
		// Merged into a queued job: the caller gets its path too.
		c.Reply(p...)
		return nil
	}
	sc := j.script
	reply := func() {
		if sc.Faults&FaultBusTimeout != 0 {
			c.TimeOut()
		} else {
			c.Reply(p...)
		}
		m.repliedLocked(j)
		if sc.Faults&FaultDropConnection != 0 {
			c.Peer.CloseAfterFlush() // the reply still arrives
		}
	}
	switch {
	case sc.Faults&FaultJobRemovedBeforeReply != 0:
		// The reply goes out right after the job's JobRemoved.
		j.replyAfter = reply
	case sc.ReplyDelay > 0:
		// The job runs; its JobRemoved waits for the late reply.
		if m.lateReply == nil {
			m.lateReply = make(map[*job]bool)
		}
		m.lateReply[j] = true
		m.afterLocked(sc.ReplyDelay, func() {
			delete(m.lateReply, j)
			reply()
		})
	default:
		reply()
	}
	m.maybeRunLocked(j)
	return nil
}

// installedWithLocked returns the jobs other than j that the call which
// installed j queued (those numbered after last: still queued, or that j
// waits for), by ID.
func (m *manager) installedWithLocked(j *job, last uint32) []*job {
	seen := map[*job]bool{j: true}
	var out []*job
	var walk func(o *job)
	walk = func(o *job) {
		if seen[o] || o.id <= last {
			return
		}
		seen[o] = true
		out = append(out, o)
		for w := range o.waits {
			walk(w)
		}
	}
	for w := range j.waits {
		walk(w)
	}
	for _, o := range m.jobs {
		walk(o)
	}
	sort.Slice(out, func(a, b int) bool { return out[a].id < out[b].id })
	return out
}

func (m *manager) cancelJobLocked(id uint32) ([]any, error) {
	j, ok := m.jobs[id]
	if !ok {
		return nil, noSuchJob(id)
	}
	m.finishJobLocked(j, "canceled")
	u := j.unit
	if u.active == "activating" && u.proc == nil {
		m.setStateLocked(u, "inactive", "dead")
	}
	m.collectLocked(u)
	return []any{}, nil
}

func (m *manager) resetFailedLocked(u *unit) {
	if u.active != "failed" {
		return
	}
	if u.kind == "service" || u.kind == "scope" {
		u.result = "success"
	}
	m.setStateLocked(u, "inactive", "dead")
	m.collectLocked(u)
}

// killLocked is KillUnit and, with queue, QueueSignalUnit (whose signal
// must be a realtime one, as sigqueue's value says), with systemd's
// checks in systemd's order (bus_unit_method_kill, unit_kill).
func (m *manager) killLocked(name, whom string, sig int32, queue bool) ([]any, error) {
	u := m.unitLocked(name)
	if u == nil {
		return nil, errNoSuchUnit(name)
	}
	whom, err := m.killWhom(whom)
	if err != nil {
		return nil, err
	}
	if sig <= 0 || sig >= 65 {
		return nil, errInvalidArgs("Signal number out of range.")
	}
	if queue && (sig < sigRTMin || sig > sigRTMax) {
		return nil, errInvalidArgs("Value parameter only accepted for realtime signals (SIGRTMIN…SIGRTMAX), refusing for signal SIG%s.", signalName(sig))
	}
	switch {
	case strings.HasPrefix(whom, "main") && u.kind != "service" && u.kind != "scope":
		return nil, &callErr{errPrefix + "NoSuchProcess", u.kind + " units have no main processes"}
	case strings.HasPrefix(whom, "control") && !controlKinds[u.kind]:
		return nil, &callErr{errPrefix + "NoSuchProcess", u.kind + " units have no control processes"}
	}
	return m.signalProcessesLocked(u, whom, sig)
}

// controlKinds are the unit types that have control processes (their
// Exec*= commands other than the main one).
var controlKinds = map[string]bool{"service": true, "scope": true, "socket": true, "mount": true, "swap": true}

// killWhom checks a kill method's whom argument: "" is all, "cgroup"
// and "cgroup-fail" are all and all-fail where the release knows them.
func (m *manager) killWhom(whom string) (string, error) {
	switch whom {
	case "":
		return "all", nil
	case "main", "control", "all", "main-fail", "control-fail", "all-fail":
		return whom, nil
	case "cgroup", "cgroup-fail":
		if sdversions.Behaves(m.release, sdversions.KillCgroupWhom) {
			return strings.Replace(whom, "cgroup", "all", 1), nil
		}
	}
	if sdversions.Behaves(m.release, sdversions.KillWhomMessage) {
		return "", errInvalidArgs("Invalid whom argument: %s", whom)
	}
	return "", errInvalidArgs("Invalid who argument %s", whom)
}

// sigRTMin and sigRTMax are the realtime signals as systemd (glibc) sees
// them: the C library keeps 32 and 33 for itself.
const sigRTMin, sigRTMax = 34, 64

// signalNames are the Linux signals below 32 by number, as
// signal_to_string names them (without "SIG").
var signalNames = [...]string{1: "HUP", "INT", "QUIT", "ILL", "TRAP", "ABRT", "BUS", "FPE", "KILL", "USR1", "SEGV",
	"USR2", "PIPE", "ALRM", "TERM", "STKFLT", "CHLD", "CONT", "STOP", "TSTP", "TTIN", "TTOU", "URG", "XCPU", "XFSZ",
	"VTALRM", "PROF", "WINCH", "IO", "PWR", "SYS"}

// signalName is systemd's signal_to_string of a signal that is not a
// realtime one: its name, or its number.
func signalName(sig int32) string {
	if sig > 0 && int(sig) < len(signalNames) {
		return signalNames[sig]
	}
	return strconv.Itoa(int(sig))
}

// signalProcessesLocked sends sig to u's processes that whom (checked)
// names: SIGTERM and SIGINT end them cleanly, SIGKILL and the realtime
// signals (whose default action ends a process) with a failure, other
// signals leave them running.
func (m *manager) signalProcessesLocked(u *unit, whom string, sig int32) ([]any, error) {
	hasMain := u.proc != nil
	hasAny := hasMain || (u.kind == "scope" && u.isActive())
	switch {
	case strings.HasPrefix(whom, "control"):
		return nil, &callErr{errPrefix + "NoSuchProcess", "No control process to kill"}
	case strings.HasPrefix(whom, "main") && !hasMain:
		return nil, &callErr{errPrefix + "NoSuchProcess", "No main process to kill"}
	case whom == "all-fail" && !hasAny:
		return nil, &callErr{errPrefix + "NoSuchProcess", "No matching processes to kill"}
	}
	if sig == 9 || sig == 15 || sig == 2 || sig >= sigRTMin && sig <= sigRTMax { // SIGKILL, SIGTERM, SIGINT, SIGRTMIN... end the processes
		switch {
		case u.kind == "service" && hasMain:
			u.proc.ended = true
			u.proc = nil
			u.exec.ended(cldKilled, sig)
			if sig != 15 && sig != 2 {
				m.failLocked(u, "signal")
				if j := u.job; j != nil && j.typ == jobStart {
					m.finishJobLocked(j, "failed")
				}
				break
			}
			// SIGTERM and SIGINT are a clean exit for a service
			// (SuccessExitStatus= has them by default): it ends as if
			// its main process had exited 0.
			if u.boolProp("RemainAfterExit", false) {
				m.setStateLocked(u, "active", "exited")
			} else {
				m.deactivateLocked(u)
			}
			if j := u.job; j != nil && j.typ == jobStart {
				m.finishJobLocked(j, "done")
			}
		case u.kind == "scope" && u.isActive() && whom == "all":
			m.deactivateLocked(u)
		}
	}
	return []any{}, nil
}

type unitRow struct {
	Name, Description, LoadState, ActiveState, SubState, Following string
	Path                                                           dbus.ObjectPath
	JobID                                                          uint32
	JobType                                                        string
	JobPath                                                        dbus.ObjectPath
}

func (m *manager) row(u *unit) unitRow {
	r := unitRow{Name: u.name, Description: description(u), LoadState: u.load, ActiveState: u.active,
		SubState: u.sub, Path: u.path(), JobPath: "/"}
	if u.job != nil {
		r.JobID, r.JobType, r.JobPath = u.job.id, string(u.job.typ), u.job.path()
	}
	return r
}

func description(u *unit) string {
	if d := u.str("Description"); d != "" {
		return d
	}
	return u.name
}

// listLocked implements the ListUnits family: states filters on any of
// the three states, patterns on the name, names loads and lists.
func (m *manager) listLocked(states, patterns, names []string) []unitRow {
	out := []unitRow{}
	if names != nil {
		for _, n := range names {
			if u := m.loadLocked(n); u != nil {
				out = append(out, m.row(u))
			} else if sdbus.ValidateUnitName(n) == nil {
				out = append(out, unitRow{Name: n, Description: n, LoadState: "not-found", ActiveState: "inactive",
					SubState: "dead", Path: sdbus.UnitPath(n), JobPath: "/"})
			}
		}
		return out
	}
	for _, u := range m.sortedUnitsLocked() {
		if len(states) > 0 && !contains(states, u.active) && !contains(states, u.load) && !contains(states, u.sub) {
			continue
		}
		if len(patterns) > 0 {
			ok := false
			for _, p := range patterns {
				if match, _ := path.Match(p, u.name); match {
					ok = true
				}
			}
			if !ok {
				continue
			}
		}
		out = append(out, m.row(u))
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// reloadLocked models daemon-reload: Reloading(true), JobRemoved held back
// while the reload lasts, the reply, Reloading(false), then the held
// signals.
func (m *manager) reloadLocked(c *busd.Call) {
	m.reloading = true
	m.reloadUnitsLocked()
	reloading := func(active bool) {
		m.signalLocked(managerPath, managerIface, "Reloading", func() []any { return []any{active} })
	}
	reloading(true)
	finish := func() {
		c.Reply()
		m.reloading = false
		reloading(false)
		held := m.held
		m.held = nil
		for _, s := range held {
			m.emitJobRemovedLocked(s)
		}
	}
	if m.reloadFor > 0 {
		m.afterLocked(m.reloadFor, finish)
		return
	}
	finish()
}

// freezeLocked freezes or thaws an active unit's processes.
func (m *manager) freezeLocked(name string, freeze bool) ([]any, error) {
	u := m.unitLocked(name)
	if u == nil {
		return nil, errNoSuchUnit(name)
	}
	switch {
	case u.kind != "service" && u.kind != "scope" && u.kind != "slice":
		return nil, &callErr{dbusErr + "NotSupported", "Unit '" + name + "' does not support freezing."}
	case !u.isActive():
		return nil, &callErr{errPrefix + "UnitInactive", "Unit '" + name + "' is not active."}
	}
	state := "running"
	if freeze {
		state = "frozen"
	}
	if u.freezer != state {
		u.freezer = state
		m.signalLocked(u.path(), propsIface, "PropertiesChanged", func() []any {
			return []any{unitIface, map[string]dbus.Variant{"FreezerState": dbus.MakeVariant(state)}, []string{}}
		})
	}
	return []any{}, nil
}

// managerMethods lists the Manager methods the fake implements; the
// per-version table (sdversions.Methods) says since when.
var managerMethods = []string{
	"GetUnit", "GetUnitByPID", "LoadUnit", "StartUnit", "StopUnit",
	"ReloadUnit", "RestartUnit", "TryRestartUnit", "ReloadOrRestartUnit",
	"ReloadOrTryRestartUnit", "KillUnit", "ResetFailedUnit", "ResetFailed",
	"SetUnitProperties", "StartTransientUnit", "AttachProcessesToUnit",
	"FreezeUnit", "ThawUnit", "GetJob", "CancelJob", "ListUnits",
	"ListUnitsFiltered", "ListUnitsByPatterns", "ListUnitsByNames", "ListJobs",
	"Subscribe", "Unsubscribe", "Reload", "Reexecute",
	"EnableUnitFiles", "DisableUnitFiles", "ReenableUnitFiles", "LinkUnitFiles",
	"MaskUnitFiles", "UnmaskUnitFiles", "PresetUnitFiles", "GetUnitFileState",
	"ListUnitFiles", "ListUnitFilesByPatterns",
	"GetUnitByInvocationID", "GetUnitByControlGroup", "GetUnitProcesses", "RefUnit", "UnrefUnit",
	"ClearJobs", "GetJobAfter", "GetJobBefore", "StartUnitReplace", "AbandonScope",
	"SetEnvironment", "UnsetEnvironment", "UnsetAndSetEnvironment",
	"Dump", "DumpByFileDescriptor", "DumpUnitsMatchingPatterns", "DumpUnitsMatchingPatternsByFileDescriptor",
	"EnableUnitFilesWithFlags", "DisableUnitFilesWithFlags", "DisableUnitFilesWithFlagsAndInstallInfo",
	"AddDependencyUnitFiles", "CleanUnit", "DumpUnitFileDescriptorStore",
	"GetDynamicUsers", "LookupDynamicUserByName", "LookupDynamicUserByUID",
	"GetDefaultTarget", "SetDefaultTarget", "GetUnitFileLinks", "RevertUnitFiles",
	"PresetUnitFilesWithMode", "PresetAllUnitFiles", "EnqueueUnitJob", "SetExitCode", "SetShowStatus",
	"Reboot", "PowerOff", "Halt", "KExec", "SwitchRoot", "Exit",
}

// versionedMethods are the Manager methods whose presence differs between
// releases (sdversions.Methods) and that managerMethods does not list:
// the introspection data lists them where the release has them
// (versioned.go answers them).
var versionedMethods = []string{
	"StartUnitWithFlags", "EnqueueMarkedJobs", "BindMountUnit", "MountImageUnit",
	"GetUnitByPIDFD", "QueueSignalUnit", "SoftReboot", "StartAuxiliaryScope",
	"EnqueueUnitJobMany", "KillUnitSubgroup", "RemoveSubgroupFromUnit",
}

// introspectLocked returns the introspection XML of an object: the
// Manager interface's methods (as far as the modelled release has them)
// for the manager, the standard interfaces for everything.
func (m *manager) introspectLocked(p dbus.ObjectPath) string {
	var b strings.Builder
	b.WriteString(introspectHead)
	if p == managerPath {
		b.WriteString(` <interface name="org.freedesktop.systemd1.Manager">` + "\n")
		names := append(append([]string{}, managerMethods...), versionedMethods...)
		sort.Strings(names[len(managerMethods):])
		for _, name := range names {
			if m.has(name) {
				b.WriteString(`  <method name="` + name + `"/>` + "\n")
			}
		}
		b.WriteString(` </interface>` + "\n")
	}
	if name, err := sdbus.UnitNameFromPath(p); err == nil && p != managerPath {
		// A unit: its Unit and type interfaces with their properties, as
		// far as the release shows them (sdversions.Hidden).
		kind := name[strings.LastIndexByte(name, '.')+1:]
		for _, iface := range []string{unitIface, typeIface(kind)} {
			if iface == "" {
				continue
			}
			props, err := m.objectPropsLocked(p, iface)
			if err != nil {
				continue
			}
			names := make([]string, 0, len(props))
			for n := range props {
				if !m.hidden(n) {
					names = append(names, n)
				}
			}
			sort.Strings(names)
			b.WriteString(` <interface name="` + iface + `">` + "\n")
			for _, n := range names {
				b.WriteString(`  <property name="` + n + `" type="` + props[n].Signature().String() + `" access="read"/>` + "\n")
			}
			b.WriteString(` </interface>` + "\n")
		}
	}
	b.WriteString("</node>\n")
	return b.String()
}

const introspectHead = `<!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
"http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">
<node>
 <interface name="org.freedesktop.DBus.Peer"><method name="Ping"/><method name="GetMachineId"><arg type="s" name="machine_uuid" direction="out"/></method></interface>
 <interface name="org.freedesktop.DBus.Introspectable"><method name="Introspect"><arg name="xml_data" type="s" direction="out"/></method></interface>
 <interface name="org.freedesktop.DBus.Properties"><method name="Get"><arg name="interface_name" direction="in" type="s"/><arg name="property_name" direction="in" type="s"/><arg name="value" direction="out" type="v"/></method><method name="GetAll"><arg name="interface_name" direction="in" type="s"/><arg name="props" direction="out" type="a{sv}"/></method></interface>
`
