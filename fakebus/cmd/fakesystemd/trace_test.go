package main

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/google/go-cmp/cmp"
	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus"
)

func msg(typ dbus.Type, headers map[dbus.HeaderField]any, body ...any) *dbus.Message {
	m := &dbus.Message{Type: typ, Headers: map[dbus.HeaderField]dbus.Variant{}, Body: body}
	for f, v := range headers {
		m.Headers[f] = dbus.MakeVariant(v)
	}
	return m
}

func TestTraceLine(t *testing.T) {
	type prop struct {
		Name  string
		Value dbus.Variant
	}
	long := strings.Repeat("x", 400)
	tests := []struct {
		name string
		e    fakebus.Event
		want string
	}{
		{"call", fakebus.Event{In: true, Client: ":1.3", Serial: 7, Msg: msg(dbus.TypeMethodCall, map[dbus.HeaderField]any{
			dbus.FieldPath: dbus.ObjectPath("/org/freedesktop/systemd1"), dbus.FieldInterface: "org.freedesktop.systemd1.Manager",
			dbus.FieldMember: "StartTransientUnit", dbus.FieldDestination: "org.freedesktop.systemd1", dbus.FieldSender: ":1.3",
		}, "x.slice", "replace", []prop{{"Description", dbus.MakeVariant("d")}, {"PIDs", dbus.MakeVariant([]uint32{1, 2})}},
			[]any{})},
			`-> :1.3 call org.freedesktop.systemd1.Manager.StartTransientUnit /org/freedesktop/systemd1 serial=7 dest=org.freedesktop.systemd1 ("x.slice", "replace", [("Description", <"d">), ("PIDs", <[1, 2]>)], ())`},
		{"decoded structs", fakebus.Event{In: true, Client: ":1.3", Serial: 8, Msg: msg(dbus.TypeMethodCall, map[dbus.HeaderField]any{
			dbus.FieldPath: dbus.ObjectPath("/"), dbus.FieldMember: "M",
		}, [][]any{{"ExecStart", dbus.MakeVariant([][]any{{"/bin/true", []string{"/bin/true"}, false}})}})},
			`-> :1.3 call M / serial=8 ([("ExecStart", <[("/bin/true", ["/bin/true"], false)]>)])`},
		{"reply", fakebus.Event{Client: ":1.3", Serial: 2, Msg: msg(dbus.TypeMethodReply, map[dbus.HeaderField]any{
			dbus.FieldReplySerial: uint32(7), dbus.FieldSender: ":1.1", dbus.FieldDestination: ":1.3",
		}, dbus.ObjectPath("/org/freedesktop/systemd1/job/1"))},
			`<- :1.3 reply serial=2 reply_serial=7 sender=:1.1 ("/org/freedesktop/systemd1/job/1")`},
		{"error", fakebus.Event{Client: ":1.3", Serial: 3, Msg: msg(dbus.TypeError, map[dbus.HeaderField]any{
			dbus.FieldReplySerial: uint32(8), dbus.FieldErrorName: "org.freedesktop.systemd1.UnitExists", dbus.FieldSender: ":1.1",
		}, "Unit x.slice was\nalready loaded.")},
			`<- :1.3 error org.freedesktop.systemd1.UnitExists serial=3 reply_serial=8 sender=:1.1 ("Unit x.slice was\nalready loaded.")`},
		{"signal on the private socket", fakebus.Event{Serial: 4, Msg: msg(dbus.TypeSignal, map[dbus.HeaderField]any{
			dbus.FieldPath: dbus.ObjectPath("/org/freedesktop/systemd1"), dbus.FieldInterface: "org.freedesktop.systemd1.Manager",
			dbus.FieldMember: "JobRemoved", dbus.FieldSender: "org.freedesktop.systemd1",
		}, uint32(1), dbus.ObjectPath("/org/freedesktop/systemd1/job/1"), "x.slice", "done")},
			`<- - signal org.freedesktop.systemd1.Manager.JobRemoved /org/freedesktop/systemd1 serial=4 sender=org.freedesktop.systemd1 (1, "/org/freedesktop/systemd1/job/1", "x.slice", "done")`},
		{"maps sorted, values of every kind", fakebus.Event{Client: ":1.9", Serial: 5, Msg: msg(dbus.TypeMethodReply, map[dbus.HeaderField]any{
			dbus.FieldReplySerial: uint32(1),
		}, map[string]dbus.Variant{"b": dbus.MakeVariant(int32(-1)), "a": dbus.MakeVariant(1.5)}, true, byte(7),
			dbus.ParseSignatureMust("a{sv}"), []byte{1, 2}, nil)},
			`<- :1.9 reply serial=5 reply_serial=1 ({"a": <1.5>, "b": <-1>}, true, 7, "a{sv}", [1, 2], nil)`},
		{"long body cut", fakebus.Event{Client: ":1.9", Serial: 6, Msg: msg(dbus.TypeMethodReply, nil, long, []string{"a", "b"})},
			`<- :1.9 reply serial=6 ("` + long[:maxBody-2] + `...`},
		{"no body", fakebus.Event{In: true, Serial: 1, Msg: msg(dbus.TypeMethodCall, map[dbus.HeaderField]any{
			dbus.FieldPath: dbus.ObjectPath("/org/freedesktop/DBus"), dbus.FieldInterface: "org.freedesktop.DBus", dbus.FieldMember: "Hello",
			dbus.FieldDestination: "org.freedesktop.DBus",
		})},
			`-> - call org.freedesktop.DBus.Hello /org/freedesktop/DBus serial=1 dest=org.freedesktop.DBus ()`},
	}
	for _, tt := range tests {
		got := traceLine(tt.e)
		if diff := cmp.Diff(tt.want+"\n", got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
		if strings.Count(got, "\n") != 1 {
			t.Errorf("%s: not one line: %q", tt.name, got)
		}
	}
}

func TestFormatBodyCutsAtRune(t *testing.T) {
	s := formatBody([]any{strings.Repeat("é", 200)}, 10)
	if s != `("éééé...` {
		t.Errorf("got %q", s)
	}
}

// TestTracerConcurrent writes from many goroutines: lines must not mix.
func TestTracerConcurrent(t *testing.T) {
	var b lockedBuffer
	tr := &tracer{w: &b}
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 100; j++ {
				tr.event(fakebus.Event{Client: ":1.1", Msg: msg(dbus.TypeMethodReply, nil, strings.Repeat("y", 100))})
			}
		}()
	}
	wg.Wait()
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 800 {
		t.Fatalf("%d lines, want 800", len(lines))
	}
	for _, l := range lines {
		if !traceRE.MatchString(l) {
			t.Fatalf("mixed line %q", l)
		}
	}
}

func TestNoteLine(t *testing.T) {
	conflict := &fakebus.ScriptConflict{Unit: "t-1.service", Rule: fakebus.Rule{Index: 2, Pattern: "t-*", Step: "results[0]"},
		Job: 5, JobType: "start", Result: sdbus.JobFailed, Outcome: fakebus.OutcomeSucceeds,
		Command: `ExecStart=/bin/sh -c "exit 0"`, ServiceType: "oneshot"}
	tests := []struct {
		name string
		n    fakebus.Note
		want string
	}{
		{"script step", fakebus.Note{Kind: fakebus.NoteScript, Unit: "run-t1.scope", Job: 3, JobType: "start",
			Rule: fakebus.Rule{Index: 0, Pattern: "run-*.scope", Step: "results[1]"}, Result: sdbus.JobDone,
			Script: fakebus.Script{Result: sdbus.JobDone, Delay: 200 * time.Millisecond, ReplyDelay: time.Second,
				Faults: fakebus.FaultDuplicateJobRemoved | fakebus.FaultDropConnection}},
			`== script unit="run-t1.scope" job=3 job_type=start rule=scripts[0] pattern="run-*.scope" step=results[1] result=done delay=200ms reply_delay=1s faults=drop-connection,duplicate-job-removed`},
		{"script without a result", fakebus.Note{Kind: fakebus.NoteScript, Unit: "x.slice", Job: 9, JobType: "stop",
			Rule: fakebus.Rule{Index: 1, Pattern: "x.*"}},
			`== script unit="x.slice" job=9 job_type=stop rule=scripts[1] pattern="x.*" step=- result=-`},
		{"conflict", fakebus.Note{Kind: fakebus.NoteConflict, Unit: "t-1.service", Job: 5, JobType: "start", Rule: conflict.Rule,
			Result: sdbus.JobFailed, Conflict: conflict},
			`== conflict unit="t-1.service" job=5 job_type=start rule=scripts[2] pattern="t-*" step=results[0] result=failed outcome=succeeds command="ExecStart=/bin/sh -c \"exit 0\"" service_type=oneshot`},
		{"settings", fakebus.Note{Kind: fakebus.NoteSettings, Unit: "app.service", From: "/tmp/unit dir/app.service",
			Stored: []string{"MemoryMax", "User"}, Ignored: []string{"Service.Bogus", "Unit.Odd Key", "X-Vendor.A"}},
			`== settings unit="app.service" from="/tmp/unit dir/app.service" stored=MemoryMax,User ignored=Service.Bogus,"Unit.Odd Key",X-Vendor.A`},
		{"limit", fakebus.Note{Kind: fakebus.NoteLimit, Client: ":1.7", PID: 42, Limit: fakebus.LimitMaxTotalOutgoingBytes, Value: 134217800, Max: 134217728},
			"== limit client=:1.7 pid=42 limit=max_total_outgoing_bytes value=134217800 max=134217728"},
		{"limit before Hello", fakebus.Note{Kind: fakebus.NoteLimit, PID: 42, Limit: fakebus.LimitAuthTimeout, Value: 1e10, Max: 1e10},
			"== limit client=- pid=42 limit=auth_timeout value=10000000000 max=10000000000"},
		{"settings, none stored", fakebus.Note{Kind: fakebus.NoteSettings, Unit: "a b.service", From: "SetUnitProperties", Ignored: []string{"Service.X"}},
			`== settings unit="a b.service" from="SetUnitProperties" ignored=Service.X`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := noteLine(tt.n)
			if diff := cmp.Diff(tt.want+"\n", got); diff != "" {
				t.Errorf("noteLine (-want +got):\n%s", diff)
			}
			if !traceRE.MatchString(strings.TrimSuffix(got, "\n")) {
				t.Errorf("does not match traceRE: %q", got)
			}
		})
	}
}

// TestNotesWithoutTrace: without --trace only a conflict is written, as a
// warning naming the rule's path in the script file.
func TestNotesWithoutTrace(t *testing.T) {
	c := &fakebus.ScriptConflict{Unit: "t-1.service", Rule: fakebus.Rule{Index: 1, Pattern: "t-*", Step: "result"},
		Job: 7, JobType: "start", Result: sdbus.JobDone, Outcome: fakebus.OutcomeUnitFails,
		Command: "ExecStart=/bin/false", ServiceType: "simple"}
	var b lockedBuffer
	n := &notes{t: &tracer{w: &b}, script: "s.json"}
	n.note(fakebus.Note{Kind: fakebus.NoteScript, Unit: "t-1.service", Job: 7, JobType: "start", Rule: c.Rule, Result: sdbus.JobDone})
	n.note(fakebus.Note{Kind: fakebus.NoteSettings, Unit: "t-1.service", From: "StartTransientUnit", Stored: []string{"User"}})
	n.note(fakebus.Note{Kind: fakebus.NoteConflict, Unit: "t-1.service", Job: 7, JobType: "start", Rule: c.Rule, Result: sdbus.JobDone, Conflict: c})
	want := `fakesystemd: warning: s.json: scripts[1].result: "done" contradicts unit t-1.service: with ExecStart=/bin/false (Type=simple) its start job 7 is done, then the unit fails; the script wins` + "\n"
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("stderr (-want +got):\n%s", diff)
	}
}
