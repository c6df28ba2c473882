package fakebus_test

import (
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/google/go-cmp/cmp"
	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus"
)

// TestScriptConflictRefused: Server.Script refuses a rule whose result
// contradicts what the commands of a unit file it matches give, naming
// the unit, the rule's step and the deciding command, and installs
// nothing; rules the commands do not contradict are taken.
func TestScriptConflictRefused(t *testing.T) {
	rule := func(step string) fakebus.Rule { return fakebus.Rule{Index: 0, Pattern: "x.*", Step: step} }
	for _, tc := range []struct {
		name   string
		file   string // x.service's unit file
		script fakebus.Script
		want   *fakebus.ScriptConflict // nil: accepted
	}{
		{"oneshot false scripted done", "[Service]\nType=oneshot\nExecStart=/bin/false\n",
			fakebus.Script{Result: sdbus.JobDone},
			&fakebus.ScriptConflict{Unit: "x.service", Rule: rule("result"), Result: sdbus.JobDone,
				Outcome: fakebus.OutcomeFails, Command: "ExecStart=/bin/false", ServiceType: "oneshot"}},
		{"oneshot true, second step failed", "[Service]\nType=oneshot\nExecStart=/bin/true\n",
			fakebus.Script{Results: []sdbus.JobResult{sdbus.JobDone, sdbus.JobFailed}},
			&fakebus.ScriptConflict{Unit: "x.service", Rule: rule("results[1]"), Result: sdbus.JobFailed,
				Outcome: fakebus.OutcomeSucceeds, Command: "ExecStart=/bin/true", ServiceType: "oneshot"}},
		{"simple true scripted timeout", "[Service]\nExecStart=/bin/sh -c 'exit 0'\n",
			fakebus.Script{Result: sdbus.JobTimeout},
			&fakebus.ScriptConflict{Unit: "x.service", Rule: rule("result"), Result: sdbus.JobTimeout,
				Outcome: fakebus.OutcomeSucceeds, Command: `ExecStart=/bin/sh -c "exit 0"`, ServiceType: "simple"}},
		{"simple exit 3 scripted done", "[Service]\nExecStart=/bin/sh -c 'exit 3'\n",
			fakebus.Script{Results: []sdbus.JobResult{""}, Result: sdbus.JobDone},
			&fakebus.ScriptConflict{Unit: "x.service", Rule: rule("result"), Result: sdbus.JobDone,
				Outcome: fakebus.OutcomeUnitFails, Command: `ExecStart=/bin/sh -c "exit 3"`, ServiceType: "simple"}},
		{"failing pre before an unknown command", "[Service]\nExecStartPre=/usr/bin/check\nExecStartPre=/bin/false\nExecStart=/usr/bin/app\n",
			fakebus.Script{Result: sdbus.JobSkipped},
			&fakebus.ScriptConflict{Unit: "x.service", Rule: rule("result"), Result: sdbus.JobSkipped,
				Outcome: fakebus.OutcomeFails, Command: "ExecStartPre=/bin/false", ServiceType: "simple"}},
		{"failing post", "[Service]\nType=oneshot\nExecStart=/bin/true\nExecStartPost=/bin/false\n",
			fakebus.Script{Result: sdbus.JobDone},
			&fakebus.ScriptConflict{Unit: "x.service", Rule: rule("result"), Result: sdbus.JobDone,
				Outcome: fakebus.OutcomeFails, Command: "ExecStartPost=/bin/false", ServiceType: "oneshot"}},
		{"ignored failures succeed", "[Service]\nType=oneshot\nExecStartPre=-/bin/false\nExecStart=/bin/true\nExecStartPost=-/bin/false\n",
			fakebus.Script{Result: sdbus.JobFailed},
			&fakebus.ScriptConflict{Unit: "x.service", Rule: rule("result"), Result: sdbus.JobFailed,
				Outcome: fakebus.OutcomeSucceeds, Command: "ExecStart=/bin/true", ServiceType: "oneshot"}},

		{"simple false scripted failed", "[Service]\nExecStart=/bin/false\n", fakebus.Script{Result: sdbus.JobFailed}, nil},
		{"unknown command scripted failed", "[Service]\nType=oneshot\nExecStart=/usr/bin/app\n", fakebus.Script{Result: sdbus.JobFailed}, nil},
		{"sleep scripted failed", "[Service]\nExecStart=/bin/sleep 400\n", fakebus.Script{Results: []sdbus.JobResult{sdbus.JobFailed, sdbus.JobDone}}, nil},
		{"oneshot sleep scripted timeout", "[Service]\nType=oneshot\nExecStart=/bin/sleep 5\n", fakebus.Script{Result: sdbus.JobTimeout}, nil},
		{"unknown pre, true scripted failed", "[Service]\nType=oneshot\nExecStartPre=/usr/bin/check\nExecStart=/bin/true\n", fakebus.Script{Result: sdbus.JobFailed}, nil},
		{"canceled is about the job, not its commands", "[Service]\nType=oneshot\nExecStart=/bin/true\n", fakebus.Script{Result: sdbus.JobCanceled}, nil},
		{"delays and faults only", "[Service]\nType=oneshot\nExecStart=/bin/false\n", fakebus.Script{Faults: fakebus.FaultDuplicateJobRemoved}, nil},
		{"a reload may take the step", "[Service]\nExecStart=/bin/true\nExecReload=/bin/false\n", fakebus.Script{Result: sdbus.JobFailed}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := fakebus.New(t)
			writeUnit(t, s, "x.service", tc.file)
			err := s.Script("x.*", tc.script)
			var got *fakebus.ScriptConflict
			if err != nil && !errors.As(err, &got) {
				t.Fatalf("Script: %v, want a *ScriptConflict or nil", err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Fatalf("Script's conflict (-want +got):\n%s", diff)
			}
			if got == nil {
				return
			}
			for _, s := range []string{`unit x.service`, `pattern "x.*"`, got.Rule.Step + " " + string(got.Result), got.Command} {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not name %q", err, s)
				}
			}
			// Nothing was installed: the unit's commands decide.
			ctx := ctxFor(t)
			c := s.Conn(t)
			want := sdbus.JobDone
			if got.Outcome == fakebus.OutcomeFails {
				want = sdbus.JobFailed
			}
			j, err := c.StartUnit(ctx, "x.service", sdbus.ModeReplace)
			if r := runJob(ctx, t, j, err); r != want {
				t.Errorf("start: %s, want %s (no script)", r, want)
			}
		})
	}
}

// TestScriptConflictUnitKinds: the units Script can see are checked, by
// primary name; units without commands never conflict.
func TestScriptConflictUnitKinds(t *testing.T) {
	oneshotFalse := []sdbus.Property{sdbus.PropType(sdbus.ServiceOneshot), sdbus.PropExecStart([]string{"/bin/false"}, false)}
	s := fakebus.New(t, fakebus.WithUnitFile(fakebus.UnitFile{Name: "vendor.service", Properties: oneshotFalse}))
	for _, tc := range []struct {
		pattern string
		wantErr bool
	}{
		{"vendor.service", true}, // WithUnitFile
		{"v*", true},
		{"*.slice", false}, // -.slice and friends: no commands
		{"other.service", false},
	} {
		err := s.Script(tc.pattern, fakebus.Script{Result: sdbus.JobDone})
		var c *fakebus.ScriptConflict
		if got := errors.As(err, &c); got != tc.wantErr {
			t.Errorf("Script(%q): %v, want a conflict: %v", tc.pattern, err, tc.wantErr)
		}
	}
	// A rule the fake accepted is checked against unit files added later.
	if err := s.Script("late.service", fakebus.Script{Results: []sdbus.JobResult{sdbus.JobFailed}}); err != nil {
		t.Fatal(err)
	}
	err := s.AddUnitFile(fakebus.UnitFile{Name: "late.service", Properties: []sdbus.Property{
		sdbus.PropType(sdbus.ServiceOneshot), sdbus.PropExecStart([]string{"/bin/true"}, false)}})
	want := &fakebus.ScriptConflict{Unit: "late.service", Rule: fakebus.Rule{Index: 2, Pattern: "late.service", Step: "results[0]"},
		Result: sdbus.JobFailed, Outcome: fakebus.OutcomeSucceeds, Command: "ExecStart=/bin/true", ServiceType: "oneshot"}
	var got *fakebus.ScriptConflict
	if !errors.As(err, &got) {
		t.Fatalf("AddUnitFile: %v, want a *ScriptConflict", err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("AddUnitFile's conflict (-want +got):\n%s", diff)
	}
	if err := s.AddUnitFile(fakebus.UnitFile{Name: "late.service", Properties: oneshotFalse}); err != nil {
		t.Errorf("AddUnitFile agreeing with the rule: %v", err)
	}
}

// notes collects the Notes of a Server.
type notes struct {
	mu  sync.Mutex // guards all
	all []fakebus.Note
}

func (n *notes) add(x fakebus.Note) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.all = append(n.all, x)
}

func (n *notes) of(kind fakebus.NoteKind) []fakebus.Note {
	n.mu.Lock()
	defer n.mu.Unlock()
	var out []fakebus.Note
	for _, x := range n.all {
		if x.Kind == kind {
			out = append(out, x)
		}
	}
	return out
}

// TestScriptConflictAtJobTime: a transient unit is checked as its job
// runs: the script wins, the conflict is recorded and noted.
func TestScriptConflictAtJobTime(t *testing.T) {
	var n notes
	s, err := fakebus.Start(fakebus.WithNotes(n.add))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close() // not New: its cleanup would fail the test on the conflict
	ctx := ctxFor(t)
	c := s.Conn(t)
	if err := s.Script("t-*.service", fakebus.Script{Results: []sdbus.JobResult{sdbus.JobFailed, sdbus.JobDone}}); err != nil {
		t.Fatal(err)
	}
	props := []sdbus.Property{sdbus.PropType(sdbus.ServiceOneshot), sdbus.PropExecStart([]string{"/bin/true"}, false)}
	j, err := c.StartTransientUnit(ctx, "t-1.service", sdbus.ModeReplace, props)
	if r := runJob(ctx, t, j, err); r != sdbus.JobFailed {
		t.Errorf("first start: %s, want failed (the script wins)", r)
	}
	if err := c.ResetFailedUnit(ctx, "t-1.service"); err != nil {
		t.Fatal(err)
	}
	j2, err := c.StartTransientUnit(ctx, "t-1.service", sdbus.ModeReplace, props)
	if r := runJob(ctx, t, j2, err); r != sdbus.JobDone {
		t.Errorf("second start: %s, want done", r)
	}
	want := []fakebus.ScriptConflict{{Unit: "t-1.service", Rule: fakebus.Rule{Index: 0, Pattern: "t-*.service", Step: "results[0]"},
		Job: j.ID(), JobType: "start", Result: sdbus.JobFailed, Outcome: fakebus.OutcomeSucceeds, Command: "ExecStart=/bin/true", ServiceType: "oneshot"}}
	if diff := cmp.Diff(want, s.ScriptConflicts()); diff != "" {
		t.Errorf("ScriptConflicts (-want +got):\n%s", diff)
	}
	var noted []fakebus.ScriptConflict
	for _, x := range n.of(fakebus.NoteConflict) {
		noted = append(noted, *x.Conflict)
	}
	if diff := cmp.Diff(want, noted); diff != "" {
		t.Errorf("conflict notes (-want +got):\n%s", diff)
	}
	if got := want[0].Text(); !strings.Contains(got, "start job") || !strings.Contains(got, "ExecStart=/bin/true") {
		t.Errorf("Text() = %q", got)
	}
}

// TestNotes: the notes of the script rule that matched each job, and of
// the settings the fake keeps without acting on them, wherever they come
// from: StartTransientUnit, SetUnitProperties, a unit file on disk (with
// the lines it did not use) and AddUnitFile.
func TestNotes(t *testing.T) {
	var n notes
	s := fakebus.New(t, fakebus.WithNotes(n.add), fakebus.WithUnitFile(fakebus.UnitFile{Name: "vendor.service", Properties: []sdbus.Property{
		sdbus.PropExecStart([]string{"/usr/bin/vendor"}, false), sdbus.PropDescription("v"), sdbus.Property{Name: "Nice", Value: dbus.MakeVariant(int32(5))},
	}}))
	ctx := ctxFor(t)
	c := s.Conn(t)
	if err := s.Script("x*", fakebus.Script{Results: []sdbus.JobResult{sdbus.JobFailed, ""}, Delay: 10 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	writeUnit(t, s, "web.service", "[Unit]\nDescription=web\nAfter=network.target\nX-Mine=1\n[Service]\nExecStart=/usr/bin/web\nUser=www\nType=bogus\n[Install]\nWantedBy=multi-user.target\nAlso=x.service\n")

	var ids []uint32
	for _, want := range []sdbus.JobResult{sdbus.JobFailed, sdbus.JobDone} {
		j, err := c.StartTransientUnit(ctx, "x.slice", sdbus.ModeReplace, []sdbus.Property{sdbus.PropMemoryMax(1 << 20), sdbus.PropDescription("x")})
		if r := runJob(ctx, t, j, err); r != want {
			t.Errorf("x.slice: %s, want %s", r, want)
		}
		ids = append(ids, j.ID())
		if err := c.ResetFailedUnit(ctx, "x.slice"); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.SetUnitProperties(ctx, "-.mount", true, sdbus.PropMemoryMax(1<<30)); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"web.service", "vendor.service"} {
		j, err := c.StartUnit(ctx, name, sdbus.ModeReplace)
		runJob(ctx, t, j, err)
	}

	var scripts []fakebus.Note
	for _, x := range n.of(fakebus.NoteScript) {
		if x.JobType == "start" {
			scripts = append(scripts, x)
		}
	}
	rule := func(step string) fakebus.Rule { return fakebus.Rule{Index: 0, Pattern: "x*", Step: step} }
	sc := fakebus.Script{Delay: 10 * time.Millisecond}
	wantScripts := []fakebus.Note{
		{Kind: fakebus.NoteScript, Unit: "x.slice", Job: ids[0], JobType: "start", Rule: rule("results[0]"), Result: sdbus.JobFailed,
			Script: fakebus.Script{Result: sdbus.JobFailed, Delay: sc.Delay}},
		{Kind: fakebus.NoteScript, Unit: "x.slice", Job: ids[1], JobType: "start", Rule: rule(""), Script: sc},
	}
	if diff := cmp.Diff(wantScripts, scripts); diff != "" {
		t.Errorf("script notes of the start jobs (-want +got):\n%s", diff)
	}
	wantSettings := []fakebus.Note{
		{Kind: fakebus.NoteSettings, Unit: "x.slice", From: "StartTransientUnit", Stored: []string{"MemoryMax"}},
		{Kind: fakebus.NoteSettings, Unit: "x.slice", From: "StartTransientUnit", Stored: []string{"MemoryMax"}},
		{Kind: fakebus.NoteSettings, Unit: "-.mount", From: "SetUnitProperties", Stored: []string{"MemoryMax"}},
		{Kind: fakebus.NoteSettings, Unit: "web.service", From: filepath.Join(s.UnitDir(), "web.service"), Stored: []string{"After"},
			Ignored: []string{"Unit.X-Mine", "Service.Type"}},
		{Kind: fakebus.NoteSettings, Unit: "vendor.service", From: "AddUnitFile", Stored: []string{"Nice"}},
	}
	if diff := cmp.Diff(wantSettings, n.of(fakebus.NoteSettings)); diff != "" {
		t.Errorf("settings notes (-want +got):\n%s", diff)
	}
}
