package fakebus

import (
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSettingsDocumented: docs/fakebus.md lists the stored-only settings
// (the text block of its "Settings" section), exactly those of
// settableProps the fake does not model, and every setting modelled is
// one the fake accepts.
func TestSettingsDocumented(t *testing.T) {
	doc, err := os.ReadFile("../docs/fakebus.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(doc), "\n## Settings\n")
	if !ok {
		t.Fatal(`docs/fakebus.md has no "## Settings" section`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	_, block, ok := strings.Cut(section, "\n```text\n")
	if !ok {
		t.Fatal(`docs/fakebus.md's "Settings" has no text block`)
	}
	block, _, ok = strings.Cut(block, "\n```\n")
	if !ok {
		t.Fatal(`docs/fakebus.md's "Settings" text block is not closed`)
	}
	listed := strings.Fields(block)
	var stored []string
	for name := range settableProps {
		if !modelled[name] {
			stored = append(stored, name)
		}
	}
	sort.Strings(stored)
	if diff := cmp.Diff(stored, listed); diff != "" {
		t.Errorf("stored-only settings in docs/fakebus.md (-want +got):\n%s", diff)
	}
	for name := range modelled {
		if _, ok := settableProps[name]; !ok {
			t.Errorf("modelled setting %s is not one the fake accepts", name)
		}
	}
}
