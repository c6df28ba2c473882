// Package doctest checks that the documentation works as written: every
// Go block of README.md and of the package docs compiles (and the tests
// among them pass), the go doc examples compile one by one, every shell
// block of README.md runs, and the example programs build in a module of
// their own, as they do for a user who copies them. It is a package of
// its own so that it runs beside the root package's tests, with its own
// timeout.
//
// Go blocks. Each block is a package of its own in a temporary module that
// requires sdbus through a replace directive to this repository, and
// go-systemd at the version bench/go.mod names; go vet checks them all at
// once, with //line directives so that an error names the block's own line
// (README.md:40:2: declared and not used: res). A block is one of:
//
//   - a whole file: it starts with "package", and is compiled as is;
//   - declarations (func TestX, func helper, ...), with the import lines
//     they need: a file without its package clause. A block that declares
//     Test functions is a _test.go file, and its tests are run;
//   - statements: the body of a function func(ctx context.Context,
//     c *sdbus.Conn, pid int, t *testing.T) error, so a block may use ctx,
//     c (a connected Conn), pid (a process to place) and t, and return an
//     error. Import lines at the top of the block are the file's imports.
//
// A block with import lines gets exactly those, so a block that uses a
// package it does not import fails, as it would for a reader who pastes
// it. A block without any (the short snippets of package docs) gets
// context, errors, fmt, log, os, testing, time, sdbus, fakebus and godbus's
// dbus.
//
// The package docs are those of every library package of the module
// (package main docs hold command lines, not Go); each code block in them
// is Go, except the few listed in notGo.
//
// Shell blocks (```sh) run with sh -e from the repository root, with TMPDIR
// a fresh temporary directory; the processes a block leaves behind are
// killed with its process group. A comment line at column 0 right after a
// command ("# s \"active\"") is output that command must print. A line
// <!-- doctest: KEYWORD ... --> right before a block says how to run it:
//
//   - make-check-dry-run: the block runs `make check`, whose tests include
//     this one, so `make check` runs as `make -n check` (a make first on
//     PATH that adds -n for the check target): the target and its recipe
//     are checked, nothing recurses;
//   - sandbox: the block needs a real systemd through scripts/sandbox; it
//     runs where `scripts/sandbox check` passes (root), and is skipped with
//     that reason elsewhere;
//   - needs COMMAND: the block runs COMMAND (busctl, say), and is skipped
//     where it is not on PATH.
//
// Every fenced block of README.md must be ```go or ```sh.
package doctest_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"go/ast"
	"go/doc/comment"
	"go/parser"
	"go/printer"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// notGo are the code blocks of package docs that are not Go, by file and
// the start of their first line, with what they are.
var notGo = map[string]string{}

// docBlock is one code block of the documentation.
type docBlock struct {
	file   string // relative to the repository root
	line   int    // of the block's first line
	lang   string // "go" or "sh"
	marker string // the doctest keyword before a README block
	needs  string // the command a "needs" marker names
	text   string
}

func (b docBlock) String() string { return fmt.Sprintf("%s:%d", b.file, b.line) }

var doctestMarker = regexp.MustCompile(`^<!--\s*doctest:\s*(\S+)\s*(\S*).*-->$`)

// readmeBlocks returns the fenced blocks of a markdown file.
func readmeBlocks(t *testing.T, root, name string) []docBlock {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, name))
	if err != nil {
		t.Fatal(err)
	}
	var blocks []docBlock
	lines := strings.Split(string(data), "\n")
	for i := 0; i < len(lines); i++ {
		if !strings.HasPrefix(lines[i], "```") {
			continue
		}
		b := docBlock{file: name, line: i + 2, lang: strings.TrimSpace(strings.TrimPrefix(lines[i], "```"))}
		for j := i - 1; j >= 0; j-- {
			if s := strings.TrimSpace(lines[j]); s != "" {
				if m := doctestMarker.FindStringSubmatch(s); m != nil {
					b.marker, b.needs = m[1], m[2]
				}
				break
			}
		}
		var body []string
		for i++; i < len(lines) && !strings.HasPrefix(lines[i], "```"); i++ {
			body = append(body, lines[i])
		}
		if i == len(lines) {
			t.Fatalf("%s: block not closed", b)
		}
		b.text = strings.Join(body, "\n") + "\n"
		blocks = append(blocks, b)
	}
	return blocks
}

// packageDocBlocks returns the code blocks of the package docs of the
// module's library packages, but those in notGo.
func packageDocBlocks(t *testing.T, root string) []docBlock {
	t.Helper()
	var blocks []docBlock
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			if rel != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil && rel != "." {
				return filepath.SkipDir // another module (bench)
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ParseComments|parser.PackageClauseOnly)
		if err != nil {
			return err
		}
		if f.Doc == nil || f.Name.Name == "main" {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		var p comment.Parser
		for _, c := range p.Parse(f.Doc.Text()).Content {
			code, ok := c.(*comment.Code)
			if !ok {
				continue
			}
			first, _, _ := strings.Cut(code.Text, "\n")
			skip := false
			for key := range notGo {
				file, start, _ := strings.Cut(key, ": ")
				if file == filepath.ToSlash(rel) && strings.HasPrefix(first, start) {
					skip = true
				}
			}
			if skip {
				continue
			}
			line := 0
			for i, l := range strings.Split(string(src), "\n") {
				if l == "//\t"+first {
					line = i + 1
					break
				}
			}
			blocks = append(blocks, docBlock{file: filepath.ToSlash(rel), line: line, lang: "go", text: code.Text})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return blocks
}

// goTool returns the go command that runs this test.
func goTool(t *testing.T) string {
	t.Helper()
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	p := filepath.Join(os.Getenv("GOROOT"), "bin", "go")
	if _, err := os.Stat(p); err != nil {
		t.Skip("no go command on PATH")
	}
	return p
}

// repoRoot is the repository root, two levels above this package.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// userModule writes, in a temporary directory, the go.mod and go.sum of a
// module of a user's: it requires sdbus (replaced by this repository) and
// what the repository's and bench's go.mod require, go-systemd among them.
func userModule(t *testing.T, root string) string {
	t.Helper()
	dir := t.TempDir()
	goVersion := "1.21"
	requires := map[string]string{}
	var sums []string
	seen := map[string]bool{}
	for _, mod := range []string{"go.mod", "bench/go.mod"} {
		data, err := os.ReadFile(filepath.Join(root, mod))
		if err != nil {
			t.Fatal(err)
		}
		inRequire := false
		for _, line := range strings.Split(string(data), "\n") {
			line, _, _ = strings.Cut(line, "//")
			f := strings.Fields(line)
			switch {
			case len(f) == 2 && f[0] == "go":
				if versionLess(goVersion, f[1]) {
					goVersion = f[1]
				}
			case len(f) == 2 && f[0] == "require" && f[1] == "(":
				inRequire = true
			case len(f) == 1 && f[0] == ")":
				inRequire = false
			case len(f) == 3 && f[0] == "require":
				requires[f[1]] = f[2]
			case inRequire && len(f) == 2:
				requires[f[0]] = f[1]
			}
		}
		sum, err := os.ReadFile(filepath.Join(root, filepath.Dir(mod), "go.sum"))
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(string(sum), "\n") {
			if l != "" && !seen[l] {
				seen[l] = true
				sums = append(sums, l)
			}
		}
	}
	delete(requires, "github.com/sdbus-go/sdbus")
	var gomod strings.Builder
	fmt.Fprintf(&gomod, "module example.com/user\n\ngo %s\n\nrequire (\n\tgithub.com/sdbus-go/sdbus v0.0.0-00010101000000-000000000000\n", goVersion)
	var paths []string
	for p := range requires {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		fmt.Fprintf(&gomod, "\t%s %s\n", p, requires[p])
	}
	fmt.Fprintf(&gomod, ")\n\nreplace github.com/sdbus-go/sdbus => %s\n", root)
	writeFile(t, filepath.Join(dir, "go.mod"), gomod.String())
	writeFile(t, filepath.Join(dir, "go.sum"), strings.Join(sums, "\n")+"\n")
	return dir
}

// versionLess compares Go versions such as 1.21 and 1.23.4.
func versionLess(a, b string) bool {
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(as) || i < len(bs); i++ {
		var x, y int
		if i < len(as) {
			x, _ = strconv.Atoi(as[i])
		}
		if i < len(bs) {
			y, _ = strconv.Atoi(bs[i])
		}
		if x != y {
			return x < y
		}
	}
	return false
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// runGo runs the go command in dir; the module may add what go.sum lacks.
func runGo(t *testing.T, dir string, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, goTool(t), args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS="+strings.TrimSpace(os.Getenv("GOFLAGS")+" -mod=mod"))
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// defaultImports are what a Go block without import lines gets, each kept
// in use by the harness.
const defaultImports = `import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus"
)

var (
	_ = context.Background
	_ = errors.Is
	_ = fmt.Sprint
	_ = log.Print
	_ = os.Getenv
	_ testing.TB
	_ = time.Second
	_ dbus.Variant
	_ sdbus.Property
	_ = fakebus.New
)
`

// harness declares the types of the statement blocks' parameters without
// importing anything into the block's own file.
const harness = `package block

import (
	"context"
	"testing"

	"github.com/sdbus-go/sdbus"
)

type (
	harnessContext = context.Context
	harnessConn    = sdbus.Conn
	harnessT       = testing.T
)
`

var importStart = regexp.MustCompile(`^import\s*(\(|("|\w+\s+"|\.\s+"|_\s+"))`)

// splitImports splits the import lines off the top of a block.
func splitImports(text string) (imports, rest string, restLine int) {
	lines := strings.SplitAfter(text, "\n")
	i := 0
	for i < len(lines) {
		l := strings.TrimSpace(lines[i])
		switch {
		case l == "":
			i++
			continue
		case importStart.MatchString(l) && strings.HasSuffix(l, "("):
			for i < len(lines) && strings.TrimSpace(lines[i]) != ")" {
				imports += lines[i]
				i++
			}
			if i < len(lines) {
				imports += lines[i]
				i++
			}
			continue
		case importStart.MatchString(l):
			imports += lines[i]
			i++
			continue
		}
		break
	}
	return imports, strings.Join(lines[i:], ""), i
}

// goFile turns a block into a Go file of package block (a whole file keeps
// its package); name ends in _test.go for a file of tests.
func goFile(b docBlock) (name, src string, whole bool) {
	text := b.text
	declaresTests := regexp.MustCompile(`(?m)^func Test\w*\(`).MatchString(text)
	name = "block.go"
	if declaresTests {
		name = "block_test.go"
	}
	if strings.HasPrefix(strings.TrimSpace(text), "package ") {
		return name, fmt.Sprintf("//line %s:%d\n%s", b.file, b.line, text), true
	}
	imports, body, bodyLine := splitImports(text)
	if imports == "" {
		imports = defaultImports
	} else {
		imports = fmt.Sprintf("//line %s:%d\n%s", b.file, b.line, imports)
	}
	if _, err := parser.ParseFile(token.NewFileSet(), "", "package block\n"+imports+body, 0); err == nil {
		return name, fmt.Sprintf("package block\n\n%s\n//line %s:%d\n%s", imports, b.file, b.line+bodyLine, body), false
	}
	fn := fmt.Sprintf("func block(ctx harnessContext, c *harnessConn, pid int, t *harnessT) error {\n//line %s:%d\n%s", b.file, b.line+bodyLine, body)
	src = fmt.Sprintf("package block\n\n%s\n%s}\n", imports, fn)
	if f, err := parser.ParseFile(token.NewFileSet(), "", src, 0); err == nil {
		fd := f.Decls[len(f.Decls)-1].(*ast.FuncDecl)
		if n := len(fd.Body.List); n > 0 {
			if _, ok := fd.Body.List[n-1].(*ast.ReturnStmt); ok {
				return name, src, false
			}
		}
	}
	return name, fmt.Sprintf("package block\n\n%s\n%s\nreturn nil\n}\n", imports, fn), false
}

// TestDocGoBlocks compiles every Go block of README.md and of the package
// docs, and runs the tests among them; it also compiles the go doc
// examples, each with nothing but the imports of its file, so that a body
// copied out of go doc compiles.
func TestDocGoBlocks(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module of the documentation's blocks")
	}
	root := repoRoot(t)
	var blocks []docBlock
	readme := 0
	for _, b := range readmeBlocks(t, root, "README.md") {
		if b.lang == "go" {
			blocks = append(blocks, b)
			readme++
		}
	}
	blocks = append(blocks, packageDocBlocks(t, root)...)
	if readme == 0 || len(blocks) == readme {
		t.Fatalf("found %d Go blocks in README.md and %d in package docs; the extraction is broken", readme, len(blocks)-readme)
	}
	dir := userModule(t, root)
	var tests []string
	for i, b := range blocks {
		pkg := fmt.Sprintf("b%02d", i)
		name, src, whole := goFile(b)
		writeFile(t, filepath.Join(dir, pkg, name), src)
		if !whole {
			writeFile(t, filepath.Join(dir, pkg, "harness.go"), harness)
		}
		if strings.HasSuffix(name, "_test.go") {
			tests = append(tests, "./"+pkg)
		}
		t.Logf("%s: %s", pkg, b)
	}
	for i, name := range exampleFiles {
		src, n := standAloneExamples(t, root, name)
		if n == 0 {
			t.Fatalf("no examples in %s", name)
		}
		// Renamed from _test.go: the examples compile as functions of a
		// plain package, where go vet does not hold them to the rules of
		// test files.
		writeFile(t, filepath.Join(dir, fmt.Sprintf("examples%d", i), "examples.go"), src)
		t.Logf("examples%d: the %d examples of %s, without the rest of the file", i, n, name)
	}
	if out, err := runGo(t, dir, "vet", "./..."); err != nil {
		t.Fatalf("documentation blocks do not compile (go vet: %v):\n%s", err, out)
	}
	if len(tests) > 0 {
		if out, err := runGo(t, dir, append([]string{"test", "-count=1"}, tests...)...); err != nil {
			t.Fatalf("the tests of the documentation fail (%v):\n%s", err, out)
		}
	}
}

// TestDocShellBlocks runs every shell block of README.md.
func TestDocShellBlocks(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the README's commands")
	}
	root := repoRoot(t)
	goBin := goTool(t)
	shells := 0
	for _, b := range readmeBlocks(t, root, "README.md") {
		switch b.lang {
		case "go":
			continue
		case "sh":
		default:
			t.Errorf("%s: block of language %q: README blocks are go or sh, so that a test can check them", b, b.lang)
			continue
		}
		shells++
		t.Run(strconv.Itoa(b.line), func(t *testing.T) {
			bin := t.TempDir()
			switch b.marker {
			case "":
			case "make-check-dry-run":
				makeTool, err := exec.LookPath("make")
				if err != nil {
					t.Skip("no make")
				}
				writeFile(t, filepath.Join(bin, "make"), fmt.Sprintf(
					"#!/bin/sh\nfor a; do [ \"$a\" = check ] && exec %s -n \"$@\"; done\nexec %s \"$@\"\n", makeTool, makeTool))
				if err := os.Chmod(filepath.Join(bin, "make"), 0o755); err != nil {
					t.Fatal(err)
				}
			case "needs":
				if _, err := exec.LookPath(b.needs); err != nil {
					t.Skipf("%s needs %s: %v", b, b.needs, err)
				}
			case "sandbox":
				out, err := exec.Command(filepath.Join(root, "scripts/sandbox"), "check").CombinedOutput()
				if err != nil {
					t.Skipf("%s needs a real systemd: %s", b, bytes.TrimSpace(out))
				}
			default:
				t.Fatalf("%s: unknown doctest marker %q", b, b.marker)
			}
			runShellBlock(t, root, bin, goBin, b)
		})
	}
	if shells == 0 {
		t.Fatal("no shell block in README.md; the extraction is broken")
	}
}

// runShellBlock runs a block as sh -e and checks the output its comments
// promise.
func runShellBlock(t *testing.T, root, bin, goBin string, b docBlock) {
	t.Helper()
	tmp := t.TempDir()
	out, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "/bin/sh", "-e", "-c", b.text)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp,
		"PATH="+bin+string(os.PathListSeparator)+filepath.Dir(goBin)+string(os.PathListSeparator)+os.Getenv("PATH"))
	// Output to a file, not a pipe, so that a process the block leaves
	// behind cannot hold Wait; the block's process group is killed after.
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pgid := cmd.Process.Pid
	runErr := cmd.Wait()
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	text, err := os.ReadFile(out.Name())
	if err != nil {
		t.Fatal(err)
	}
	if runErr != nil {
		t.Fatalf("%s: sh -e failed (%v):\n%s\n--- output:\n%s", b, runErr, b.text, text)
	}
	rest := string(text)
	for _, want := range promisedOutput(b.text) {
		i := strings.Index(rest, want)
		if i < 0 {
			t.Errorf("%s: output lacks %q (in order):\n%s", b, want, text)
			break
		}
		rest = rest[i+len(want):]
	}
}

// promisedOutput returns the comment lines at column 0 that follow a
// command directly: the output the block says its commands print.
func promisedOutput(text string) []string {
	var want []string
	afterCommand := false
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		l := sc.Text()
		trimmed := strings.TrimSpace(l)
		switch {
		case trimmed == "":
			afterCommand = false
		case strings.HasPrefix(l, "# ") && afterCommand:
			want = append(want, strings.TrimPrefix(l, "# "))
		case strings.HasPrefix(trimmed, "#"):
			afterCommand = false
		default:
			afterCommand = true
		}
	}
	return want
}

// exampleFiles are the files of go doc examples, whose bodies a reader
// copies.
var exampleFiles = []string{"example_test.go", "example_calls_test.go", "fakebus/example_test.go"}

// standAloneExamples returns the Example functions of an example file with
// its imports and nothing else of it: a file that compiles only if every
// example is whole, connection included, and uses no helper of the
// package's.
func standAloneExamples(t *testing.T, root, name string) (src string, n int) {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, filepath.Join(root, name), nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	var decls []ast.Decl
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.GenDecl:
			if d.Tok == token.IMPORT {
				decls = append(decls, d)
			}
		case *ast.FuncDecl:
			if strings.HasPrefix(d.Name.Name, "Example") && d.Recv == nil {
				decls = append(decls, d)
				n++
			}
		}
	}
	f.Decls = decls
	f.Name.Name = "examples"
	var buf bytes.Buffer
	if err := (&printer.Config{Mode: printer.SourcePos, Tabwidth: 8}).Fprint(&buf, fset, f); err != nil {
		t.Fatal(err)
	}
	return buf.String(), n
}

// TestExamplesBuildOutsideModule copies every example program into a
// module of a user's, which reaches sdbus only through its public
// packages, and builds them there.
func TestExamplesBuildOutsideModule(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the examples in a module of their own")
	}
	root := repoRoot(t)
	dir := userModule(t, root)
	progs, err := filepath.Glob(filepath.Join(root, "examples", "*", "main.go"))
	if err != nil || len(progs) == 0 {
		t.Fatalf("no example programs (%v)", err)
	}
	for _, prog := range progs {
		srcDir := filepath.Dir(prog)
		files, err := filepath.Glob(filepath.Join(srcDir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			writeFile(t, filepath.Join(dir, filepath.Base(srcDir), filepath.Base(f)), string(data))
		}
	}
	for _, args := range [][]string{{"build", "-o", t.TempDir(), "./..."}, {"vet", "./..."}} {
		if out, err := runGo(t, dir, args...); err != nil {
			t.Fatalf("examples copied out of the repository: go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
}
