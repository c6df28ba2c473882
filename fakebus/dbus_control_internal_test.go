package fakebus

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestControlIntrospectDocumented: docs/fakesystemd.md shows the control
// object's introspection XML as the fake answers it.
func TestControlIntrospectDocumented(t *testing.T) {
	data, err := os.ReadFile("../docs/fakesystemd.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	_, doc, ok := strings.Cut(doc, "\n## The control interface\n")
	if !ok {
		t.Fatal(`docs/fakesystemd.md has no "## The control interface" section`)
	}
	doc, _, _ = strings.Cut(doc, "\n## ")
	_, block, ok := strings.Cut(doc, "\n```xml\n")
	if !ok {
		t.Fatal(`docs/fakesystemd.md's "The control interface" has no xml block`)
	}
	block, _, ok = strings.Cut(block, "```\n")
	if !ok {
		t.Fatal(`docs/fakesystemd.md's control interface xml block is not closed`)
	}
	want, _ := controlIntrospect(controlPath)
	if diff := cmp.Diff(want, block); diff != "" {
		t.Errorf("docs/fakesystemd.md's control interface XML (-introspected +documented):\n%s", diff)
	}
}
