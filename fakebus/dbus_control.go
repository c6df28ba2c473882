package fakebus

// The control interface (WithControl): the test-side controls of
// control.go, script.go, scriptfile.go, reexec.go and calllog.go as D-Bus
// methods, for tests that drive the fake from another process
// (fakesystemd serves it by default). It is the bus's control service
// (busd's control.go): a name and unique name of its own (":1.0"),
// never systemd's, so that systemd's objects, their introspection and
// what a client of systemd sees of the bus stay as they are; its calls
// are neither held by a daemon-reload nor dropped by a daemon-reexec,
// and the call log leaves them out. It answers on the bus only, not on
// the private socket.

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus/internal/busd"
)

// The control interface's bus name, object and interface.
const (
	controlName  = "io.github.sdbus_go.FakeSystemd"
	controlPath  = dbus.ObjectPath("/io/github/sdbus_go/FakeSystemd")
	controlIface = "io.github.sdbus_go.FakeSystemd1"
	// controlErr prefixes the control interface's own errors.
	controlErr = controlIface + ".Error."
)

// WithControl serves the control interface on the fake's bus: the bus
// name io.github.sdbus_go.FakeSystemd, object
// /io/github/sdbus_go/FakeSystemd, interface
// io.github.sdbus_go.FakeSystemd1, whose methods are the Server's
// controls (docs/fakesystemd.md, "The control interface"). It logs calls
// (WithCallLog) for its GetCalls. Only uid 0 and the uid of the fake's
// process may call it (everyone with AccessEveryone).
func WithControl() Option { return func(c *config) { c.control = true } }

// ctlMethod is one method of the control interface.
type ctlMethod struct {
	name              string
	in, out           string // signatures
	inNames, outNames string // comma-separated, for Introspect
	// call answers c: the reply body, an error reply (*callErr, else
	// Failed), or (nil, nil) when it replies itself, later.
	call func(s *Server, c *busd.Call) ([]any, error)
}

// controlMethods is io.github.sdbus_go.FakeSystemd1, in Introspect's
// order. Durations are seconds (d).
var controlMethods = []ctlMethod{
	{"ApplyScript", "s", "", "script_json", "", (*Server).ctlApplyScript},
	{"ScriptResult", "ssu", "", "pattern,result,count", "", (*Server).ctlScriptResult},
	{"ScriptDelay", "sdd", "", "pattern,delay,reply_delay", "", (*Server).ctlScriptDelay},
	{"ScriptFailure", "sssiu", "", "pattern,result,unit_result,exit_status,count", "", (*Server).ctlScriptFailure},
	{"ClearScripts", "", "", "", "", func(s *Server, _ *busd.Call) ([]any, error) { s.ClearScripts(); return []any{}, nil }},
	{"ScriptConflicts", "", "s", "", "conflicts_json", (*Server).ctlScriptConflicts},
	{"SetUnitState", "ssssa{sv}", "", "name,active_state,sub_state,result,options", "", (*Server).ctlSetUnitState},
	{"SetUnitProperties", "sa(sv)", "", "name,properties", "", (*Server).ctlSetUnitProperties},
	{"MakeSubcgroup", "ss", "", "unit,sub", "", func(s *Server, c *busd.Call) ([]any, error) {
		if err := s.MakeSubcgroup(c.Body[0].(string), c.Body[1].(string)); err != nil {
			return nil, ctlModelError(err)
		}
		return []any{}, nil
	}},
	{"AddUnitFile", "s", "", "unit_json", "", (*Server).ctlAddUnitFile},
	{"RemoveUnitFile", "s", "b", "name", "removed", func(s *Server, c *busd.Call) ([]any, error) {
		return []any{s.RemoveUnitFile(c.Body[0].(string))}, nil
	}},
	{"UnitDirs", "", "ss", "", "persistent,runtime", func(s *Server, _ *busd.Call) ([]any, error) {
		return []any{s.UnitDir(), s.RuntimeUnitDir()}, nil
	}},
	{"SetVersion", "s", "", "version", "", func(s *Server, c *busd.Call) ([]any, error) {
		if err := s.SetVersion(c.Body[0].(string)); err != nil {
			return nil, errInvalidArgs("%s", err.Error())
		}
		return []any{}, nil
	}},
	{"SetReloadDuration", "d", "", "seconds", "", func(s *Server, c *busd.Call) ([]any, error) {
		d, err := ctlSeconds(c.Body[0].(float64))
		if err == nil {
			s.SetReloadDuration(d)
		}
		return []any{}, err
	}},
	{"SetReexecDuration", "d", "", "seconds", "", func(s *Server, c *busd.Call) ([]any, error) {
		d, err := ctlSeconds(c.Body[0].(float64))
		if err == nil {
			s.SetReexecDuration(d)
		}
		return []any{}, err
	}},
	{"DaemonReload", "", "", "", "", (*Server).ctlDaemonReload},
	{"Reexecute", "a{sv}", "ss", "options", "old_name,new_name", (*Server).ctlReexecute},
	{"DropConnections", "", "", "", "", (*Server).ctlDropConnections},
	{"DropAfterReply", "su", "", "member,count", "", func(s *Server, c *busd.Call) ([]any, error) {
		s.DropAfterReply(c.Body[0].(string), int(min(c.Body[1].(uint32), math.MaxInt32)))
		return []any{}, nil
	}},
	// Clients counts the caller's own connection, as Server.Clients does.
	{"Clients", "", "u", "", "count", func(s *Server, _ *busd.Call) ([]any, error) { return []any{uint32(s.Clients())}, nil }},
	{"EmitJobRemoved", "uoss", "", "id,job,unit,result", "", func(s *Server, c *busd.Call) ([]any, error) {
		s.EmitJobRemoved(c.Body...)
		return []any{}, nil
	}},
	{"EmitJobRemovedFrom", "suoss", "", "sender,id,job,unit,result", "", func(s *Server, c *busd.Call) ([]any, error) {
		sender := c.Body[0].(string)
		if !busd.ValidBusName(sender) {
			return nil, errInvalidArgs("invalid sender %q: want a bus name, unique (:1.42) or well-known (org.example.Name)", sender)
		}
		s.EmitJobRemovedFrom(sender, c.Body[1].(uint32), c.Body[2].(dbus.ObjectPath), c.Body[3].(string), c.Body[4].(string))
		return []any{}, nil
	}},
	{"Unit", "s", "bssssbuau", "name", "loaded,load_state,active_state,sub_state,result,transient,job_id,pids", (*Server).ctlUnit},
	{"Jobs", "", "u", "", "count", func(s *Server, _ *busd.Call) ([]any, error) { return []any{uint32(s.Jobs())}, nil }},
	{"FinishJob", "us", "b", "id,result", "found", (*Server).ctlFinishJob},
	{"WaitIdle", "d", "", "timeout", "", (*Server).ctlWaitIdle},
	{"GetCalls", "ss", "s", "member,unit", "calls_json", func(s *Server, c *busd.Call) ([]any, error) {
		calls := s.Calls(CallFilter{Member: c.Body[0].(string), Unit: c.Body[1].(string)})
		if calls == nil {
			calls = []LoggedCall{}
		}
		out, err := json.Marshal(calls)
		if err != nil {
			return nil, err
		}
		return []any{string(out)}, nil
	}},
	{"ClearCalls", "", "", "", "", func(s *Server, _ *busd.Call) ([]any, error) { s.ClearCalls(); return []any{}, nil }},
	{"Reset", "", "", "", "", func(s *Server, _ *busd.Call) ([]any, error) {
		if err := s.Reset(); err != nil {
			return nil, err
		}
		return []any{}, nil
	}},
}

// controlByName indexes controlMethods.
func controlByName(name string) *ctlMethod {
	for i := range controlMethods {
		if controlMethods[i].name == name {
			return &controlMethods[i]
		}
	}
	return nil
}

// handleControl answers a call to the control service (busd.Config.ControlHandler),
// on the caller's reader goroutine, holding no lock of its own.
func (s *Server) handleControl(c *busd.Call) {
	out, err := s.answerControl(c)
	if out == nil && err == nil {
		return
	}
	if err != nil {
		var ce *callErr
		if errors.As(err, &ce) {
			c.ReplyError(ce.name, ce.msg)
		} else {
			c.ReplyError(dbusErr+"Failed", err.Error())
		}
		return
	}
	c.Reply(out...)
}

func (s *Server) answerControl(c *busd.Call) ([]any, error) {
	if !s.m.cfg.mayControl(c.Peer) {
		return nil, &callErr{dbusErr + "AccessDenied", "The fake's control interface answers uid 0 and the fake's own uid only."}
	}
	switch {
	case c.Interface == "org.freedesktop.DBus.Introspectable" || c.Interface == "" && c.Member == "Introspect":
		if c.Member != "Introspect" {
			return nil, errUnknownMethod(c)
		}
		if c.Signature.String() != "" {
			return nil, errInvalidArgs("Invalid arguments '%s' to call %s.%s(), expecting ''.", c.Signature, c.Interface, c.Member)
		}
		xml, ok := controlIntrospect(c.Path)
		if !ok {
			return nil, errUnknownObject(c.Path)
		}
		return []any{xml}, nil
	case c.Path != controlPath:
		return nil, errUnknownObject(c.Path)
	case c.Interface != "" && c.Interface != controlIface:
		return nil, errUnknownMethod(c)
	}
	vm := controlByName(c.Member)
	if vm == nil {
		return nil, errUnknownMethod(c)
	}
	if got := c.Signature.String(); got != vm.in {
		return nil, errInvalidArgs("Invalid arguments '%s' to call %s.%s(), expecting '%s'.", got, controlIface, c.Member, vm.in)
	}
	return vm.call(s, c)
}

// mayControl reports whether the caller on p may use the control
// interface: uid 0 and the fake's own uid, everyone with AccessEveryone.
func (c *config) mayControl(p *busd.Peer) bool {
	return c.access == AccessEveryone || p.UID() == 0 || p.UID() == uint32(os.Getuid())
}

// controlIntrospect returns the introspection XML of path on the control
// service: the control object's, or a parent's that lists its child.
func controlIntrospect(p dbus.ObjectPath) (string, bool) {
	var b strings.Builder
	b.WriteString(`<!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
"https://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">
<node>
`)
	if p == controlPath {
		b.WriteString(` <interface name="org.freedesktop.DBus.Peer">
  <method name="Ping"/>
  <method name="GetMachineId">
   <arg type="s" name="machine_uuid" direction="out"/>
  </method>
 </interface>
 <interface name="org.freedesktop.DBus.Introspectable">
  <method name="Introspect">
   <arg type="s" name="xml_data" direction="out"/>
  </method>
 </interface>
 <interface name="` + controlIface + `">
`)
		for _, vm := range controlMethods {
			b.WriteString(`  <method name="` + vm.name + `">` + "\n")
			writeArgs(&b, vm.in, vm.inNames, "in")
			writeArgs(&b, vm.out, vm.outNames, "out")
			b.WriteString("  </method>\n")
		}
		b.WriteString(" </interface>\n</node>\n")
		return b.String(), true
	}
	parent := string(controlPath)
	for parent != "/" {
		i := strings.LastIndexByte(parent, '/')
		child := parent[i+1:]
		parent = parent[:max(i, 1)]
		if dbus.ObjectPath(parent) == p {
			b.WriteString(` <node name="` + child + `"/>` + "\n</node>\n")
			return b.String(), true
		}
	}
	return "", false
}

// ctlSeconds is a duration in seconds, as the control methods take them.
func ctlSeconds(sec float64) (time.Duration, error) {
	if math.IsNaN(sec) || sec < 0 || sec > float64(math.MaxInt64)/float64(time.Second) {
		return 0, errInvalidArgs("invalid duration %v: want seconds, 0 or more", sec)
	}
	return time.Duration(sec * float64(time.Second)), nil
}

// ctlScriptError answers an error of Script or ApplyScriptFile.
func ctlScriptError(err error) error {
	var sc *ScriptConflict
	var fe *ScriptFileError
	var ue *UnitFileError
	switch {
	case errors.As(err, &sc):
		return &callErr{controlErr + "ScriptConflict", err.Error()}
	case errors.As(err, &fe), errors.As(err, &ue):
		return errInvalidArgs("%s", err.Error())
	}
	return err
}

func (s *Server) ctlApplyScript(c *busd.Call) ([]any, error) {
	f, err := ParseScriptFile([]byte(c.Body[0].(string)))
	if err != nil {
		return nil, errInvalidArgs("script: %s", err.Error())
	}
	if err := s.ApplyScriptFile(f); err != nil {
		return nil, ctlScriptError(err)
	}
	return []any{}, nil
}

// ctlScriptResult scripts the next count start, restart and reload jobs
// of the units that match pattern to end with result, every one with
// count 0 (Script.Results, Script.Result).
func (s *Server) ctlScriptResult(c *busd.Call) ([]any, error) {
	pattern, result, count := c.Body[0].(string), sdbus.JobResult(c.Body[1].(string)), c.Body[2].(uint32)
	if !result.Known() {
		return nil, errInvalidArgs("unknown job result %q (known: %s)", result, joinResults())
	}
	if count > 1<<16 {
		return nil, errInvalidArgs("count %d: at most 65536 jobs", count)
	}
	sc := Script{Result: result}
	if count > 0 {
		sc = Script{Results: make([]sdbus.JobResult, count)}
		for i := range sc.Results {
			sc.Results[i] = result
		}
	}
	if err := s.Script(pattern, sc); err != nil {
		return nil, ctlScriptError(err)
	}
	return []any{}, nil
}

// ctlScriptFailure scripts the next count start, restart and reload
// jobs of the units that match pattern, every one with count 0, to fail:
// the job with result (failed or timeout), the unit with unit_result
// ("" for the default) and, for a service, its main process with
// exit_status (0 for none): Script's Results (or Result), UnitResult and
// ExitStatus.
func (s *Server) ctlScriptFailure(c *busd.Call) ([]any, error) {
	pattern, result, unitResult := c.Body[0].(string), sdbus.JobResult(c.Body[1].(string)), c.Body[2].(string)
	status, count := c.Body[3].(int32), c.Body[4].(uint32)
	if result != sdbus.JobFailed && result != sdbus.JobTimeout {
		return nil, errInvalidArgs("job result %q: want failed or timeout", result)
	}
	if unitResult != "" && !contains(unitResults, unitResult) {
		return nil, errInvalidArgs("unknown unit result %q (known: %s)", unitResult, strings.Join(unitResults, ", "))
	}
	if count > 1<<16 {
		return nil, errInvalidArgs("count %d: at most 65536 jobs", count)
	}
	sc := Script{Result: result, UnitResult: unitResult, ExitStatus: status}
	if count > 0 {
		sc.Result, sc.Results = "", make([]sdbus.JobResult, count)
		for i := range sc.Results {
			sc.Results[i] = result
		}
	}
	if err := sc.checkExit(); err != nil {
		return nil, errInvalidArgs("%s", err.Error())
	}
	if err := s.Script(pattern, sc); err != nil {
		return nil, ctlScriptError(err)
	}
	return []any{}, nil
}

// ctlScriptDelay keeps the jobs of the units that match pattern queued
// for delay seconds, and their replies for reply_delay (Script.Delay,
// Script.ReplyDelay).
func (s *Server) ctlScriptDelay(c *busd.Call) ([]any, error) {
	delay, err := ctlSeconds(c.Body[1].(float64))
	if err != nil {
		return nil, err
	}
	replyDelay, err := ctlSeconds(c.Body[2].(float64))
	if err != nil {
		return nil, err
	}
	if err := s.Script(c.Body[0].(string), Script{Delay: delay, ReplyDelay: replyDelay}); err != nil {
		return nil, ctlScriptError(err)
	}
	return []any{}, nil
}

// ctlSetUnitState puts a unit into a state (SetUnitState), with the
// options "exit_status" (i), "main_pid" (u) and "pids" (au) of
// UnitState. The model's refusals are InvalidArgs, the errors of a unit
// that does not load systemd's.
func (s *Server) ctlSetUnitState(c *busd.Call) ([]any, error) {
	st := UnitState{ActiveState: c.Body[1].(string), SubState: c.Body[2].(string), Result: c.Body[3].(string)}
	opts := c.Body[4].(map[string]dbus.Variant)
	keys := make([]string, 0, len(opts))
	for k := range opts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v, ok := opts[k], false
		switch k {
		case "exit_status":
			st.ExitStatus, ok = v.Value().(int32)
		case "main_pid":
			st.MainPID, ok = v.Value().(uint32)
		case "pids":
			st.PIDs, ok = v.Value().([]uint32)
		default:
			return nil, errInvalidArgs("unknown option %q (known: exit_status, main_pid, pids)", k)
		}
		if !ok {
			want := map[string]string{"exit_status": "i", "main_pid": "u", "pids": "au"}[k]
			return nil, errInvalidArgs("option %s: want %s, got %s", k, want, v.Signature())
		}
	}
	s.m.lock()
	defer s.m.unlock()
	if err := s.m.setUnitStateLocked(c.Body[0].(string), st, c.Peer.PID()); err != nil {
		return nil, ctlModelError(err)
	}
	return []any{}, nil
}

// ctlSetUnitProperties sets a unit's properties as SetUnitProperties
// does, with its errors, whoever calls.
func (s *Server) ctlSetUnitProperties(c *busd.Call) ([]any, error) {
	s.m.lock()
	defer s.m.unlock()
	if err := s.m.setUnitPropertiesLocked(c.Body[0].(string), true, c.Body[1], nil); err != nil {
		return nil, err
	}
	return []any{}, nil
}

// conflictJSON is a ScriptConflict as ScriptConflicts writes it
// (docs/fakesystemd.md, "The control interface").
type conflictJSON struct {
	Unit string `json:"unit"`
	Rule struct {
		Index   int    `json:"index"`
		Pattern string `json:"pattern"`
		Step    string `json:"step"`
	} `json:"rule"`
	Job         uint32 `json:"job"`
	JobType     string `json:"job_type"`
	Result      string `json:"result"`
	Outcome     string `json:"outcome"`
	Command     string `json:"command"`
	ServiceType string `json:"service_type"`
	Text        string `json:"text"`
}

// ctlScriptConflicts answers ScriptConflicts as a JSON array, [] for none.
func (s *Server) ctlScriptConflicts(_ *busd.Call) ([]any, error) {
	conflicts := s.ScriptConflicts()
	out := make([]conflictJSON, len(conflicts))
	for i, sc := range conflicts {
		o := &out[i]
		o.Unit, o.Job, o.JobType, o.Result = sc.Unit, sc.Job, sc.JobType, string(sc.Result)
		o.Rule.Index, o.Rule.Pattern, o.Rule.Step = sc.Rule.Index, sc.Rule.Pattern, sc.Rule.Step
		o.Outcome, o.Command, o.ServiceType, o.Text = string(sc.Outcome), sc.Command, sc.ServiceType, sc.Text()
	}
	data, err := json.Marshal(out)
	if err != nil {
		return nil, err
	}
	return []any{string(data)}, nil
}

// ctlModelError answers an error of the model: systemd's errors as they
// are, the model's own refusals as InvalidArgs.
func ctlModelError(err error) error {
	var ce *callErr
	if errors.As(err, &ce) {
		return ce
	}
	return errInvalidArgs("%s", err.Error())
}

// ctlAddUnitFile adds or replaces a unit file given as an element of a
// script file's "units".
func (s *Server) ctlAddUnitFile(c *busd.Call) ([]any, error) {
	u, err := parseUnit("unit", json.RawMessage(c.Body[0].(string)))
	if err != nil {
		return nil, errInvalidArgs("%s", err.Error())
	}
	if err := s.AddUnitFile(u); err != nil {
		return nil, ctlScriptError(err)
	}
	return []any{}, nil
}

// ctlDaemonReload runs a daemon-reload as Manager.Reload does and replies
// once it is over (SetReloadDuration).
func (s *Server) ctlDaemonReload(c *busd.Call) ([]any, error) {
	m := s.m
	m.lock()
	defer m.unlock()
	if m.closed {
		return nil, &callErr{dbusErr + "Disconnected", "The manager is shutting down."}
	}
	if m.reloading {
		return nil, &callErr{dbusErr + "Failed", "A daemon-reload is under way."}
	}
	m.reloadLocked(c)
	return nil, nil
}

// ctlReexecute runs a daemon-reexec (Server.Reexecute) with the options
// "finish" (a{us}: job ID to result), "lose" (a{us}), "forge" (au) and
// "pending" (u) of Reexec.
func (s *Server) ctlReexecute(c *busd.Call) ([]any, error) {
	var r Reexec
	results := func(key string, v dbus.Variant) (map[uint32]sdbus.JobResult, error) {
		m, ok := v.Value().(map[uint32]string)
		if !ok {
			return nil, errInvalidArgs("option %s: want a{us}, got %s", key, v.Signature())
		}
		out := make(map[uint32]sdbus.JobResult, len(m))
		for id, res := range m {
			if !sdbus.JobResult(res).Known() {
				return nil, errInvalidArgs("option %s: unknown job result %q", key, res)
			}
			out[id] = sdbus.JobResult(res)
		}
		return out, nil
	}
	opts := c.Body[0].(map[string]dbus.Variant)
	keys := make([]string, 0, len(opts))
	for k := range opts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := opts[k]
		var err error
		switch k {
		case "finish":
			r.Finish, err = results(k, v)
		case "lose":
			r.Lose, err = results(k, v)
		case "forge":
			ids, ok := v.Value().([]uint32)
			if !ok {
				err = errInvalidArgs("option forge: want au, got %s", v.Signature())
			}
			r.Forge = ids
		case "pending":
			n, ok := v.Value().(uint32)
			if !ok {
				err = errInvalidArgs("option pending: want u, got %s", v.Signature())
			}
			r.Pending = int(min(n, math.MaxInt32))
		default:
			err = errInvalidArgs("unknown option %q (known: finish, forge, lose, pending)", k)
		}
		if err != nil {
			return nil, err
		}
	}
	oldName, newName := s.Reexecute(r)
	return []any{oldName, newName}, nil
}

// ctlDropConnections closes every client connection but the caller's,
// after the reply.
func (s *Server) ctlDropConnections(c *busd.Call) ([]any, error) {
	c.Reply()
	s.bus.DropPeersBut(c.Peer)
	return nil, nil
}

func (s *Server) ctlUnit(c *busd.Call) ([]any, error) {
	u, ok := s.Unit(c.Body[0].(string))
	pids := u.PIDs
	if pids == nil {
		pids = []uint32{}
	}
	return []any{ok, u.LoadState, u.ActiveState, u.SubState, u.Result, u.Transient, u.JobID, pids}, nil
}

func (s *Server) ctlFinishJob(c *busd.Call) ([]any, error) {
	result := sdbus.JobResult(c.Body[1].(string))
	if !result.Known() {
		return nil, errInvalidArgs("unknown job result %q (known: %s)", result, joinResults())
	}
	return []any{s.FinishJob(c.Body[0].(uint32), result)}, nil
}

// ctlWaitIdle replies once no job is left (WaitIdle), or with
// org.freedesktop.DBus.Error.Timeout after timeout seconds (0: no
// limit but the caller's own timeout), from a goroutine of its own: the
// caller's connection is read meanwhile.
func (s *Server) ctlWaitIdle(c *busd.Call) ([]any, error) {
	timeout, err := ctlSeconds(c.Body[0].(float64))
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	if timeout > 0 {
		ctx, cancel = context.WithTimeout(context.Background(), timeout)
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		cancel()
		return nil, &callErr{dbusErr + "Disconnected", "The manager is shutting down."}
	}
	s.ctlWaits.Add(2)
	s.mu.Unlock()
	go func() {
		// The caller leaving ends the wait too.
		defer s.ctlWaits.Done()
		select {
		case <-c.Peer.Done():
			cancel()
		case <-ctx.Done():
		}
	}()
	go func() {
		defer s.ctlWaits.Done()
		defer cancel()
		switch err := s.WaitIdle(ctx); {
		case err == nil:
			c.Reply()
		case errors.Is(err, context.DeadlineExceeded):
			c.ReplyError(dbusErr+"Timeout", "jobs still queued or running after "+timeout.String())
		default:
			c.ReplyError(dbusErr+"Failed", err.Error())
		}
	}()
	return nil, nil
}
