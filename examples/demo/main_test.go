package main

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/sdbus-go/sdbus/fakebus"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// build compiles the program as a user does.
func build(t *testing.T) string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "demo")
	if out, err := exec.Command(goTool, "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// The transcript shows each guarantee, on the in-process fakebus (make
// demo) and on fakebus's bus socket named with -address; numbers (pids,
// job ids, times) vary and are masked.
func TestDemoTranscript(t *testing.T) {
	bin := build(t)
	s := fakebus.New(t)
	addr, err := s.Address()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args   []string
		target string
	}{
		{nil, "an in-process fakebus"},
		{[]string{"-address", addr}, addr},
	} {
		out, err := exec.Command(bin, tc.args...).CombinedOutput()
		if err != nil {
			t.Fatalf("%v: %v\n%s", tc.args, err, out)
		}
		got := regexp.MustCompile(`\d+`).ReplaceAllString(string(out), "N")
		for _, want := range []string{
			"sdbus demo on " + regexp.MustCompile(`\d+`).ReplaceAllString(tc.target, "N") + ": systemd N.N-N~debNuN (major N)",
			"Wait -> done",
			"Wait -> failed: sdbus: job N for sdbus-demo-N-fail.service: failed",
			"errors.Is(err, sdbus.ErrJobFailed) = true, JobError.Result = \"failed\"",
			"sdbus-demo-N-fail.service is now failed (failed)",
			"StartTransientUnit again -> errors.Is(err, sdbus.ErrUnitExists) = true",
			"ResetFailedUnit sdbus-demo-N-fail.service -> the name is free",
			"... and is collected at once: LoadState not-found",
			"the caller gives up after Nms (true) and never reads again",
			"meanwhile N other jobs started and stopped slices in",
			"ends the abandoned job: canceled (true)",
		} {
			if !strings.Contains(got, want) {
				t.Errorf("%v: transcript lacks %q:\n%s", tc.args, want, got)
			}
		}
	}
}
