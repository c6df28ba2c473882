package fakebus_test

import (
	"go/doc/comment"
	"go/parser"
	"go/token"
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// fileMapItem is a list item of the file map: "NAME.go: what it holds".
var fileMapItem = regexp.MustCompile(`^([A-Za-z0-9_]+\.go): \S`)

// TestFileMap: the package documentation's "File map" names every
// non-test Go file of this directory (not of its subdirectories) in a
// list item of its own, and no other.
func TestFileMap(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "doc.go", nil, parser.ParseComments|parser.PackageClauseOnly)
	if err != nil {
		t.Fatal(err)
	}
	if f.Doc == nil {
		t.Fatal("doc.go has no package documentation")
	}
	var p comment.Parser
	var named []string
	seen := map[string]bool{}
	inMap, found := false, false
	for _, b := range p.Parse(f.Doc.Text()).Content {
		if h, ok := b.(*comment.Heading); ok {
			inMap = plainText(h.Text) == "File map"
			found = found || inMap
			continue
		}
		list, ok := b.(*comment.List)
		if !inMap || !ok {
			continue
		}
		for _, item := range list.Items {
			var text string
			if len(item.Content) > 0 {
				if para, ok := item.Content[0].(*comment.Paragraph); ok {
					text = plainText(para.Text)
				}
			}
			m := fileMapItem.FindStringSubmatch(text)
			if m == nil {
				t.Errorf("file map item %q does not start with \"NAME.go: \" and a description", text)
				continue
			}
			if seen[m[1]] {
				t.Errorf("file map names %s twice", m[1])
			}
			seen[m[1]] = true
			named = append(named, m[1])
		}
	}
	if !found {
		t.Fatal(`doc.go has no "# File map" section`)
	}
	ents, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, e := range ents {
		if n := e.Name(); e.Type().IsRegular() && strings.HasSuffix(n, ".go") && !strings.HasSuffix(n, "_test.go") {
			files = append(files, n)
		}
	}
	if len(files) == 0 {
		t.Fatal("no Go files in the package directory")
	}
	sort.Strings(named)
	if diff := cmp.Diff(files, named); diff != "" {
		t.Errorf("doc.go's file map (-want the package's files +got the files it names):\n%s", diff)
	}
}

// plainText returns the text of a doc comment span, without its markup.
func plainText(texts []comment.Text) string {
	var b strings.Builder
	for _, t := range texts {
		switch t := t.(type) {
		case comment.Plain:
			b.WriteString(string(t))
		case comment.Italic:
			b.WriteString(string(t))
		case *comment.Link:
			b.WriteString(plainText(t.Text))
		case *comment.DocLink:
			b.WriteString(plainText(t.Text))
		}
	}
	return b.String()
}
