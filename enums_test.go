package sdbus_test

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/sdbus-go/sdbus"
)

// TestEnumsPrintTheirNames walks every exported constant of the package
// whose type is an exported integer type (an enum or a flag set), and
// the zero value of each such type, and checks that it prints a name,
// never a bare number or "Type(n)". String-based enums print their
// value. A new integer enum must be added to stringers.
func TestEnumsPrintTheirNames(t *testing.T) {
	stringers := map[string]func(int64) string{
		"ExistsPolicy": func(n int64) string { return sdbus.ExistsPolicy(n).String() },
		"Outcome":      func(n int64) string { return sdbus.Outcome(n).String() },
		"ExecCode":     func(n int64) string { return sdbus.ExecCode(n).String() },
		"UnitFileFlag": func(n int64) string { return sdbus.UnitFileFlag(n).String() },
	}
	values := enumValues(t)
	if len(values) == 0 {
		t.Fatal("no integer enums found: the walk is broken")
	}
	number := regexp.MustCompile(`^[-0-9]*$|\(-?[0-9]+\)$`)
	var names []string
	for name := range values {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		str, ok := stringers[name]
		if !ok {
			t.Errorf("%s is an integer enum without an entry here: give it a String method and add it", name)
			continue
		}
		for _, v := range append([]int64{0}, values[name]...) {
			if s := str(v); number.MatchString(s) {
				t.Errorf("%s(%d) prints %q, not a name", name, v, s)
			}
		}
	}
}

// enumValues type-checks the package's source and returns, for each
// exported named integer type, the values of its exported constants.
func enumValues(t *testing.T) map[string][]int64 {
	t.Helper()
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var parsed []*ast.File
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		af, err := parser.ParseFile(fset, f, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		parsed = append(parsed, af)
	}
	// Only the package's own declarations matter: imports are left
	// unresolved (their errors ignored) and bodies unchecked, which keeps
	// this fast.
	conf := types.Config{
		Importer:         noImports{},
		IgnoreFuncBodies: true,
		Error:            func(error) {},
	}
	pkg, _ := conf.Check("github.com/sdbus-go/sdbus", fset, parsed, nil)
	out := map[string][]int64{}
	for _, name := range pkg.Scope().Names() {
		c, ok := pkg.Scope().Lookup(name).(*types.Const)
		if !ok || !c.Exported() {
			continue
		}
		named, ok := c.Type().(*types.Named)
		if !ok || !named.Obj().Exported() || named.Obj().Pkg() != pkg {
			continue
		}
		basic, ok := named.Underlying().(*types.Basic)
		if !ok || basic.Info()&types.IsInteger == 0 {
			continue
		}
		v, ok := constantInt(c)
		if ok {
			out[named.Obj().Name()] = append(out[named.Obj().Name()], v)
		}
	}
	return out
}

func constantInt(c *types.Const) (int64, bool) {
	return constant.Int64Val(c.Val())
}

type noImports struct{}

func (noImports) Import(path string) (*types.Package, error) {
	return nil, fmt.Errorf("%s not imported", path)
}
