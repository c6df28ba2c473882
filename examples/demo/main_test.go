package main

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// The transcript shows each guarantee; numbers (pids, job ids, times)
// vary and are masked.
func TestDemoTranscript(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), nil, &out); err != nil {
		t.Fatal(err)
	}
	got := regexp.MustCompile(`\d+`).ReplaceAllString(out.String(), "N")
	for _, want := range []string{
		"sdbus demo on an in-process fakebus: systemd N.N-N~debNuN (major N)",
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
			t.Errorf("transcript lacks %q:\n%s", want, got)
		}
	}
}
