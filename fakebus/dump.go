package fakebus

import (
	"fmt"
	"path"
	"strings"
)

// The Manager's dumps (systemd-analyze dump): Dump and
// DumpUnitsMatchingPatterns answer text in the style of systemd's, whose
// content differs (the fake lists far fewer settings); the
// ByFileDescriptor variants answer the same text in a sealed memfd
// (dataFD), or, as systemd, not at all to a client that cannot take file
// descriptors.

// dumpLocked is Manager.Dump, or DumpUnitsMatchingPatterns with
// patterns: one block per loaded unit, in the style of systemd-analyze
// dump. With patterns (shell globs on unit names) only the blocks of the
// matching units, without the manager's header and jobs, as systemd.
func (m *manager) dumpLocked(patterns []string) string {
	var b strings.Builder
	if len(patterns) == 0 {
		fmt.Fprintf(&b, "Manager: systemd %s (fakebus)\n", m.version)
	}
	for _, u := range m.sortedUnitsLocked() {
		if len(patterns) > 0 && !matchAny(patterns, u.name) {
			continue
		}
		fmt.Fprintf(&b, "-> Unit %s:\n\tDescription: %s\n\tInstance: n/a\n\tUnit Load State: %s\n\tUnit Active State: %s\n\tState Change Timestamp: n/a\n",
			u.name, description(u), u.load, u.active)
		if u.kind == "service" || u.kind == "scope" || u.kind == "slice" {
			fmt.Fprintf(&b, "\tSlice: %s\n", strOr(u.slice(), "n/a"))
		}
		if u.job != nil {
			fmt.Fprintf(&b, "\t-> Job %d:\n\t\tAction: %s -> %s\n\t\tState: %s\n", u.job.id, u.name, u.job.typ, u.job.state)
		}
	}
	if len(patterns) == 0 && len(m.jobs) == 0 {
		b.WriteString("No jobs.\n")
	}
	return b.String()
}

// matchAny reports whether name matches one of the shell patterns; a
// malformed pattern matches nothing.
func matchAny(patterns []string, name string) bool {
	for _, p := range patterns {
		if ok, _ := path.Match(p, name); ok {
			return true
		}
	}
	return false
}
