package bench

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// BenchmarkMockServers compares two fake systemds a test can run, side by
// side in one run: fakesystemd (fakebus/cmd/fakesystemd, a process of its
// own serving its bus) and python-dbusmock's systemd template (Debian's
// python3-dbusmock, /usr/bin/python3 -m dbusmock --template systemd) on a
// private dbus-daemon. The same raw godbus client (Raw) drives each: every
// worker starts its own transient slice, waits for its JobRemoved, stops
// it and waits, over and over. An op is one such cycle on each server; the
// servers take turns of 100 cycles, in alternating order. It reports each
// server's cycles/s and fakesystemd's ratio to dbusmock's.
//
// The template keeps no units of its own: StopUnit answers for units
// registered with its AddMockUnit, so each worker's slice is registered
// there first. fakesystemd needs nothing: a stopped slice is collected
// and its name can be started again.
func BenchmarkMockServers(b *testing.B) {
	for _, workers := range []int{1, 16} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			ctx := context.Background()
			names := make([]string, workers)
			for i := range names {
				names[i] = fmt.Sprintf("bench_w%d.slice", i)
			}
			fake := dialRawOrFail(b, startFakesystemd(b))
			mock := dialRawOrFail(b, startDbusmock(b, names))
			servers := []struct {
				name string
				c    *Raw
				took time.Duration
				n    int
			}{{"fakesystemd", fake, 0, 0}, {"dbusmock", mock, 0, 0}}
			for i := range servers {
				if err := cycles(ctx, servers[i].c, names, 10); err != nil {
					b.Fatalf("%s: %v", servers[i].name, err)
				}
			}
			b.ResetTimer()
			const turn = 100
			for done, round := 0, 0; done < b.N; round++ {
				n := min(turn, b.N-done)
				for k := range servers {
					s := &servers[(k+round)%len(servers)]
					t0 := time.Now()
					if err := cycles(ctx, s.c, names, n); err != nil {
						b.Fatalf("%s: %v", s.name, err)
					}
					s.took += time.Since(t0)
					s.n += n
				}
				done += n
			}
			b.StopTimer()
			rate := func(i int) float64 { return float64(servers[i].n) / servers[i].took.Seconds() }
			b.ReportMetric(rate(0), "fakesystemd-cycles/s")
			b.ReportMetric(rate(1), "dbusmock-cycles/s")
			b.ReportMetric(rate(0)/rate(1), "fakesystemd/dbusmock")
		})
	}
}

// cycles does n start+stop cycles in all on c, one worker per name, each
// on its own slice.
func cycles(ctx context.Context, c *Raw, names []string, n int) error {
	var wg sync.WaitGroup
	errs := make([]error, len(names))
	for w, name := range names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += len(names) {
				if err := c.StartSlice(ctx, name); err != nil {
					errs[w] = err
					return
				}
				if err := c.Stop(ctx, name); err != nil {
					errs[w] = err
					return
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func dialRawOrFail(tb testing.TB, addr string) *Raw {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := DialRaw(ctx, addr, false)
	if err != nil {
		tb.Fatalf("connect %s: %v", addr, err)
	}
	tb.Cleanup(c.Close)
	return c
}

// startFakesystemd builds and starts fakebus/cmd/fakesystemd and returns
// its bus address; tb's cleanup stops it.
func startFakesystemd(tb testing.TB) string {
	tb.Helper()
	dir := shortTempDir(tb)
	bin := filepath.Join(dir, "fakesystemd")
	build := exec.Command(goTool(), "build", "-o", bin, "github.com/sdbus-go/sdbus/fakebus/cmd/fakesystemd")
	if out, err := build.CombinedOutput(); err != nil {
		tb.Fatalf("go build fakesystemd: %v\n%s", err, out)
	}
	return startServer(tb, exec.Command(bin, "--socket", filepath.Join(dir, "bus"), "--print-address"), "fakesystemd")
}

// startDbusmock starts a private dbus-daemon and python-dbusmock's systemd
// template on it, registers names as its units, and returns the bus
// address; tb's cleanup stops both. It skips tb where either is missing.
func startDbusmock(tb testing.TB, names []string) string {
	tb.Helper()
	const python = "/usr/bin/python3" // Debian's, which python3-dbusmock installs into
	if _, err := exec.LookPath("dbus-daemon"); err != nil {
		tb.Skip("no dbus-daemon")
	}
	if err := exec.Command(python, "-c", "import dbusmock").Run(); err != nil {
		tb.Skipf("no python-dbusmock for %s (apt-get install python3-dbusmock): %v", python, err)
	}
	daemon := exec.Command("dbus-daemon", "--session", "--nofork", "--print-address=1")
	daemon.Stderr = io.Discard // it warns when it may not raise its fd limit (in a container)
	addr := startServer(tb, daemon, "dbus-daemon")
	mock := exec.Command(python, "-m", "dbusmock", "--session", "--template", "systemd")
	mock.Env = append(os.Environ(), "DBUS_SESSION_BUS_ADDRESS="+addr)
	mock.Stderr = os.Stderr
	if err := mock.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		_ = mock.Process.Kill()
		_ = mock.Wait()
	})
	conn, err := DialGodbus(context.Background(), addr)
	if err != nil {
		tb.Fatal(err)
	}
	defer conn.Close()
	for deadline := time.Now().Add(30 * time.Second); ; {
		var has bool
		err := conn.BusObject().Call("org.freedesktop.DBus.NameHasOwner", 0, systemdName).Store(&has)
		if err == nil && has {
			break
		}
		if time.Now().After(deadline) {
			tb.Fatalf("dbusmock did not take %s: %v", systemdName, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	obj := conn.Object(systemdName, managerPath)
	for _, n := range names {
		if err := obj.Call("org.freedesktop.DBus.Mock.AddMockUnit", 0, n).Err; err != nil {
			tb.Fatalf("dbusmock AddMockUnit %s: %v", n, err)
		}
	}
	return addr
}

// startServer starts cmd, which prints its bus address as its first line,
// and returns the address; tb's cleanup kills it. Its standard error is
// ours unless cmd says otherwise.
func startServer(tb testing.TB, cmd *exec.Cmd, what string) string {
	tb.Helper()
	if cmd.Stderr == nil {
		cmd.Stderr = os.Stderr
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatalf("%s: %v", what, err)
	}
	tb.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		tb.Fatalf("%s printed no address: %v", what, err)
	}
	addr := strings.TrimSpace(line)
	if !strings.HasPrefix(addr, "unix:") {
		tb.Fatalf("%s printed %q, want a unix: address", what, addr)
	}
	return addr
}

// shortTempDir is a temporary directory with a path short enough for a
// unix socket in it (107 bytes at most); tb's cleanup removes it.
func shortTempDir(tb testing.TB) string {
	tb.Helper()
	dir, err := os.MkdirTemp("", "sdbus-bench")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}
