package fakebus

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSettingSyntax: the string checks of settable properties, as
// systemd's documentation_url_is_valid and cg_needs_escape answer them.
func TestSettingSyntax(t *testing.T) {
	for _, tc := range []struct {
		name  string
		check func(string) bool
		ok    []string
		bad   []string
	}{
		{"Documentation", validDocumentationURL,
			[]string{"https://example.com/doc", "http://x", "file:/usr/share/doc", "man:systemd(1)", "info:foo"},
			[]string{"", "bogus", "http://", "https://", "file:/", "man:", "info:", "ftp://x", "man:süß", "HTTP://x"}},
		{"DelegateSubgroup", func(s string) bool { return !cgNeedsEscape(s) },
			[]string{"sub", "payload", "a.b", "cpux.y", strings.Repeat("a", 255)},
			[]string{"", ".", "..", "a/b", "_x", ".hidden", "tasks", "release_agent", "notify_on_release",
				"cgroup.procs", "memory.max", "cpu.weight", "bpf-firewall.x", strings.Repeat("a", 256)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, s := range tc.ok {
				if !tc.check(s) {
					t.Errorf("%q refused, want taken", s)
				}
			}
			for _, s := range tc.bad {
				if tc.check(s) {
					t.Errorf("%q taken, want refused", s)
				}
			}
		})
	}
}

// TestControllerMask: DelegateControllers= and DisableControllers= add to
// the mask in systemd's order; an empty list empties it.
func TestControllerMask(t *testing.T) {
	for _, tc := range []struct {
		name       string
		old, given []string
		want       []string
	}{
		{"first", nil, []string{"memory", "cpu"}, []string{"cpu", "memory"}},
		{"added", []string{"memory"}, []string{"io", "pids"}, []string{"io", "memory", "pids"}},
		{"again", []string{"cpu"}, []string{"cpu"}, []string{"cpu"}},
		{"emptied", []string{"cpu", "io"}, []string{}, []string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, controllerMask(tc.old, tc.given)); diff != "" {
				t.Errorf("controllerMask(%q, %q) (-want +got):\n%s", tc.old, tc.given, diff)
			}
		})
	}
}
