package fakebus

import (
	"sort"

	"github.com/sdbus-go/sdbus"
)

// NoteKind says what a Note reports.
type NoteKind string

const (
	// NoteScript: a script rule matched a job as it was queued (Unit,
	// Job, JobType, Rule, Result; Script has the rule's delays and
	// faults).
	NoteScript NoteKind = "script"
	// NoteConflict: a script rule's result contradicted the unit's
	// commands as its job ran; the script won (Conflict).
	NoteConflict NoteKind = "conflict"
	// NoteSettings: a unit's configuration carried settings the fake
	// keeps without acting on them, or unit file lines it did not use
	// (Unit, From, Stored, Ignored).
	NoteSettings NoteKind = "settings"
)

// Note is something the fake did that no D-Bus message shows: which
// script rule decided a job, a rule that contradicts a unit's commands,
// settings kept but not modelled. WithNotes receives them.
type Note struct {
	Kind NoteKind
	Unit string
	// Job, JobType, Rule and Result: the job a script rule matched, and
	// the result the rule gives it ("" when its commands decide it).
	Job     uint32
	JobType string
	Rule    Rule
	Result  sdbus.JobResult
	// Script is the matching rule's script, Results left out.
	Script Script
	// Conflict is a NoteConflict's conflict.
	Conflict *ScriptConflict
	// From is where a NoteSettings's settings came from:
	// "StartTransientUnit", "SetUnitProperties", "AddUnitFile" (or
	// WithUnitFile), or the unit file's path.
	From string
	// Stored are the settings the fake accepted and keeps without acting
	// on them (see "Settings" in docs/fakebus.md), sorted;
	// Ignored are a unit file's assignments the fake did not use,
	// "Section.Key", in file order.
	Stored  []string
	Ignored []string
	// Client, PID, Limit, Value and Max: a NoteLimit's connection (its
	// unique name, "" before Hello and on a peer-to-peer connection; its
	// peer's PID), the limit it passed (LimitMaxMessageSize,
	// LimitAuthTimeout, ...; see Limits), what it would
	// have reached (bytes, connections, nanoseconds for auth_timeout, the
	// message's size for decode_ratio) and the limit.
	Client     string
	PID        uint32
	Limit      LimitName
	Value, Max int64
}

// WithNotes calls f for each Note, with the fake busy: f must not block
// for long nor call the Server.
func WithNotes(f func(Note)) Option { return func(c *config) { c.notes = f } }

// noteLocked reports n to WithNotes's function, if any.
func (m *manager) noteLocked(n Note) {
	if m.cfg.notes != nil {
		m.cfg.notes(n)
	}
}

// settingsNoteLocked reports the settings of names that the fake keeps
// without acting on them, and the unit file lines it ignored.
func (m *manager) settingsNoteLocked(unit, from string, names []string, ignored []string) {
	if m.cfg.notes == nil {
		return
	}
	stored := storedOnly(names)
	if len(stored) == 0 && len(ignored) == 0 {
		return
	}
	m.noteLocked(Note{Kind: NoteSettings, Unit: unit, From: from, Stored: stored, Ignored: append([]string(nil), ignored...)})
}

// storedOnly returns, sorted and once each, the names the fake keeps
// without modelling.
func storedOnly(names []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, n := range names {
		if !modelled[n] && !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// modelled are the settings of settableProps the fake acts on: they change
// what it does (jobs, unit states, the checks of its methods), or, for
// Description, are wholly what it shows. Every other setting it accepts is
// stored only: kept (and read back by Get when the fake has the property,
// resource limits summed up in Effective* too), never acted on. docs/fakebus.md lists them
// ("Settings"); TestSettingsDocumented keeps the two in step. It is
// read-only.
var modelled = map[string]bool{
	"Description": true, // Description, Dump, ListUnits

	"Wants": true, "Requires": true, "Requisite": true, "BindsTo": true, "Conflicts": true,
	"RefuseManualStart": true, "RefuseManualStop": true, "AllowIsolate": true,
	"CollectMode": true, "Conditions": true, "Asserts": true, "Slice": true,
	"StartLimitBurst": true, "StartLimitIntervalUSec": true, // startlimit.go
	"StopWhenUnneeded": true,                    // unneeded.go
	"OnFailure":        true, "OnSuccess": true, // onfailure.go
	"OnFailureJobMode": true, "OnSuccessJobMode": true, // onfailure.go

	"Type": true, "BusName": true, "ExecStart": true, "ExecStartPre": true, "ExecStartPost": true, "ExecStop": true,
	"ExecStopPost": true, "ExecReload": true, "ExecCondition": true, "RemainAfterExit": true,
	"Restart": true, "RestartUSec": true, "RestartMode": true, "RestartSteps": true, "RestartMaxDelayUSec": true, // restart.go
	"SuccessExitStatus": true, "RestartPreventExitStatus": true, "RestartForceExitStatus": true, // exitstatus.go

	"PIDs": true, "Delegate": true, "DelegateControllers": true,

	// The main process fails before it runs (execFailure).
	"User": true, "Group": true, "WorkingDirectory": true, "LimitNOFILE": true, "DevicePolicy": true,
	"RuntimeMaxUSec": true,

	"AddRef": true,

	"IgnoreSIGPIPE": true, // kill.go: KillUnit's SIGPIPE

	// systemd-run --pipe: accepted only with commands the fake
	// interprets, which read and write nothing (checkStdioFDs).
	"StandardInputFileDescriptor": true, "StandardOutputFileDescriptor": true, "StandardErrorFileDescriptor": true,
}
