package main

import (
	"context"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/sdbus-go/sdbus/fakebus"
)

func TestProgramVersion(t *testing.T) {
	built := func(v string) *debug.BuildInfo {
		return &debug.BuildInfo{Main: debug.Module{Path: "github.com/sdbus-go/sdbus", Version: v}}
	}
	tests := []struct {
		name   string
		linked string
		info   *debug.BuildInfo
		want   string
	}{
		{"linked", "v0.0.0-20261205013229-4924910abcde", built("(devel)"), "v0.0.0-20261205013229-4924910abcde"},
		{"linked over the module's", "v1.2.0+dirty", built("v1.1.0"), "v1.2.0+dirty"},
		{"go install at a tag", "", built("v1.2.0"), "v1.2.0"},
		{"go install at a commit", "", built("v0.0.0-20261205013229-4924910abcde"), "v0.0.0-20261205013229-4924910abcde"},
		{"a clone", "", built("(devel)"), "(devel)"},
		{"no module version", "", built(""), "(devel)"},
		{"no build information", "", nil, "(devel)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, programVersion(tt.linked, tt.info)); diff != "" {
				t.Errorf("programVersion(%q, %v) (-want +got):\n%s", tt.linked, tt.info, diff)
			}
		})
	}
}

// TestHelpVersion checks the version line of -h: the program's own
// version, and with it linked as make dist links it (scripts/dist), that
// one, while --version stays the systemd release modelled.
func TestHelpVersion(t *testing.T) {
	t.Run("in process", func(t *testing.T) {
		var stdout, stderr strings.Builder
		if code := realMain(context.Background(), []string{"-h"}, &stdout, &stderr); code != 0 {
			t.Fatalf("exit %d, stderr %q", code, stderr.String())
		}
		info, _ := debug.ReadBuildInfo()
		want := "This is fakesystemd " + programVersion(buildVersion, info) + ", of github.com/sdbus-go/sdbus."
		if diff := cmp.Diff(want, lastLine(stdout.String())); diff != "" {
			t.Errorf("last line of -h (-want +got):\n%s", diff)
		}
	})
	t.Run("linked", func(t *testing.T) {
		goTool, err := exec.LookPath("go")
		if err != nil {
			t.Skipf("the go command is needed to build fakesystemd: %v", err)
		}
		const version = "v0.0.0-20261205013229-4924910abcde+dirty"
		bin := filepath.Join(t.TempDir(), "fakesystemd")
		args := []string{"build", "-o", bin, "-ldflags", "-X main.buildVersion=" + version}
		if raceEnabled {
			args = append(args, "-race")
		}
		if out, err := exec.Command(goTool, append(args, ".")...).CombinedOutput(); err != nil {
			t.Fatalf("go build: %v\n%s", err, out)
		}
		out, err := exec.Command(bin, "--help").Output()
		if err != nil {
			t.Fatalf("fakesystemd --help: %v", err)
		}
		if diff := cmp.Diff("This is fakesystemd "+version+", of github.com/sdbus-go/sdbus.", lastLine(string(out))); diff != "" {
			t.Errorf("last line of --help (-want +got):\n%s", diff)
		}
		if !strings.Contains(string(out), "(default "+fakebus.DefaultVersion+")") {
			t.Errorf("--help does not give --version's default, the release modelled:\n%s", out)
		}
	})
}

// lastLine returns the last line of s, without its newline.
func lastLine(s string) string {
	s = strings.TrimSuffix(s, "\n")
	return s[strings.LastIndex(s, "\n")+1:]
}
