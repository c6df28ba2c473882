package fakebus_test

import (
	"context"
	"testing"

	"github.com/godbus/dbus/v5"
	"github.com/google/go-cmp/cmp"
	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus"
)

// mainRun is what a service shows of its main process's end.
type mainRun struct {
	Active, Sub, Result string
	MainPID             uint32
	// Code and Status are ExecMainCode and ExecMainStatus, Ran whether
	// ExecMainPID and ExecMainExitTimestamp are set; RecordCode and
	// RecordStatus are ExecStart='s record of its first command.
	Code, Status             int32
	Ran                      bool
	RecordCode, RecordStatus int32
}

// readMainRun reads unit's states and main process properties.
func readMainRun(t *testing.T, r *raw, unit string) mainRun {
	t.Helper()
	obj := r.Object(systemd1, sdbus.UnitPath(unit))
	get := func(iface, name string) any {
		t.Helper()
		v, err := obj.GetProperty(iface + "." + name)
		if err != nil {
			t.Fatalf("%s of %s: %v", name, unit, err)
		}
		return v.Value()
	}
	const svc = "org.freedesktop.systemd1.Service"
	var got mainRun
	got.Active = get("org.freedesktop.systemd1.Unit", "ActiveState").(string)
	got.Sub = get("org.freedesktop.systemd1.Unit", "SubState").(string)
	got.Result = get(svc, "Result").(string)
	got.MainPID = get(svc, "MainPID").(uint32)
	got.Code = get(svc, "ExecMainCode").(int32)
	got.Status = get(svc, "ExecMainStatus").(int32)
	got.Ran = get(svc, "ExecMainPID").(uint32) != 0 && get(svc, "ExecMainExitTimestamp").(uint64) != 0
	v, err := obj.GetProperty(svc + ".ExecStart")
	if err != nil {
		t.Fatal(err)
	}
	var rec []struct {
		Path                                 string
		Argv                                 []string
		IgnoreFailure                        bool
		StartRT, StartMono, ExitRT, ExitMono uint64
		PID                                  uint32
		Code, Status                         int32
	}
	if err := dbus.Store([]any{v.Value()}, &rec); err != nil || len(rec) == 0 {
		t.Fatalf("ExecStart of %s: %v %v", unit, v, err)
	}
	got.RecordCode, got.RecordStatus = rec[0].Code, rec[0].Status
	return got
}

// TestScriptExitStatus: a scripted failure with an exit status ends the
// service's main process that way (ExecMainCode, ExecMainStatus and
// ExecStart='s record), as systemd shows a service whose main process
// exited 3 or was killed: failed/failed, Result as scripted, MainPID 0.
// Without one, a running main process ends as the fake ends it for the
// unit result, and a service that ran none shows none.
func TestScriptExitStatus(t *testing.T) {
	forking := app("app.service")
	forking.Properties = append(forking.Properties, sdbus.PropType(sdbus.ServiceForking))
	oneshot := app("app.service")
	oneshot.Properties = append(oneshot.Properties, sdbus.PropType(sdbus.ServiceOneshot))
	for _, tt := range []struct {
		name    string
		file    fakebus.UnitFile
		running bool // started before the script: the job is a restart
		script  fakebus.Script
		job     sdbus.JobResult
		want    mainRun
	}{
		{"exit-code", app("app.service"), false, fakebus.Script{Result: sdbus.JobFailed, ExitStatus: 3},
			sdbus.JobFailed, mainRun{"failed", "failed", "exit-code", 0, 1, 3, true, 1, 3}},
		{"oneshot exit-code", oneshot, false, fakebus.Script{Result: sdbus.JobFailed, UnitResult: "exit-code", ExitStatus: 255},
			sdbus.JobFailed, mainRun{"failed", "failed", "exit-code", 0, 1, 255, true, 1, 255}},
		{"signal", app("app.service"), false, fakebus.Script{Result: sdbus.JobFailed, UnitResult: "signal", ExitStatus: 9},
			sdbus.JobFailed, mainRun{"failed", "failed", "signal", 0, 2, 9, true, 2, 9}},
		{"core-dump", app("app.service"), false, fakebus.Script{Results: []sdbus.JobResult{sdbus.JobFailed}, UnitResult: "core-dump", ExitStatus: 11},
			sdbus.JobFailed, mainRun{"failed", "failed", "core-dump", 0, 3, 11, true, 3, 11}},
		{"timeout job, signal", app("app.service"), false, fakebus.Script{Result: sdbus.JobTimeout, UnitResult: "signal", ExitStatus: 6},
			sdbus.JobTimeout, mainRun{"failed", "failed", "signal", 0, 2, 6, true, 2, 6}},
		{"no exit status, never ran", app("app.service"), false, fakebus.Script{Result: sdbus.JobFailed},
			sdbus.JobFailed, mainRun{"failed", "failed", "exit-code", 0, 0, 0, false, 0, 0}},
		{"restart of a running service", app("app.service"), true, fakebus.Script{Result: sdbus.JobFailed, ExitStatus: 42},
			sdbus.JobFailed, mainRun{"failed", "failed", "exit-code", 0, 1, 42, true, 1, 42}},
		{"restart, no exit status", app("app.service"), true, fakebus.Script{Result: sdbus.JobFailed},
			sdbus.JobFailed, mainRun{"failed", "failed", "exit-code", 0, 1, 1, true, 1, 1}},
		{"restart, timeout", app("app.service"), true, fakebus.Script{Result: sdbus.JobTimeout},
			sdbus.JobTimeout, mainRun{"failed", "failed", "timeout", 0, 2, 15, true, 2, 15}},
		// A forking service's start process is its control process: its
		// record shows how it ended, ExecMain* do not (startMainLocked).
		{"forking", forking, false, fakebus.Script{Result: sdbus.JobFailed, ExitStatus: 3},
			sdbus.JobFailed, mainRun{"failed", "failed", "exit-code", 0, 0, 0, false, 1, 3}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := fakebus.New(t, fakebus.WithUnitFile(tt.file))
			conn := s.Conn(t)
			ctx := context.Background()
			if tt.running {
				if res := startResult(t, conn, "app.service"); res != sdbus.JobDone {
					t.Fatalf("first start: %s", res)
				}
			}
			if err := s.Script("app.service", tt.script); err != nil {
				t.Fatal(err)
			}
			j, err := conn.RestartUnit(ctx, "app.service", sdbus.ModeReplace)
			if err != nil {
				t.Fatal(err)
			}
			if res, _ := j.Wait(ctx); res != tt.job {
				t.Errorf("job result %s, want %s", res, tt.job)
			}
			if diff := cmp.Diff(tt.want, readMainRun(t, rawBus(t, s), "app.service")); diff != "" {
				t.Errorf("service (-want +got):\n%s", diff)
			}
		})
	}
}

// TestScriptExitStatusRefused: an exit status needs a failure whose unit
// result takes one, and one that fits it; Server.Script and
// ParseScriptFile refuse the others alike.
func TestScriptExitStatusRefused(t *testing.T) {
	for _, tt := range []struct {
		name   string
		script fakebus.Script
		doc    string // the same rule in a script file
		want   string // ParseScriptFile's error; Script's ends with it
	}{
		{"done", fakebus.Script{Result: sdbus.JobDone, ExitStatus: 3},
			`{"pattern": "a.service", "result": "done", "exit_status": 3}`,
			"an exit status needs a failed or timeout result"},
		{"no result", fakebus.Script{ExitStatus: 3},
			`{"pattern": "a.service", "exit_status": 3}`,
			"an exit status needs a failed or timeout result"},
		{"exit-code above 255", fakebus.Script{Result: sdbus.JobFailed, ExitStatus: 256},
			`{"pattern": "a.service", "result": "failed", "exit_status": 256}`,
			"exit status 256 with unit result exit-code: want 1 to 255"},
		{"negative", fakebus.Script{Result: sdbus.JobFailed, ExitStatus: -1},
			`{"pattern": "a.service", "result": "failed", "exit_status": -1}`,
			"exit status -1 with unit result exit-code: want 1 to 255"},
		{"timeout's default unit result", fakebus.Script{Results: []sdbus.JobResult{sdbus.JobFailed, sdbus.JobTimeout}, ExitStatus: 3},
			`{"pattern": "a.service", "results": ["failed", "timeout"], "exit_status": 3}`,
			"exit status 3 with unit result timeout: only exit-code, signal and core-dump take one (the unit result of a timeout job; give one)"},
		{"oom-kill", fakebus.Script{Result: sdbus.JobFailed, UnitResult: "oom-kill", ExitStatus: 9},
			`{"pattern": "a.service", "result": "failed", "unit_result": "oom-kill", "exit_status": 9}`,
			"exit status 9 with unit result oom-kill: only exit-code, signal and core-dump take one"},
		{"SIGTERM", fakebus.Script{Result: sdbus.JobFailed, UnitResult: "signal", ExitStatus: 15},
			`{"pattern": "a.service", "result": "failed", "unit_result": "signal", "exit_status": 15}`,
			"exit status 15 with unit result signal: SIGTERM ends a service's main process cleanly unless it is Type=oneshot"},
		{"SIGCHLD", fakebus.Script{Result: sdbus.JobFailed, UnitResult: "signal", ExitStatus: 17},
			`{"pattern": "a.service", "result": "failed", "unit_result": "signal", "exit_status": 17}`,
			"exit status 17 with unit result signal: SIGCHLD does not end a process"},
		{"glibc's signal", fakebus.Script{Result: sdbus.JobFailed, UnitResult: "signal", ExitStatus: 33},
			`{"pattern": "a.service", "result": "failed", "unit_result": "signal", "exit_status": 33}`,
			"exit status 33 with unit result signal: want a signal number, 1 to 31 or 34 to 64"},
		{"core-dump without core", fakebus.Script{Result: sdbus.JobFailed, UnitResult: "core-dump", ExitStatus: 9},
			`{"pattern": "a.service", "result": "failed", "unit_result": "core-dump", "exit_status": 9}`,
			"exit status 9 with unit result core-dump: SIGKILL dumps no core"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := fakebus.New(t)
			err := s.Script("a.service", tt.script)
			if got, want := errText(err), `fakebus: script "a.service": `+tt.want; got != want {
				t.Errorf("Script: %s\nwant %s", got, want)
			}
			_, err = fakebus.ParseScriptFile([]byte(`{"scripts": [` + tt.doc + `]}`))
			if got, want := errText(err), "scripts[0].exit_status: "+tt.want; got != want {
				t.Errorf("ParseScriptFile: %s\nwant %s", got, want)
			}
		})
	}
}

func errText(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}
