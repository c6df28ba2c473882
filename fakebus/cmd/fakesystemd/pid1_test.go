package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// skipWithoutPIDNamespace skips the test where run gets no PID namespace
// (the kernel refuses one: run then keeps the host's PID 1).
func skipWithoutPIDNamespace(t *testing.T, asUser []string) {
	t.Helper()
	skipWithoutNamespaces(t, asUser)
	if r := runProgram(t, asUser, "run", "--", "cat", "/proc/1/comm"); r.stdout != "systemd\n" {
		t.Skipf("fakesystemd run gets no PID namespace here: /proc/1/comm is %q, stderr %q", r.stdout, r.stderr)
	}
}

// TestRunPID1 runs CMD under fakesystemd run, as root and as nobody, and
// looks at its PID 1: named systemd with systemd's command line, in a PID
// namespace of its own whose processes /proc lists, init.scope's process
// for the fake (GetUnitByPID(1)), and reaping an orphaned grandchild of
// CMD that ends (no zombie is left). The PIDs the fake is given and
// those it reads from a connection are the namespace's: a scope
// systemd-run makes of its own PID holds the busctl that asks for the
// unit of its caller (GetUnitByPID(0), SO_PEERCRED).
func TestRunPID1(t *testing.T) {
	busctl, err := exec.LookPath("busctl")
	if err != nil {
		t.Skip("no busctl")
	}
	systemdRun, err := exec.LookPath("systemd-run")
	if err != nil {
		t.Skip("no systemd-run")
	}
	hostNS, err := os.Readlink("/proc/self/ns/pid")
	if err != nil {
		t.Skip(err)
	}
	script := fmt.Sprintf(`echo "comm: $(cat /proc/1/comm)"
echo "cmdline: $(tr '\0' ' ' </proc/1/cmdline)"
test "$(readlink /proc/self/ns/pid)" != %[1]q && echo "pid namespace: own"
test "$(awk '{print $4}' /proc/$$/stat)" = 1 && echo "parent: PID 1"
echo "unit of PID 1: $(%[2]s call org.freedesktop.systemd1 /org/freedesktop/systemd1 org.freedesktop.systemd1.Manager GetUnitByPID u 1)"
echo "unit of the caller in a scope: $(%[3]s --quiet --scope --unit=pid1-test %[2]s call org.freedesktop.systemd1 /org/freedesktop/systemd1 org.freedesktop.systemd1.Manager GetUnitByPID u 0)"
# The subshell exits at once: sleep, orphaned, is PID 1's child, and
# PID 1 must reap it when it ends.
orphan=$(sh -c 'sleep 0.2 >/dev/null 2>&1 & echo $!')
i=0
while [ -e /proc/$orphan ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done
if [ -e /proc/$orphan ]; then echo "orphan: state $(cut -d' ' -f3 /proc/$orphan/stat), parent $(cut -d' ' -f4 /proc/$orphan/stat)"; else echo "orphan: reaped"; fi
exit 3
`, hostNS, busctl, systemdRun)
	want := `comm: systemd
cmdline: /lib/systemd/systemd --system 
pid namespace: own
unit of PID 1: o "/org/freedesktop/systemd1/unit/init_2escope"
unit of the caller in a scope: o "/org/freedesktop/systemd1/unit/pid1_2dtest_2escope"
orphan: reaped
`
	users := []struct {
		name string
		as   []string
	}{{"caller", nil}}
	if u := unprivileged(t); u != nil {
		users = append(users, struct {
			name string
			as   []string
		}{"nobody", u})
	}
	for _, u := range users {
		t.Run(u.name, func(t *testing.T) {
			skipWithoutPIDNamespace(t, u.as)
			want := want
			if u.as == nil && os.Geteuid() == 0 {
				// As root the fake itself is PID 1, CMD its child; as
				// another user the serve step is between them.
				want = strings.Replace(want, "pid namespace: own\n", "pid namespace: own\nparent: PID 1\n", 1)
			}
			// nobody may start the scope: --allow-unprivileged.
			r := runProgram(t, u.as, "run", "--allow-unprivileged", "--", "sh", "-c", script)
			if diff := cmp.Diff(runResult{code: 3, stdout: want}, r, cmp.AllowUnexported(runResult{})); diff != "" {
				t.Errorf("fakesystemd run -- sh -c SCRIPT (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRunPID1Signals: in the PID namespace, SIGTERM sent to fakesystemd
// still reaches CMD through PID 1, run exits with CMD's status, and the
// processes CMD left behind end with the namespace.
func TestRunPID1Signals(t *testing.T) {
	skipWithoutPIDNamespace(t, nil)
	// A sleep no other process has: the one CMD leaves behind.
	marker := fmt.Sprintf("300.%d", time.Now().UnixNano()%1e9)
	p, lines := startProgram(t, 1, "run", "--", "sh", "-c",
		`trap 'echo TERM; exit 9' TERM; sleep `+marker+` & echo ready; while :; do sleep 0.05; done`)
	if diff := cmp.Diff([]string{"ready"}, lines); diff != "" {
		t.Fatalf("first line (-want +got):\n%s", diff)
	}
	code, rest := p.stop(syscall.SIGTERM)
	if diff := cmp.Diff([]any{9, "TERM\n"}, []any{code, rest}); diff != "" {
		t.Errorf("status and output after SIGTERM (-want +got):\n%s; stderr: %s", diff, p.stderr)
	}
	left := func() []string {
		var pids []string
		entries, _ := os.ReadDir("/proc")
		for _, e := range entries {
			b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
			if err == nil && bytes.Equal(b, []byte("sleep\x00"+marker+"\x00")) {
				pids = append(pids, e.Name())
			}
		}
		return pids
	}
	deadline := time.Now().Add(5 * time.Second)
	for len(left()) > 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if pids := left(); len(pids) > 0 {
		for _, pid := range pids {
			if n, err := strconv.Atoi(pid); err == nil {
				syscall.Kill(n, syscall.SIGKILL)
			}
		}
		t.Errorf("sleep %s, left behind by CMD, still runs after run exited: PIDs %v", marker, pids)
	}
}

// TestRunPIDFallback runs fakesystemd run where the kernel refuses a PID
// namespace (user.max_pid_namespaces 0, in a user namespace of the
// test's) and, as nobody, where it refuses a proc file system for one (a
// tmpfs over /proc/sys, made where nobody cannot undo it, hides part of
// /proc): run falls back to the host's PID 1 and /proc, silently, and CMD
// runs with its status kept.
func TestRunPIDFallback(t *testing.T) {
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		t.Skip("no unshare")
	}
	hostComm, err := os.ReadFile("/proc/1/comm")
	if err != nil {
		t.Skip(err)
	}
	const cmd = `run -- sh -c 'cat /proc/1/comm; exit 3'`
	tests := []struct {
		name  string
		setup func(t *testing.T) []string // the command line, "" to skip
	}{
		{"no PID namespace", func(t *testing.T) []string {
			return []string{unshare, "--user", "--map-root-user", "sh", "-c",
				"echo 0 >/proc/sys/user/max_pid_namespaces || exit 99; exec " + program(t) + " " + cmd}
		}},
		{"no proc for it", func(t *testing.T) []string {
			as := unprivileged(t)
			if as == nil {
				t.Skip("needs root and setpriv to run as nobody")
			}
			return []string{unshare, "--mount", "--propagation", "private", "sh", "-c",
				"mount -t tmpfs tmpfs /proc/sys || exit 99; exec " + strings.Join(as, " ") + " " + program(t) + " " + cmd}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			argv := tt.setup(t)
			c := exec.Command(argv[0], argv[1:]...)
			c.Dir = os.TempDir()
			var stdout, stderr strings.Builder
			c.Stdout, c.Stderr = &stdout, &stderr
			c.Run()
			code := c.ProcessState.ExitCode()
			if code == 99 || strings.Contains(stderr.String(), "unshare:") {
				t.Skipf("cannot make the refusing namespace: %s", stderr.String())
			}
			if strings.Contains(stderr.String(), "the kernel refuses") {
				t.Skipf("fakesystemd run needs namespaces: %s", stderr.String())
			}
			want := runResult{code: 3, stdout: string(hostComm)}
			if diff := cmp.Diff(want, runResult{code, stdout.String(), stderr.String()}, cmp.AllowUnexported(runResult{})); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestRunBootedUnits: under fakesystemd run the units of the system bus
// and of the journal read as on systemd 252 booted by scripts/sandbox
// with Debian's unit files (systemctl show, measured there): loaded,
// static, active and running, sockets too; sd_booted()'s
// /run/systemd/system is there.
func TestRunBootedUnits(t *testing.T) {
	if _, err := exec.LookPath("systemctl"); err != nil {
		t.Skip("no systemctl")
	}
	skipWithoutNamespaces(t, nil)
	units := []string{"dbus.service", "dbus.socket", "systemd-journald.service", "systemd-journald.socket",
		"systemd-journald-dev-log.socket", "systemd-journald-audit.socket"}
	var want strings.Builder
	for i, u := range units {
		if i > 0 {
			want.WriteString("\n")
		}
		fmt.Fprintf(&want, "Id=%s\nLoadState=loaded\nActiveState=active\nSubState=running\nUnitFileState=static\n", u)
	}
	want.WriteString("is-active: active active active\nbooted: yes\n")
	script := "systemctl show -p Id,LoadState,ActiveState,SubState,UnitFileState " + strings.Join(units, " ") + `
echo "is-active: $(systemctl is-active dbus.service dbus.socket systemd-journald.service | tr '\n' ' ' | sed 's/ $//')"
test -d /run/systemd/system && echo "booted: yes"
`
	r := runProgram(t, nil, "run", "--version", "252.38-1~deb12u1", "--", "sh", "-c", script)
	if diff := cmp.Diff(runResult{stdout: want.String()}, r, cmp.AllowUnexported(runResult{})); diff != "" {
		t.Errorf("fakesystemd run -- sh -c SCRIPT (-want +got):\n%s", diff)
	}
}
