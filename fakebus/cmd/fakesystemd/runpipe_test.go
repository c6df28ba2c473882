package main

import (
	"os/exec"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRunSystemdRunPipe runs systemd-run --pipe inside fakesystemd run:
// its file descriptors reach the fake, and for true and false it prints
// and exits as on systemd 252 (measured in scripts/sandbox: "Running as
// unit: run-uN.service" on stderr, status 0 and 1); for a program the
// fake does not interpret it refuses the unit rather than pretend to run
// it.
func TestRunSystemdRunPipe(t *testing.T) {
	if _, err := exec.LookPath("systemd-run"); err != nil {
		t.Skip("no systemd-run")
	}
	skipWithoutNamespaces(t, nil)
	tests := []struct {
		name string
		cmd  []string
		want runResult
	}{
		{"true", []string{"true"}, runResult{code: 0, stderr: "Running as unit: run-u2.service\n"}},
		{"false", []string{"false"}, runResult{code: 1, stderr: "Running as unit: run-u2.service\n"}},
		{"quiet true", []string{"-q", "true"}, runResult{code: 0}},
		{"a program the fake does not run", []string{"/bin/echo", "hi"}, runResult{code: 1,
			stderr: "Failed to start transient service unit: fakebus runs no programs: standard input, output or error file descriptors (systemd-run --pipe) only go with commands it interprets (true, false, sleep N, sh -c 'exit N'), not /bin/echo hi\n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"run", "--", "systemd-run", "--pipe"}, tt.cmd...)
			r := runProgram(t, nil, args...)
			if diff := cmp.Diff(tt.want, r, cmp.AllowUnexported(runResult{})); diff != "" {
				t.Errorf("fakesystemd run -- systemd-run --pipe %q (-want +got):\n%s", tt.cmd, diff)
			}
		})
	}
}
