package fakebus

import (
	"fmt"
	"go/ast"
	"go/build"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestModelNeedsNoSurface keeps the layering of the package: the D-Bus
// surface (dbus_*.go) decodes calls, calls the model and replies; the
// model (every other file) needs nothing of it but the signals
// (dbus_signals.go). server.go, which wires the bus to the manager, may
// use both. Errors are the model's (errors.go).
func TestModelNeedsNoSurface(t *testing.T) {
	pkg, err := build.Default.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, name := range pkg.GoFiles {
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}}
	conf := types.Config{Importer: importer.ForCompiler(fset, "source", nil)}
	self, err := conf.Check(pkg.ImportPath, fset, files, info)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for id, obj := range info.Uses {
		if obj.Pkg() != self || obj.Parent() != nil && obj.Parent() != self.Scope() {
			continue // another package's, or a local name (methods and fields have no parent)
		}
		from := filepath.Base(fset.Position(id.Pos()).Filename)
		to := filepath.Base(fset.Position(obj.Pos()).Filename)
		if surface(from) || from == "server.go" || !surface(to) || to == "dbus_signals.go" {
			continue
		}
		got[fmt.Sprintf("%s uses %s from %s", from, obj.Name(), to)] = true
	}
	var uses []string
	for u := range got {
		uses = append(uses, u)
	}
	sort.Strings(uses)
	if diff := cmp.Diff([]string(nil), uses); diff != "" {
		t.Errorf("model files using the D-Bus surface (-want +got):\n%s", diff)
	}
}

func surface(file string) bool { return strings.HasPrefix(file, "dbus_") || file == "dbus.go" }
