package fakebus

import (
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSettingsDocumented: the package documentation lists the stored-only
// settings ("# Settings"), exactly those of settableProps the fake does
// not model, and every setting modelled is one the fake accepts.
func TestSettingsDocumented(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(doc), "// # Settings\n")
	if !ok {
		t.Fatal(`doc.go has no "# Settings" section`)
	}
	section, _, _ = strings.Cut(section, "\n// #")
	var listed []string
	for _, line := range strings.Split(section, "\n") {
		if strings.HasPrefix(line, "//\t") {
			listed = append(listed, strings.Fields(strings.TrimPrefix(line, "//\t"))...)
		}
	}
	var stored []string
	for name := range settableProps {
		if !modelled[name] {
			stored = append(stored, name)
		}
	}
	sort.Strings(stored)
	if diff := cmp.Diff(stored, listed); diff != "" {
		t.Errorf("stored-only settings in doc.go (-want +got):\n%s", diff)
	}
	for name := range modelled {
		if _, ok := settableProps[name]; !ok {
			t.Errorf("modelled setting %s is not one the fake accepts", name)
		}
	}
}
