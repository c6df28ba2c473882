package fakebus

import (
	"go/ast"
	"go/parser"
	"go/token"
	"reflect"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// resetKeeps are the manager's fields Reset leaves as they are, and why.
var resetKeeps = map[string]string{
	"bus": "the bus and its clients stay", "release": "configuration", "cfg": "configuration",
	"dirs": "configuration (their temporary contents are emptied)", "cgroupRoot": "configuration",
	"started": "UserspaceTimestamp stays Start's", "clock": "the clock goes on",
	"defaultTasksMax": "read from the host at start", "rlimits": "read from the host at start",
	"timersRunning": "counts goroutines that outlive the reset", "watchers": "counts goroutines that outlive the reset",
	"waitMu": "the lock's queue", "tickets": "the lock's queue", "waiting": "the lock's queue",
	"queuedAt": "the lock's queue", "inputOf": "a connection's next message", "mu": "the lock",
	"lastJob":    "job IDs go on",
	"subscribed": "clients keep their subscriptions", "requested": "clients' sets of jobs, emptied as the jobs end",
	"reloads": "a count a reload's timer compares", "answer": "wiring", "closed": "Reset refuses a closed manager",
	"measured": "a cache of the release's data", "measuredFor": "a cache of the release's data",
	"declared": "a cache of the release's data",
}

// TestResetCoversManager: resetLocked sets every field of the manager
// but those resetKeeps names, so that a field added later is either
// reset or said to stay.
func TestResetCoversManager(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "reset.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	set := map[string]bool{}
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Name.Name != "resetLocked" {
			continue
		}
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			var lhs []ast.Expr
			switch n := n.(type) {
			case *ast.AssignStmt:
				lhs = n.Lhs
			case *ast.IncDecStmt:
				lhs = []ast.Expr{n.X}
			}
			for _, e := range lhs {
				if sel, ok := e.(*ast.SelectorExpr); ok {
					if id, ok := sel.X.(*ast.Ident); ok && id.Name == "m" {
						set[sel.Sel.Name] = true
					}
				}
			}
			return true
		})
	}
	var missing, both []string
	rt := reflect.TypeOf(manager{})
	for i := 0; i < rt.NumField(); i++ {
		name := rt.Field(i).Name
		_, kept := resetKeeps[name]
		switch {
		case !kept && !set[name]:
			missing = append(missing, name)
		case kept && set[name]:
			both = append(both, name)
		}
	}
	sort.Strings(missing)
	sort.Strings(both)
	if diff := cmp.Diff([]string(nil), missing); diff != "" {
		t.Errorf("manager fields resetLocked neither sets nor keeps (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string(nil), both); diff != "" {
		t.Errorf("manager fields resetLocked sets that resetKeeps says stay (-want +got):\n%s", diff)
	}
}
