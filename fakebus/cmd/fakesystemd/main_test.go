package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// raceEnabled is set by race_test.go: the program under test is built
// with -race when the tests are.
var raceEnabled bool

var (
	buildOnce sync.Once
	binDir    string
	binPath   string
	buildErr  error
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.Cleanup(func(int) {
		if binDir != "" {
			os.RemoveAll(binDir)
		}
	}))
}

// program builds the command once and returns the binary's path.
func program(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		goTool, err := exec.LookPath("go")
		if err != nil {
			buildErr = fmt.Errorf("the go command is needed to build fakesystemd: %w", err)
			return
		}
		if binDir, err = os.MkdirTemp("", "fakesystemd-test"); err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(binDir, "fakesystemd")
		args := []string{"build", "-o", binPath}
		if raceEnabled {
			args = append(args, "-race")
		}
		out, err := exec.Command(goTool, append(args, ".")...).CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

// programCmd returns a command running the program with args.
func programCmd(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(program(t), args...)
	if raceEnabled {
		// A race report makes the program exit 66 and fail the test; skip
		// the race runtime's 1s sleep at exit.
		cmd.Env = append(os.Environ(), "GORACE="+strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
	}
	return cmd
}

// lockedBuffer collects a process's stderr.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// proc is a running fakesystemd.
type proc struct {
	t      *testing.T
	cmd    *exec.Cmd
	stdout *bufio.Reader
	stderr *lockedBuffer
	waited bool
	code   int
}

// startProgram starts fakesystemd with args (which should include
// --print-address) and reads n address lines.
func startProgram(t *testing.T, n int, args ...string) (*proc, []string) {
	t.Helper()
	cmd := programCmd(t, args...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p := &proc{t: t, cmd: cmd, stdout: bufio.NewReader(out), stderr: &lockedBuffer{}}
	cmd.Stderr = p.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if !p.waited {
			cmd.Process.Kill()
			p.wait()
		}
	})
	type result struct {
		lines []string
		err   error
	}
	ch := make(chan result, 1)
	go func() {
		var r result
		for i := 0; i < n; i++ {
			line, err := p.stdout.ReadString('\n')
			if err != nil {
				r.err = fmt.Errorf("reading address %d: %v (got %q)", i+1, err, line)
				break
			}
			r.lines = append(r.lines, strings.TrimSuffix(line, "\n"))
		}
		ch <- r
	}()
	select {
	case r := <-ch:
		if r.err != nil {
			cmd.Process.Kill()
			p.wait()
			t.Fatalf("%v; stderr: %s", r.err, p.stderr)
		}
		return p, r.lines
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		p.wait()
		<-ch
		t.Fatalf("no address printed within 20s; stderr: %s", p.stderr)
	}
	return nil, nil
}

// wait reads the rest of stdout, waits for the process and returns what
// it printed on stdout after the addresses.
func (p *proc) wait() string {
	rest, _ := io.ReadAll(p.stdout)
	err := p.cmd.Wait()
	p.waited = true
	p.code = 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		p.code = ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			p.code = -int(ws.Signal())
		}
	case err != nil:
		p.t.Errorf("wait: %v", err)
		p.code = -1
	}
	return string(rest)
}

// stop sends sig, waits up to 20s for the exit and returns the exit status
// (negative: killed by that signal) and anything more printed on stdout.
func (p *proc) stop(sig os.Signal) (int, string) {
	p.t.Helper()
	if err := p.cmd.Process.Signal(sig); err != nil {
		p.t.Fatalf("signal: %v", err)
	}
	timer := time.AfterFunc(20*time.Second, func() { p.cmd.Process.Kill() })
	defer timer.Stop()
	rest := p.wait()
	return p.code, rest
}

// testContext is a context for one test's calls.
func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// socketDir returns a short temporary directory: unix socket paths are
// limited to 107 bytes and t.TempDir's can be long.
func socketDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "fsd")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

func assertGone(t *testing.T, paths ...string) {
	t.Helper()
	for _, p := range paths {
		if _, err := os.Lstat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s still exists after exit (Lstat: %v)", p, err)
		}
	}
}
