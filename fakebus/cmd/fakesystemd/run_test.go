package main

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// runResult is what a fakesystemd run command gave.
type runResult struct {
	code           int
	stdout, stderr string
}

// runProgram runs the program with args, as the user setpriv names in
// asUser (nil: the test's user), and returns its exit status and output.
func runProgram(t *testing.T, asUser []string, args ...string) runResult {
	t.Helper()
	c := programCmd(t, args...)
	if asUser != nil {
		c = exec.Command(asUser[0], append(append(asUser[1:], c.Path), args...)...)
		c.Dir = os.TempDir()
	}
	var stdout, stderr strings.Builder
	c.Stdout, c.Stderr = &stdout, &stderr
	err := c.Run()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatalf("%v: %v", args, err)
	}
	return runResult{c.ProcessState.ExitCode(), stdout.String(), stderr.String()}
}

// skipWithoutNamespaces skips the test where the kernel refuses run its
// namespaces, or where the user cannot run the program.
func skipWithoutNamespaces(t *testing.T, asUser []string) {
	t.Helper()
	r := runProgram(t, asUser, "run", "--", "true")
	if r.code != 0 {
		if strings.Contains(r.stderr, "the kernel refuses") {
			t.Skipf("fakesystemd run needs namespaces: %s", r.stderr)
		}
		t.Fatalf("fakesystemd run -- true: status %d, stderr %q", r.code, r.stderr)
	}
}

// hostState is a digest of the host's systemd directories and mounts:
// every path, type, size, mode and modification time below them, and
// the mount table.
func hostState(t *testing.T) string {
	t.Helper()
	h := sha256.New()
	for _, dir := range []string{"/etc/systemd", "/run/systemd", "/run/dbus", "/usr/lib/systemd/system", "/lib/systemd/system", "/usr/local/lib/systemd"} {
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				fmt.Fprintf(h, "%s: %v\n", p, err)
				return nil
			}
			if fi, err := d.Info(); err == nil {
				fmt.Fprintf(h, "%s %v %d %v\n", p, fi.Mode(), fi.Size(), fi.ModTime().UnixNano())
			}
			return nil
		})
	}
	mounts, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		t.Fatal(err)
	}
	h.Write(mounts)
	return fmt.Sprintf("%x", h.Sum(nil))
}

// unprivileged is setpriv's command line that runs a program as nobody,
// or nil when the tests cannot switch users.
func unprivileged(t *testing.T) []string {
	t.Helper()
	if os.Geteuid() != 0 {
		return nil
	}
	setpriv, err := exec.LookPath("setpriv")
	if err != nil {
		return nil
	}
	// nobody must reach the program.
	if err := os.Chmod(filepath.Dir(program(t)), 0o755); err != nil {
		t.Fatal(err)
	}
	return []string{setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", "env", "HOME=/", "TMPDIR=" + os.TempDir()}
}

// TestRunSystemctl runs systemctl's unit-file and unit commands inside
// fakesystemd run, as root and as nobody (with --allow-unprivileged:
// nobody may not start units otherwise, TestRunUnprivilegedAccess): they
// reach the fake, the paths they print are the ones systemd prints, and
// the host's unit directories and mounts do not change.
func TestRunSystemctl(t *testing.T) {
	if _, err := exec.LookPath("systemctl"); err != nil {
		t.Skip("no systemctl")
	}
	const script = `set -e
printf '[Service]\nExecStart=/bin/sleep infinity\n[Install]\nWantedBy=multi-user.target\n' >/etc/systemd/system/run-test.service
systemctl daemon-reload
systemctl enable run-test.service 2>&1
echo "is-enabled: $(systemctl is-enabled run-test.service)"
systemctl list-unit-files --no-legend run-test.service
test -L /etc/systemd/system/multi-user.target.wants/run-test.service && echo "wants link: yes"
systemctl start run-test.service
echo "is-active: $(systemctl is-active run-test.service)"
test -d /sys/fs/cgroup/system.slice/run-test.service && echo "cgroup: yes"
systemctl stop run-test.service
systemctl disable run-test.service 2>&1
echo "is-enabled: $(systemctl is-enabled run-test.service || true)"
test -S /run/dbus/system_bus_socket && test -S /run/systemd/private && test -d /run/systemd/system && echo "sockets: yes"
echo "uid: $(id -u)"
exit 7
`
	type user struct {
		name  string
		as    []string
		uid   string
		flags []string
	}
	users := []user{{"caller", nil, fmt.Sprint(os.Geteuid()), nil}}
	if u := unprivileged(t); u != nil {
		users = append(users, user{"nobody", u, "65534", []string{"--allow-unprivileged"}})
	}
	for _, u := range users {
		t.Run(u.name, func(t *testing.T) {
			skipWithoutNamespaces(t, u.as)
			before := hostState(t)
			args := append(append([]string{"run"}, u.flags...), "--", "sh", "-c", script)
			r := runProgram(t, u.as, args...)
			want := runResult{code: 7, stdout: `Created symlink /etc/systemd/system/multi-user.target.wants/run-test.service → /etc/systemd/system/run-test.service.
is-enabled: enabled
run-test.service enabled enabled
wants link: yes
is-active: active
cgroup: yes
Removed "/etc/systemd/system/multi-user.target.wants/run-test.service".
is-enabled: disabled
sockets: yes
uid: ` + u.uid + "\n"}
			if diff := cmp.Diff(want, r, cmp.AllowUnexported(runResult{})); diff != "" {
				t.Errorf("fakesystemd run -- sh -c SCRIPT (-want +got):\n%s", diff)
			}
			if after := hostState(t); after != before {
				t.Errorf("the host's unit directories or mounts changed")
			}
			if _, err := os.Lstat("/etc/systemd/system/run-test.service"); err == nil {
				t.Errorf("/etc/systemd/system/run-test.service exists on the host")
			}
		})
	}
}

// TestRunUnprivilegedAccess runs systemctl inside fakesystemd run as
// nobody, without --allow-unprivileged: what changes something is refused
// and reads are answered, as systemd 252 answers nobody (measured in
// scripts/sandbox with the same commands: "Reload daemon failed: Access
// denied", "Failed to enable unit: Access denied", "Failed to start
// run-test.service: Access denied"); with --polkit as 252 with polkitd 122
// and no agent answers ("Interactive authentication required.", and
// systemctl start's status 1 instead of 4).
func TestRunUnprivilegedAccess(t *testing.T) {
	if _, err := exec.LookPath("systemctl"); err != nil {
		t.Skip("no systemctl")
	}
	as := unprivileged(t)
	if as == nil {
		t.Skip("needs root and setpriv to run as nobody")
	}
	skipWithoutNamespaces(t, as)
	const script = `printf '[Service]\nExecStart=/bin/sleep infinity\n[Install]\nWantedBy=multi-user.target\n' >/etc/systemd/system/run-test.service
systemctl daemon-reload 2>&1; echo "rc $?"
systemctl enable run-test.service 2>&1; echo "rc $?"
systemctl start run-test.service 2>&1; echo "rc $?"
echo "is-active: $(systemctl is-active run-test.service)"
systemctl list-unit-files --no-legend run-test.service
`
	tests := []struct {
		flags  []string
		stdout string
	}{
		{nil, `Reload daemon failed: Access denied
rc 1
Failed to enable unit: Access denied
rc 1
Failed to start run-test.service: Access denied
See system logs and 'systemctl status run-test.service' for details.
rc 4
is-active: inactive
run-test.service disabled enabled
`},
		{[]string{"--polkit"}, `Reload daemon failed: Interactive authentication required.
rc 1
Failed to enable unit: Interactive authentication required.
rc 1
Failed to start run-test.service: Interactive authentication required.
See system logs and 'systemctl status run-test.service' for details.
rc 1
is-active: inactive
run-test.service disabled enabled
`},
	}
	for _, tt := range tests {
		t.Run(strings.Join(append([]string{"run"}, tt.flags...), " "), func(t *testing.T) {
			args := append(append([]string{"run"}, tt.flags...), "--", "sh", "-c", script)
			r := runProgram(t, as, args...)
			want := runResult{code: 0, stdout: tt.stdout}
			if diff := cmp.Diff(want, r, cmp.AllowUnexported(runResult{})); diff != "" {
				t.Errorf("fakesystemd %s -- sh -c SCRIPT as nobody (-want +got):\n%s", strings.Join(tt.flags, " "), diff)
			}
		})
	}
}

// TestRunStatus checks run's exit statuses and one-line errors.
func TestRunStatus(t *testing.T) {
	skipWithoutNamespaces(t, nil)
	tests := []struct {
		name       string
		args       []string
		code       int
		stderrPart string
	}{
		{"CMD's status", []string{"run", "--", "sh", "-c", "exit 3"}, 3, ""},
		{"killed by a signal", []string{"run", "--", "sh", "-c", "kill -9 $$"}, 128 + 9, ""},
		{"not found", []string{"run", "--", "no-such-command-here"}, 127, `fakesystemd: run: exec: "no-such-command-here": executable file not found in $PATH`},
		{"no command", []string{"run", "--trace"}, 125, "fakesystemd: run: no command"},
		{"refused flag", []string{"run", "--socket", "/tmp/x", "--", "true"}, 125, "--socket is not for run"},
		{"bad serve flag", []string{"run", "--version", "x", "--", "true"}, 125, `invalid --version "x"`},
		{"bad script", []string{"run", "--script", "/nonexistent.json", "--", "true"}, 125, "fakesystemd: run: script: open /nonexistent.json"},
		{"environment", []string{"run", "--", "sh", "-c", `test "$DBUS_SYSTEM_BUS_ADDRESS" = unix:path=/run/dbus/system_bus_socket && test -z "$FAKESYSTEMD_RUN_INIT"`}, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runProgram(t, nil, tt.args...)
			if r.code != tt.code || !strings.Contains(r.stderr, tt.stderrPart) || (tt.stderrPart == "" && r.stderr != "") {
				t.Errorf("fakesystemd %q: status %d, stderr %q; want %d, stderr with %q", tt.args, r.code, r.stderr, tt.code, tt.stderrPart)
			}
			if tt.stderrPart != "" && strings.Count(r.stderr, "\n") != 1 {
				t.Errorf("stderr is not one line: %q", r.stderr)
			}
		})
	}
}

// TestRunTraceLog sends the trace to a file.
func TestRunTraceLog(t *testing.T) {
	skipWithoutNamespaces(t, nil)
	if _, err := exec.LookPath("busctl"); err != nil {
		t.Skip("no busctl")
	}
	log := filepath.Join(t.TempDir(), "trace.log")
	r := runProgram(t, nil, "run", "--trace", "--log", log, "--", "busctl", "get-property", "org.freedesktop.systemd1", "/org/freedesktop/systemd1", "org.freedesktop.systemd1.Manager", "Version")
	if r.code != 0 || r.stderr != "" || !strings.HasPrefix(r.stdout, `s "`) {
		t.Fatalf("busctl get-property Version: %+v", r)
	}
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "call org.freedesktop.DBus.Properties.Get /org/freedesktop/systemd1") {
		t.Errorf("the log has no Properties.Get call:\n%s", data)
	}
}

// TestRunRefused runs fakesystemd run where the kernel refuses both
// namespaces: as root without capabilities in a user namespace whose
// user.max_user_namespaces is 0.
func TestRunRefused(t *testing.T) {
	unshare, err1 := exec.LookPath("unshare")
	setpriv, err2 := exec.LookPath("setpriv")
	if err1 != nil || err2 != nil {
		t.Skip("needs unshare and setpriv")
	}
	inner := fmt.Sprintf("echo 0 >/proc/sys/user/max_user_namespaces || exit 99; exec %s --bounding-set=-all --inh-caps=-all %s run -- true", setpriv, program(t))
	c := exec.Command(unshare, "--user", "--map-root-user", "sh", "-c", inner)
	var stdout, stderr strings.Builder
	c.Stdout, c.Stderr = &stdout, &stderr
	c.Run()
	if code := c.ProcessState.ExitCode(); code == 99 || strings.Contains(stderr.String(), "unshare:") {
		t.Skipf("cannot make the refusing user namespace: %s", stderr.String())
	}
	want := "fakesystemd: run: the kernel refuses the namespaces CMD needs (a mount namespace: operation not permitted; a user and mount namespace: no space left on device); see user.max_user_namespaces and kernel.unprivileged_userns_clone\n"
	if diff := cmp.Diff(want, stderr.String()); diff != "" || c.ProcessState.ExitCode() != exitRunFailed {
		t.Errorf("status %d, stderr (-want +got):\n%s", c.ProcessState.ExitCode(), diff)
	}
}

// TestShadow runs shadow and makeShadowDir in a mount namespace of the
// test's own (the test binary started again under unshare): a directory
// that does not exist is made in a tmpfs over its nearest parent, the
// parent's entries are all still there (files, directories, symlinks),
// hidden ones are gone, and outside the namespace nothing changed.
func TestShadow(t *testing.T) {
	if dir := os.Getenv("FAKESYSTEMD_TEST_SHADOW"); dir != "" {
		// The child, in its own mount namespace.
		if err := makeShadowDir(filepath.Join(dir, "parent", "new", "deeper")); err != nil {
			t.Fatal(err)
		}
		if err := shadow(filepath.Join(dir, "other"), "hidden"); err != nil {
			t.Fatal(err)
		}
		var got []string
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				t.Error(err)
				return nil
			}
			rel, _ := filepath.Rel(dir, p)
			if d.Type()&fs.ModeSymlink != 0 {
				target, _ := os.Readlink(p)
				rel += " -> " + target
			} else if !d.IsDir() {
				data, _ := os.ReadFile(p)
				rel += " = " + string(data)
			}
			got = append(got, rel)
			return nil
		})
		want := []string{".", "other", "other/kept = k", "parent", "parent/file = f", "parent/link -> file", "parent/new", "parent/new/deeper", "parent/sub", "parent/sub/inner = i"}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("inside the namespace (-want +got):\n%s", diff)
		}
		return
	}
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		t.Skip("no unshare")
	}
	dir := t.TempDir()
	for _, d := range []string{"parent/sub", "other/hidden"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for f, data := range map[string]string{"parent/file": "f", "parent/sub/inner": "i", "other/kept": "k", "other/hidden/x": "h"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("file", filepath.Join(dir, "parent/link")); err != nil {
		t.Fatal(err)
	}
	flags := []string{"--mount", "--propagation", "slave"}
	if os.Geteuid() != 0 {
		flags = append([]string{"--user", "--map-root-user"}, flags...)
	}
	c := exec.Command(unshare, append(flags, os.Args[0], "-test.run=^TestShadow$", "-test.v")...)
	c.Env = append(os.Environ(), "FAKESYSTEMD_TEST_SHADOW="+dir)
	out, err := c.CombinedOutput()
	if strings.Contains(string(out), "unshare failed") {
		t.Skipf("no mount namespace: %s", out)
	}
	if err != nil || !strings.Contains(string(out), "--- PASS: TestShadow") {
		t.Fatalf("in the namespace: %v\n%s", err, out)
	}
	// Outside, nothing changed.
	if _, err := os.Stat(filepath.Join(dir, "parent/new")); err == nil {
		t.Errorf("parent/new exists outside the namespace")
	}
	if data, err := os.ReadFile(filepath.Join(dir, "other/hidden/x")); err != nil || string(data) != "h" {
		t.Errorf("other/hidden/x outside the namespace: %q, %v", data, err)
	}
}

// TestRunSignalDispositions checks that CMD starts with the signal
// dispositions a command started directly has: run catches SIGINT, and
// must not leave it ignored in CMD, as Ctrl-C would then not stop CMD;
// and a signal ignored by run's caller (nohup's SIGHUP) stays ignored in
// CMD, as nohup promises.
func TestRunSignalDispositions(t *testing.T) {
	skipWithoutNamespaces(t, nil)
	const cmd = `grep -E '^Sig(Ign|Blk):' /proc/self/status`
	users := [][]string{nil}
	if u := unprivileged(t); u != nil {
		users = append(users, u)
	}
	for _, prefix := range [][]string{nil, {"nohup"}} {
		argv := append(append([]string(nil), prefix...), "sh", "-c", cmd)
		direct, err := exec.Command(argv[0], argv[1:]...).Output()
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range users {
			as := append(append([]string(nil), u...), prefix...)
			if len(as) == 0 {
				as = nil
			}
			r := runProgram(t, as, "run", "--", "sh", "-c", cmd)
			if diff := cmp.Diff(string(direct), r.stdout); diff != "" || r.code != 0 {
				t.Errorf("as %v: status %d, stderr %q, dispositions in run (-direct +run):\n%s", as, r.code, r.stderr, diff)
			}
		}
	}
}
