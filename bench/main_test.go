package bench

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus"
)

// fakeEnv, when set in the environment of this test binary, makes it a fake
// systemd server instead: TestMain serves fakebus at the socket path the
// variable names, prints "ready" and runs until its stdin closes. The
// benchmarks run the fake this way, in a process of its own, so that the
// benchmark process's CPU time, allocations and garbage collections are the
// client's alone.
//
// The fake keeps the jobs of slices matching heldPattern queued, and
// obeys one command on stdin, "finish ID", answered with "ok" on stdout:
// it ends job ID with result done.
const fakeEnv = "SDBUS_BENCH_FAKE_SOCKET"

func TestMain(m *testing.M) {
	if path := os.Getenv(fakeEnv); path != "" {
		if err := serveFake(path); err != nil {
			fmt.Fprintln(os.Stderr, "fake server:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	if addr := os.Getenv(clientEnv); addr != "" {
		if err := serveJobs(addr); err != nil {
			fmt.Fprintln(os.Stderr, "job client:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	if os.Getenv(churnEnv) != "" {
		if err := serveChurn(); err != nil {
			fmt.Fprintln(os.Stderr, "churn:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func serveFake(path string) error {
	s, err := fakebus.Start()
	if err != nil {
		return err
	}
	defer s.Close()
	if err := s.ListenUnix(path, false); err != nil {
		return err
	}
	if err := s.Script(heldPattern, fakebus.Script{Delay: time.Hour}); err != nil {
		return err
	}
	fmt.Println("ready")
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() { // until the parent closes stdin or dies
		var id uint32
		if _, err := fmt.Sscanf(in.Text(), "finish %d", &id); err != nil {
			return err
		}
		s.FinishJob(id, sdbus.JobDone)
		fmt.Println("ok")
	}
	return in.Err()
}

// fakeProcess is a fake systemd in a child process.
type fakeProcess struct {
	Address string
	stdin   io.WriteCloser
	stdout  *bufio.Reader
}

// Finish ends a held job with result done.
func (f *fakeProcess) Finish(id uint32) error {
	if _, err := fmt.Fprintf(f.stdin, "finish %d\n", id); err != nil {
		return err
	}
	line, err := f.stdout.ReadString('\n')
	if err == nil && line != "ok\n" {
		err = fmt.Errorf("fake: %q", line)
	}
	return err
}

// startFakeProcess runs a fake systemd in a child process. The child ends
// when tb's cleanup closes its stdin.
func startFakeProcess(tb testing.TB) *fakeProcess {
	tb.Helper()
	dir := shortTempDir(tb) // a unix socket path is at most 107 bytes
	path := filepath.Join(dir, "bus")
	stdin, stdout, _ := startChild(tb, fakeEnv+"="+path, "fake server")
	return &fakeProcess{Address: "unix:path=" + path, stdin: stdin, stdout: stdout}
}

// startChild runs this test binary again as a child process with env set
// (NAME=VALUE), which makes it play a role (see TestMain), and waits for
// its "ready" line. tb's cleanup closes its stdin, which ends it, and
// waits for it; cleanups registered before run after.
func startChild(tb testing.TB, env, what string) (io.WriteCloser, *bufio.Reader, int) {
	tb.Helper()
	exe, err := os.Executable()
	if err != nil {
		tb.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), env)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		stdin.Close()
		_ = cmd.Wait()
	})
	r := bufio.NewReader(stdout)
	if line, err := r.ReadString('\n'); err != nil || strings.TrimSpace(line) != "ready" {
		tb.Fatalf("%s did not start: %q, %v", what, line, err)
	}
	return stdin, r, cmd.Process.Pid
}

// startFakeInProcess starts a fake in this process and returns it and its
// unix socket address.
func startFakeInProcess(tb testing.TB, opts ...fakebus.Option) (*fakebus.Server, string) {
	tb.Helper()
	s := fakebus.New(tb, opts...)
	addr, err := s.Address()
	if err != nil {
		tb.Fatal(err)
	}
	return s, addr
}

// clientKinds names the clients the benchmarks compare.
var clientKinds = []string{"sdbus", "go-systemd", "raw"}

// dial connects the named client to address; tb's cleanup closes it.
func dial(tb testing.TB, kind, address string) Client {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := connect(ctx, kind, address)
	if err != nil {
		tb.Fatalf("%s: connect %s: %v", kind, address, err)
	}
	tb.Cleanup(c.Close)
	return c
}

// connect connects the named client to address.
func connect(ctx context.Context, kind, address string) (Client, error) {
	switch kind {
	case "sdbus":
		return DialSdbus(ctx, address)
	case "go-systemd":
		return DialGoSystemd(ctx, address)
	case "raw":
		return DialRaw(ctx, address, false)
	case "raw+subscribe":
		return DialRaw(ctx, address, true)
	case "sdbus+watch":
		return dialSdbusWatching(ctx, address)
	}
	return nil, fmt.Errorf("unknown client %q", kind)
}

// nameSeq makes unit names unique within the process, so that no two jobs
// of a run ever merge.
var nameSeq atomic.Uint64

// sliceName returns a fresh slice name. It has no '-': a dash would make
// systemd create (and start jobs for) parent slices implicitly.
func sliceName() string {
	return fmt.Sprintf("bench_%d_%d.slice", os.Getpid(), nameSeq.Add(1))
}

// cycle starts a fresh slice, waits, stops it and waits: two jobs.
func cycle(ctx context.Context, c Client) error {
	name := sliceName()
	if err := c.StartSlice(ctx, name); err != nil {
		return err
	}
	return c.Stop(ctx, name)
}

// warmUp runs n cycles on c (connection buffers, maps), collects garbage and
// restarts b's timer and allocation counts: what follows is measured.
func warmUp(b *testing.B, ctx context.Context, c Client, n int) {
	for i := 0; i < n; i++ {
		if err := cycle(ctx, c); err != nil {
			b.Fatal(err)
		}
	}
	runtime.GC()
	b.ReportAllocs()
	b.ResetTimer()
}
