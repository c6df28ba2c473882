package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/google/go-cmp/cmp"
	"github.com/sdbus-go/sdbus"
)

// busctlPath returns busctl's path or skips the test.
func busctlPath(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("busctl")
	if err != nil {
		t.Skip("busctl (from systemd) is not installed; skipping the busctl tests")
	}
	return p
}

type busctlResult struct {
	Stdout, Stderr string
	Code           int
}

func busctl(t *testing.T, addr string, args ...string) busctlResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, busctlPath(t), append([]string{"--address=" + addr}, args...)...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := busctlResult{Stdout: stdout.String(), Stderr: stderr.String()}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		r.Code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("busctl %q: %v", args, err)
	}
	return r
}

const (
	dest    = "org.freedesktop.systemd1"
	mgrPath = "/org/freedesktop/systemd1"
	mgr     = "org.freedesktop.systemd1.Manager"
)

func startTransient(unit string) []string {
	return []string{"call", dest, mgrPath, mgr, "StartTransientUnit", "ssa(sv)a(sa(sv))", unit, "replace", "0", "0"}
}

// waitBusctl repeats a busctl command until it prints want (a job may
// still be finishing) and returns the last result.
func waitBusctl(t *testing.T, addr string, want string, args ...string) busctlResult {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		r := busctl(t, addr, args...)
		if r.Stdout == want || time.Now().After(deadline) {
			return r
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestBusctl(t *testing.T) {
	busctlPath(t)
	dir := socketDir(t)
	sock := filepath.Join(dir, "bus")
	p, addrs := startProgram(t, 1, "--socket", sock, "--print-address")
	if diff := cmp.Diff([]string{"unix:path=" + sock}, addrs); diff != "" {
		t.Fatalf("addresses (-want +got):\n%s", diff)
	}
	addr := addrs[0]

	steps := []struct {
		name string
		args []string
		want busctlResult
	}{
		{"StartTransientUnit", startTransient("x.slice"),
			busctlResult{Stdout: "o \"/org/freedesktop/systemd1/job/1\"\n"}},
		{"GetUnit", []string{"call", dest, mgrPath, mgr, "GetUnit", "s", "x.slice"},
			busctlResult{Stdout: "o \"/org/freedesktop/systemd1/unit/x_2eslice\"\n"}},
		{"get-property", []string{"get-property", dest, "/org/freedesktop/systemd1/unit/x_2eslice", "org.freedesktop.systemd1.Unit", "ActiveState"},
			busctlResult{Stdout: "s \"active\"\n"}},
		{"Version", []string{"get-property", dest, mgrPath, mgr, "Version"},
			busctlResult{Stdout: "s \"252.38-1~deb12u1\"\n"}},
		{"UnitExists", startTransient("x.slice"),
			busctlResult{Stderr: "Call failed: Unit x.slice was already loaded or has a fragment file.\n", Code: 1}},
		{"NoSuchUnit", []string{"call", dest, mgrPath, mgr, "GetUnit", "s", "nope.service"},
			busctlResult{Stderr: "Call failed: Unit nope.service not loaded.\n", Code: 1}},
	}
	for _, s := range steps {
		var got busctlResult
		if s.name == "get-property" {
			got = waitBusctl(t, addr, s.want.Stdout, s.args...)
		} else {
			got = busctl(t, addr, s.args...)
		}
		if diff := cmp.Diff(s.want, got); diff != "" {
			t.Errorf("%s: busctl %s (-want +got):\n%s", s.name, strings.Join(s.args, " "), diff)
		}
	}

	code, rest := p.stop(syscall.SIGTERM)
	if code != 0 || rest != "" {
		t.Errorf("after SIGTERM: exit %d, more stdout %q; stderr: %s", code, rest, p.stderr)
	}
	if s := p.stderr.String(); s != "" {
		t.Errorf("stderr without --trace: %q", s)
	}
	assertGone(t, sock)
}

// TestPrivateSocket drives the peer-to-peer socket with godbus, as
// go-systemd's NewSystemdConnectionContext does: EXTERNAL auth, no Hello.
func TestPrivateSocket(t *testing.T) {
	dir := socketDir(t)
	sock, priv := filepath.Join(dir, "bus"), filepath.Join(dir, "private")
	p, addrs := startProgram(t, 2, "--private-socket", priv, "--socket", sock, "--print-address", "--version", "256.7-1")
	if diff := cmp.Diff([]string{"unix:path=" + sock, "unix:path=" + priv}, addrs); diff != "" {
		t.Fatalf("addresses, bus socket first (-want +got):\n%s", diff)
	}

	pc, err := dbus.Dial(addrs[1])
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	if err := pc.Auth([]dbus.Auth{dbus.AuthExternal(fmt.Sprint(os.Getuid()))}); err != nil {
		t.Fatal(err)
	}
	v, err := pc.Object(dest, mgrPath).GetProperty(mgr + ".Version")
	if err != nil {
		t.Fatal(err)
	}
	if got := v.Value(); got != "256.7-1" {
		t.Errorf("Version on the private socket = %v, want 256.7-1", got)
	}

	// The bus socket with godbus's Connect (Auth and Hello), as go-systemd's
	// NewConnection takes it.
	bc, err := dbus.Connect(addrs[0])
	if err != nil {
		t.Fatal(err)
	}
	defer bc.Close()
	var job dbus.ObjectPath
	err = bc.Object(dest, mgrPath).Call(mgr+".StartTransientUnit", 0, "y.slice", "replace",
		[]struct {
			Name  string
			Value dbus.Variant
		}{{"Description", dbus.MakeVariant("why")}},
		[]struct {
			Name  string
			Props []struct {
				Name  string
				Value dbus.Variant
			}
		}{}).Store(&job)
	if err != nil || job != "/org/freedesktop/systemd1/job/1" {
		t.Errorf("StartTransientUnit over the bus socket = %q, %v; want job/1", job, err)
	}

	code, rest := p.stop(syscall.SIGTERM)
	if code != 0 || rest != "" {
		t.Errorf("after SIGTERM: exit %d, more stdout %q; stderr: %s", code, rest, p.stderr)
	}
	assertGone(t, sock, priv)
	for _, c := range []*dbus.Conn{pc, bc} {
		select {
		case <-c.Context().Done():
		case <-time.After(10 * time.Second):
			t.Errorf("a client connection is still open after the exit")
		}
	}
}

// TestStopSignals checks that SIGTERM and SIGINT end the program with
// status 0, closing connections and removing both socket files.
func TestStopSignals(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		sig := sig
		t.Run(sig.String(), func(t *testing.T) {
			dir := socketDir(t)
			sock, priv := filepath.Join(dir, "bus"), filepath.Join(dir, "private")
			p, addrs := startProgram(t, 2, "--socket", sock, "--private-socket", priv, "--print-address")
			c, err := dbus.Connect(addrs[0])
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			code, rest := p.stop(sig)
			if code != 0 {
				t.Errorf("exit status %d after %v, want 0; stderr: %s", code, sig, p.stderr)
			}
			if rest != "" || p.stderr.String() != "" {
				t.Errorf("printed %q on stdout and %q on stderr while stopping, want nothing", rest, p.stderr)
			}
			assertGone(t, sock, priv)
			select {
			case <-c.Context().Done():
			case <-time.After(10 * time.Second):
				t.Errorf("the client connection is still open after the exit")
			}
		})
	}
}

// traceRE is the format of every trace line (see the package doc): a
// message, or a note of the fake's.
var traceRE = regexp.MustCompile(`^(` +
	`(->|<-) (:1\.[0-9]+|-) (call [^ ]+ [^ ]+|signal [^ ]+ [^ ]+|reply|error [^ ]+) serial=[0-9]+( reply_serial=[0-9]+)?( sender=[^ ]+)?( dest=[^ ]+)? \(.*(\)|\.\.\.)` +
	`|` +
	`== (script|conflict|settings) unit="([^"\\]|\\.)*"( [a-z_]+=("([^"\\]|\\.)*"|[^ ",]+)(,("([^"\\]|\\.)*"|[^ ",]+))*)*` +
	`|` +
	`== limit client=(:1\.[0-9]+|-) pid=[0-9]+ limit=[a-z_]+ value=[0-9]+ max=[0-9]+` +
	`)$`)

// TestScriptTraceVersion drives a scripted fake with the real sdbus
// client: a scripted failure, a unit file, --version and --trace.
func TestScriptTraceVersion(t *testing.T) {
	script := writeFile(t, "script.json", `{
		"scripts": [{"pattern": "run-*.scope", "result": "failed", "unit_result": "oom-kill"}],
		"units": [{"name": "app.service", "properties": {
			"Type": "s 'oneshot'",
			"RemainAfterExit": "b true",
			"ExecStart": "a(sasb) [('/bin/true', ['/bin/true'], false)]"}}]
	}`)
	dir := socketDir(t)
	sock := filepath.Join(dir, "bus")
	p, addrs := startProgram(t, 1, "--socket", sock, "--print-address", "--trace",
		"--script", script, "--version", "255.4-1", "--backport", "EffectiveMemoryMax")
	ctx := testContext(t)

	c, err := sdbus.Connect(ctx, addrs[0])
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()

	v, err := c.Version(ctx)
	if err != nil || v.Raw != "255.4-1" || v.Major != 255 {
		t.Errorf("Version = %+v, %v; want 255.4-1", v, err)
	}

	pid := uint32(os.Getpid())
	job, err := c.StartTransientUnit(ctx, "run-t1.scope", sdbus.ModeReplace, []sdbus.Property{sdbus.PropPIDs(pid)})
	if err != nil {
		t.Fatal(err)
	}
	res, err := job.Wait(ctx)
	var jobErr *sdbus.JobError
	if !errors.As(err, &jobErr) || jobErr.Result != sdbus.JobFailed || res != sdbus.JobFailed {
		t.Errorf("scripted scope: Wait = %q, %v; want a JobError with result failed", res, err)
	}
	failedJob := job.ID()

	job, err = c.StartUnit(ctx, "app.service", sdbus.ModeReplace)
	if err != nil {
		t.Fatal(err)
	}
	if res, err := job.Wait(ctx); err != nil || res != sdbus.JobDone {
		t.Errorf("app.service from the script: Wait = %q, %v; want done", res, err)
	}
	st, err := c.UnitStatus(ctx, "app.service")
	if err != nil || st.ActiveState != sdbus.StateActive {
		t.Errorf("app.service: UnitStatus = %+v, %v; want active", st, err)
	}
	okJob := job.ID()
	c.Close()

	code, rest := p.stop(syscall.SIGTERM)
	if code != 0 || rest != "" {
		t.Errorf("after SIGTERM: exit %d, more stdout %q", code, rest)
	}

	lines := strings.Split(strings.TrimSuffix(p.stderr.String(), "\n"), "\n")
	for _, l := range lines {
		if !traceRE.MatchString(l) {
			t.Errorf("not a trace line: %q", l)
		}
	}
	wants := []string{
		`-> :1\.\d+ call org\.freedesktop\.DBus\.AddMatch /org/freedesktop/DBus serial=\d+ dest=org\.freedesktop\.DBus \(".*member='JobRemoved'.*"\)`,
		`-> :1\.\d+ call org\.freedesktop\.DBus\.Properties\.Get /org/freedesktop/systemd1 serial=\d+ dest=org\.freedesktop\.systemd1 \("org\.freedesktop\.systemd1\.Manager", "Version"\)`,
		`<- :1\.\d+ reply serial=\d+ reply_serial=\d+ sender=:1\.\d+ \(<"255\.4-1">\)`,
		fmt.Sprintf(`-> :1\.\d+ call org\.freedesktop\.systemd1\.Manager\.StartTransientUnit /org/freedesktop/systemd1 serial=\d+ dest=org\.freedesktop\.systemd1 \("run-t1\.scope", "replace", \[\("PIDs", <\[%d\]>\)\], \[\]\)`, pid),
		fmt.Sprintf(`<- :1\.\d+ reply serial=\d+ reply_serial=\d+ sender=:1\.\d+ \("/org/freedesktop/systemd1/job/%d"\)`, failedJob),
		fmt.Sprintf(`<- :1\.\d+ signal org\.freedesktop\.systemd1\.Manager\.JobRemoved /org/freedesktop/systemd1 serial=\d+ sender=:1\.\d+ \(%d, "/org/freedesktop/systemd1/job/%d", "run-t1\.scope", "failed"\)`, failedJob, failedJob),
		`-> :1\.\d+ call org\.freedesktop\.systemd1\.Manager\.StartUnit /org/freedesktop/systemd1 serial=\d+ dest=org\.freedesktop\.systemd1 \("app\.service", "replace"\)`,
		fmt.Sprintf(`<- :1\.\d+ signal org\.freedesktop\.systemd1\.Manager\.JobRemoved /org/freedesktop/systemd1 serial=\d+ sender=:1\.\d+ \(%d, "/org/freedesktop/systemd1/job/%d", "app\.service", "done"\)`, okJob, okJob),
		fmt.Sprintf(`== script unit="run-t1\.scope" job=%d job_type=start rule=scripts\[0\] pattern="run-\*\.scope" step=result result=failed`, failedJob),
	}
	// Every line is present. Only the calls of one client are traced in a
	// guaranteed order (a reply and a JobRemoved queued by different
	// goroutines may be traced in either order), so check that order alone.
	at := map[string]int{}
	for _, w := range wants {
		re := regexp.MustCompile("^" + w + "$")
		at[w] = -1
		for i, l := range lines {
			if re.MatchString(l) {
				at[w] = i
				break
			}
		}
		if at[w] < 0 {
			t.Errorf("no trace line matching\n\t%s\ntrace:\n%s", w, p.stderr)
		}
	}
	if a, b := at[wants[3]], at[wants[6]]; a < 0 || b < 0 || a > b {
		t.Errorf("StartTransientUnit traced at line %d, StartUnit at %d: want the order of the calls", a, b)
	}
}

// TestExampleScript serves testdata/example.json and checks what each of
// its parts does.
func TestExampleScript(t *testing.T) {
	dir := socketDir(t)
	sock := filepath.Join(dir, "bus")
	p, addrs := startProgram(t, 1, "--socket", sock, "--print-address", "--script", "testdata/example.json")
	ctx := testContext(t)
	c, err := sdbus.Connect(ctx, addrs[0])
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()

	wait := func(j *sdbus.Job, err error) (sdbus.JobResult, error) {
		if err != nil {
			return "", err
		}
		return j.Wait(ctx)
	}
	if res, err := wait(c.StartUnit(ctx, "app.service", sdbus.ModeReplace)); err != nil || res != sdbus.JobDone {
		t.Errorf("app.service: %q, %v; want done", res, err)
	}
	if res, err := wait(c.StartUnit(ctx, "broken.service", sdbus.ModeReplace)); res != sdbus.JobFailed || !errors.Is(err, sdbus.ErrJobFailed) {
		t.Errorf("broken.service: %q, %v; want failed", res, err)
	}
	if _, err := c.StartUnit(ctx, "forbidden.service", sdbus.ModeReplace); !errors.Is(err, sdbus.ErrUnitMasked) {
		t.Errorf("forbidden.service: %v; want ErrUnitMasked", err)
	}
	props := []sdbus.Property{sdbus.PropPIDs(uint32(os.Getpid()))}
	if res, err := wait(c.StartTransientUnit(ctx, "run-1.scope", sdbus.ModeReplace, props)); res != sdbus.JobFailed || !errors.Is(err, sdbus.ErrJobFailed) {
		t.Errorf("run-1.scope: %q, %v; want failed", res, err)
	}
	// crash-*.service: the first start fails, the main process killed
	// by SIGSEGV with a core (ExecMainCode 3, CLD_DUMPED).
	crash := []sdbus.Property{sdbus.PropExecStart([]string{"/bin/sleep", "infinity"}, false)}
	if res, err := wait(c.StartTransientUnit(ctx, "crash-1.service", sdbus.ModeReplace, crash)); res != sdbus.JobFailed || !errors.Is(err, sdbus.ErrJobFailed) {
		t.Errorf("crash-1.service: %q, %v; want failed", res, err)
	}
	for _, p := range []struct {
		name string
		want any
	}{{"Result", "core-dump"}, {"ExecMainCode", int32(3)}, {"ExecMainStatus", int32(11)}} {
		v, err := c.UnitProperty(ctx, "crash-1.service", "org.freedesktop.systemd1.Service", p.name)
		if err != nil || v.Value() != p.want {
			t.Errorf("crash-1.service's %s = %v, %v; want %v", p.name, v, err, p.want)
		}
	}
	if res, err := wait(c.StartTransientUnit(ctx, "chaos-1.slice", sdbus.ModeReplace, nil)); err != nil || res != sdbus.JobDone {
		t.Errorf("chaos-1.slice: %q, %v; want done despite the faults", res, err)
	}

	if busctlOrSkip(t) {
		for _, s := range []struct{ path, iface, prop, want string }{
			{"/org/freedesktop/systemd1/unit/app_2eservice", "org.freedesktop.systemd1.Service", "MemoryMax", "t 536870912\n"},
			{"/org/freedesktop/systemd1/unit/app_2eservice", "org.freedesktop.systemd1.Service", "DeviceAllow", "a(ss) 1 \"/dev/null\" \"rw\"\n"},
			{"/org/freedesktop/systemd1/unit/app_2eservice", "org.freedesktop.systemd1.Unit", "Description", "s \"an application\"\n"},
			{"/org/freedesktop/systemd1/unit/run_2d1_2escope", "org.freedesktop.systemd1.Scope", "Result", "s \"oom-kill\"\n"},
		} {
			got := busctl(t, addrs[0], "get-property", dest, s.path, s.iface, s.prop)
			if diff := cmp.Diff(busctlResult{Stdout: s.want}, got); diff != "" {
				t.Errorf("%s %s (-want +got):\n%s", s.path, s.prop, diff)
			}
		}
	}

	// slow-*.service: the job stays queued 200ms.
	start := time.Now()
	svc := []sdbus.Property{sdbus.PropExecStart([]string{"/bin/true"}, false)}
	if res, err := wait(c.StartTransientUnit(ctx, "slow-1.service", sdbus.ModeReplace, svc)); err != nil || res != sdbus.JobDone {
		t.Errorf("slow-1.service: %q, %v; want done", res, err)
	}
	if d := time.Since(start); d < 200*time.Millisecond {
		t.Errorf("slow-1.service took %v, want at least the scripted 200ms delay", d)
	}

	// flaky-*.slice: the connection drops after the reply.
	if res, err := wait(c.StartTransientUnit(ctx, "flaky-1.slice", sdbus.ModeReplace, nil)); !errors.Is(err, sdbus.ErrDisconnected) {
		t.Errorf("flaky-1.slice: %q, %v; want ErrDisconnected", res, err)
	}

	if code, _ := p.stop(syscall.SIGINT); code != 0 {
		t.Errorf("exit status %d; stderr: %s", code, p.stderr)
	}
}

func busctlOrSkip(t *testing.T) bool {
	if _, err := exec.LookPath("busctl"); err != nil {
		t.Log("busctl is not installed: skipping the property checks")
		return false
	}
	return true
}

// TestUnitDir: with --unit-dir the unit-file methods work on that
// directory, which outlives the command.
func TestUnitDir(t *testing.T) {
	dir := socketDir(t)
	units := filepath.Join(dir, "units")
	file := writeFile(t, "app.service", "[Service]\nType=oneshot\nExecStart=/bin/true\n[Install]\nWantedBy=multi-user.target\n")
	p, addrs := startProgram(t, 1, "--socket", filepath.Join(dir, "bus"), "--print-address",
		"--unit-dir", units, "--runtime-unit-dir", filepath.Join(dir, "run"))
	ctx := testContext(t)
	c, err := sdbus.Connect(ctx, addrs[0])
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	info, changes, err := c.EnableUnitFiles(ctx, []string{file}, 0)
	if err != nil || !info {
		t.Fatalf("EnableUnitFiles = %v, %v, %v", info, changes, err)
	}
	want := []sdbus.UnitFileChange{
		{Type: sdbus.UnitFileSymlink, Filename: filepath.Join(units, "app.service"), Destination: file},
		{Type: sdbus.UnitFileSymlink, Filename: filepath.Join(units, "multi-user.target.wants", "app.service"), Destination: file},
	}
	if diff := cmp.Diff(want, changes); diff != "" {
		t.Errorf("changes (-want +got):\n%s", diff)
	}
	c.Close()
	if code, _ := p.stop(syscall.SIGTERM); code != 0 {
		t.Errorf("exit %d; stderr: %s", code, p.stderr)
	}
	if target, err := os.Readlink(filepath.Join(units, "multi-user.target.wants", "app.service")); err != nil || target != file {
		t.Errorf("after exit: symlink to %q, %v; want it kept, to %s", target, err, file)
	}
}

// TestTraceNotes: with --trace the fake notes which script rule matched a
// job, the conflict of a rule with a transient unit's commands, and the
// settings it keeps without acting on them; without --trace only the
// conflict is written, as a warning.
func TestTraceNotes(t *testing.T) {
	for _, trace := range []bool{true, false} {
		t.Run(fmt.Sprintf("trace=%v", trace), func(t *testing.T) {
			script := writeFile(t, "script.json", `{"scripts": [{"pattern": "web.service", "delay": "10ms"}, {"pattern": "t-*.service", "results": ["failed"]}]}`)
			dir := socketDir(t)
			units := filepath.Join(dir, "units")
			if err := os.MkdirAll(units, 0o755); err != nil {
				t.Fatal(err)
			}
			file := filepath.Join(units, "web.service")
			if err := os.WriteFile(file, []byte("[Unit]\nAfter=network.target\n[Service]\nExecStart=/usr/bin/web\nUser=www\nBogus=1\n[X-Vendor]\nA=b\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			args := []string{"--socket", filepath.Join(dir, "bus"), "--print-address", "--unit-dir", units, "--script", script}
			if trace {
				args = append(args, "--trace")
			}
			p, addrs := startProgram(t, 1, args...)
			ctx := testContext(t)
			c, err := sdbus.Connect(ctx, addrs[0])
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			web, err := c.StartUnit(ctx, "web.service", sdbus.ModeReplace)
			if err != nil {
				t.Fatal(err)
			}
			if r, err := web.Wait(ctx); r != sdbus.JobDone {
				t.Errorf("web.service: %s, %v; want done", r, err)
			}
			j, err := c.StartTransientUnit(ctx, "t-1.service", sdbus.ModeReplace, []sdbus.Property{
				sdbus.PropType(sdbus.ServiceOneshot), sdbus.PropExecStart([]string{"/bin/true"}, false), sdbus.PropMemoryMax(1 << 30)})
			if err != nil {
				t.Fatal(err)
			}
			if r, _ := j.Wait(ctx); r != sdbus.JobFailed {
				t.Errorf("t-1.service: %s; want failed, as scripted", r)
			}
			c.Close()
			if code, _ := p.stop(syscall.SIGTERM); code != 0 {
				t.Errorf("exit %d; stderr: %s", code, p.stderr)
			}
			stderr := p.stderr.String()
			if !trace {
				want := fmt.Sprintf(`fakesystemd: warning: %s: scripts[1].results[0]: "failed" contradicts unit t-1.service: with ExecStart=/bin/true (Type=oneshot) its start job %d succeeds; the script wins`+"\n", script, j.ID())
				if diff := cmp.Diff(want, stderr); diff != "" {
					t.Errorf("stderr (-want +got):\n%s", diff)
				}
				return
			}
			var notes []string
			for _, l := range strings.Split(strings.TrimSuffix(stderr, "\n"), "\n") {
				if !traceRE.MatchString(l) {
					t.Errorf("not a trace line: %q", l)
				}
				if strings.HasPrefix(l, "== ") {
					notes = append(notes, l)
				}
			}
			want := []string{
				fmt.Sprintf(`== settings unit="web.service" from=%q stored=After ignored=Service.Bogus,X-Vendor.A`, file),
				fmt.Sprintf(`== script unit="web.service" job=%d job_type=start rule=scripts[0] pattern="web.service" step=- result=- delay=10ms`, web.ID()),
				`== settings unit="t-1.service" from="StartTransientUnit" stored=MemoryMax`,
				fmt.Sprintf(`== script unit="t-1.service" job=%d job_type=start rule=scripts[1] pattern="t-*.service" step=results[0] result=failed`, j.ID()),
				fmt.Sprintf(`== conflict unit="t-1.service" job=%d job_type=start rule=scripts[1] pattern="t-*.service" step=results[0] result=failed outcome=succeeds command="ExecStart=/bin/true" service_type=oneshot`, j.ID()),
			}
			if diff := cmp.Diff(want, notes); diff != "" {
				t.Errorf("notes (-want +got):\n%s\ntrace:\n%s", diff, stderr)
			}
		})
	}
}

// TestTraceLimit: a client that passes a limit is disconnected with a
// note in the trace, and another client carries on.
func TestTraceLimit(t *testing.T) {
	dir := socketDir(t)
	bus := filepath.Join(dir, "bus")
	p, addrs := startProgram(t, 1, "--socket", bus, "--print-address", "--trace", "--limit", "max_message_size=1KiB")
	ctx := testContext(t)
	c, err := sdbus.Connect(ctx, addrs[0])
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	hostile, err := net.Dial("unix", bus)
	if err != nil {
		t.Fatal(err)
	}
	defer hostile.Close()
	// Authenticate, then announce a 1 MiB message.
	hdr := []byte{'l', 1, 0, 1, 0, 0, 0x10, 0, 1, 0, 0, 0, 0, 0, 0, 0}
	if _, err := hostile.Write(append([]byte("\x00AUTH EXTERNAL\r\nDATA\r\nBEGIN\r\n"), hdr...)); err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadAll(hostile); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Version(ctx); err != nil {
		t.Errorf("the other client: %v", err)
	}
	c.Close()
	if code, _ := p.stop(syscall.SIGTERM); code != 0 {
		t.Errorf("exit %d; stderr: %s", code, p.stderr)
	}
	var notes []string
	for _, l := range strings.Split(strings.TrimSuffix(p.stderr.String(), "\n"), "\n") {
		if !traceRE.MatchString(l) {
			t.Errorf("not a trace line: %q", l)
		}
		if strings.HasPrefix(l, "== ") {
			notes = append(notes, l)
		}
	}
	want := []string{fmt.Sprintf("== limit client=- pid=%d limit=max_message_size value=%d max=1024", os.Getpid(), 16+1<<20)}
	if diff := cmp.Diff(want, notes); diff != "" {
		t.Errorf("notes (-want +got):\n%s\ntrace:\n%s", diff, p.stderr)
	}
}
