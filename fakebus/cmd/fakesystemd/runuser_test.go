package main

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The wanted outputs below are those of systemd 252's user manager
// (252.38-1~deb12u1), measured in scripts/sandbox with --user 0 --user
// 2000, running the same scripts as root (HOME=/root) and as uid 2000
// (HOME=/home/sdbus-u2000) with XDG_RUNTIME_DIR=/run/user/UID; HOME and
// UID stand for the home directory and the uid.

// userSystemctlScript drives systemctl --user's unit-file and unit
// commands on a unit file in the fake's unit directory.
const userSystemctlScript = `set -e
u=$HOME/.config/systemd/user
printf '[Service]\nExecStart=/bin/sleep infinity\n[Install]\nWantedBy=default.target\n' >$u/run-test.service
echo "is-system-running: $(systemctl --user is-system-running)"
systemctl --user show -p ControlGroup
systemctl --user daemon-reload
systemctl --user enable run-test.service 2>&1
echo "is-enabled: $(systemctl --user is-enabled run-test.service)"
systemctl --user list-unit-files --no-legend run-test.service
echo "wants link: $(readlink $u/default.target.wants/run-test.service)"
systemctl --user start run-test.service
echo "is-active: $(systemctl --user is-active run-test.service)"
test -d /sys/fs/cgroup/user.slice/user-$(id -u).slice/user@$(id -u).service/app.slice/run-test.service && echo "cgroup: yes"
systemctl --user show -p Slice -p ControlGroup -p FragmentPath -p UnitFileState run-test.service
systemctl --user status --no-pager run-test.service | sed -n 's/^ *\(Loaded\|CGroup\): /\1: /p'
systemctl --user stop run-test.service
systemctl --user disable run-test.service 2>&1
echo "is-enabled: $(systemctl --user is-enabled run-test.service || true)"
exit 7
`

const userSystemctlWant = `is-system-running: running
ControlGroup=/user.slice/user-UID.slice/user@UID.service
Created symlink HOME/.config/systemd/user/default.target.wants/run-test.service → HOME/.config/systemd/user/run-test.service.
is-enabled: enabled
run-test.service enabled enabled
wants link: HOME/.config/systemd/user/run-test.service
is-active: active
cgroup: yes
Slice=app.slice
ControlGroup=/user.slice/user-UID.slice/user@UID.service/app.slice/run-test.service
FragmentPath=HOME/.config/systemd/user/run-test.service
UnitFileState=enabled
Loaded: loaded (HOME/.config/systemd/user/run-test.service; enabled; preset: enabled)
CGroup: /user.slice/user-UID.slice/user@UID.service/app.slice/run-test.service
Removed "HOME/.config/systemd/user/default.target.wants/run-test.service".
is-enabled: disabled
`

// userRunScript drives systemd-run --user (a scope, a service with a
// property) and busctl --user.
const userRunScript = `set -e
systemd-run --user --scope -- true 2>&1 | sed 's/run-r[0-9a-f]\{32\}\.scope$/run-rRANDOM.scope/'
systemd-run --user --scope --unit run-scope-test -- systemctl --user show -p Slice -p ControlGroup -p ActiveState run-scope-test.scope 2>&1
systemd-run --user --unit run-sleep -p MemoryMax=100M sleep 60 2>&1
systemctl --user show -p Slice -p ControlGroup -p MemoryMax -p ActiveState run-sleep.service
systemctl --user stop run-sleep.service
echo "is-active: $(systemctl --user is-active run-sleep.service || true)"
busctl --user get-property org.freedesktop.systemd1 /org/freedesktop/systemd1 org.freedesktop.systemd1.Manager ControlGroup
busctl --user get-property org.freedesktop.systemd1 /org/freedesktop/systemd1 org.freedesktop.systemd1.Manager Version
busctl --user call org.freedesktop.systemd1 /org/freedesktop/systemd1 org.freedesktop.systemd1.Manager GetUnit s app.slice
busctl --user call org.freedesktop.systemd1 /org/freedesktop/systemd1 org.freedesktop.systemd1.Manager StartTransientUnit 'ssa(sv)a(sa(sv))' pid1.scope replace 1 PIDs au 1 1 0 2>&1 || echo "status $?"
systemctl --user start no-such-unit.service 2>&1 || echo "status $?"
`

const userRunWant = `Running scope as unit: run-rRANDOM.scope
Running scope as unit: run-scope-test.scope
Slice=app.slice
ControlGroup=/user.slice/user-UID.slice/user@UID.service/app.slice/run-scope-test.scope
ActiveState=active
Running as unit: run-sleep.service
Slice=app.slice
ControlGroup=/user.slice/user-UID.slice/user@UID.service/app.slice/run-sleep.service
MemoryMax=104857600
ActiveState=active
is-active: inactive
s "/user.slice/user-UID.slice/user@UID.service"
s "252.38-1~deb12u1"
o "/org/freedesktop/systemd1/unit/app_2eslice"
Call failed: Process 1 is a manager process, refusing.
status 1
Failed to start no-such-unit.service: Unit no-such-unit.service not found.
status 5
`

// userEnvScript prints what CMD finds of the fake's layout: its
// environment, the runtime directory and sockets, the unit directories,
// the hidden vendor directories and sd_booted()'s mark.
const userEnvScript = `echo "XDG_RUNTIME_DIR=$XDG_RUNTIME_DIR"
echo "DBUS_SESSION_BUS_ADDRESS=$DBUS_SESSION_BUS_ADDRESS"
echo "DBUS_SYSTEM_BUS_ADDRESS=${DBUS_SYSTEM_BUS_ADDRESS-unset}"
echo "runtime dir: $(stat -c '%a %u' "$XDG_RUNTIME_DIR")"
test -S "$XDG_RUNTIME_DIR/bus" && test -S "$XDG_RUNTIME_DIR/systemd/private" && echo "sockets: yes"
test -d "$XDG_RUNTIME_DIR/systemd/user" && test -d "$HOME/.config/systemd/user" && echo "unit dirs: yes"
for d in /usr/lib/systemd/user /etc/systemd/user; do test ! -d $d || test -z "$(ls -A $d)" || echo "$d: not empty"; done
test -d /run/systemd/system && echo "sd_booted: yes"
echo "uid: $(id -u)"
`

const userEnvWant = `XDG_RUNTIME_DIR=/run/user/UID
DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/UID/bus
DBUS_SYSTEM_BUS_ADDRESS=SYSTEMBUS
runtime dir: 700 UID
sockets: yes
unit dirs: yes
sd_booted: yes
uid: UID
`

// runUser is one user fakesystemd run --user is run as: setpriv's command
// line (nil: the test's user), its uid and its home directory.
type runUser struct {
	name string
	as   []string
	uid  int
	home string
}

// ownedDir makes a directory owned by uid that every user can reach,
// removed when the test ends.
func ownedDir(t *testing.T, uid int) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "fakesystemd-user-test")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() == 0 && uid != 0 {
		if err := os.Chown(dir, uid, uid); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// runUsers are the test's user with its home directory ($HOME, or a
// temporary one if $HOME cannot be used), and nobody with a temporary
// home when the test can switch users: the path through a user
// namespace.
func runUsers(t *testing.T) []runUser {
	t.Helper()
	caller := runUser{name: "caller", uid: os.Geteuid()}
	if home, err := userHome(); err == nil {
		caller.home = home
	} else {
		caller.home = ownedDir(t, caller.uid)
		caller.as = []string{"env", "HOME=" + caller.home}
	}
	users := []runUser{caller}
	if u := unprivileged(t); u != nil {
		home := ownedDir(t, 65534)
		users = append(users, runUser{"nobody", append(u, "HOME="+home), 65534, home})
	}
	return users
}

// userHostState lists what run --user must leave alone on the host: the
// user's systemd directories below home, the runtime and systemd
// directories of /run, the unit directories and the mount table.
func userHostState(t *testing.T, home string) string {
	t.Helper()
	h := new(strings.Builder)
	dirs := []string{filepath.Join(home, ".config", "systemd"), filepath.Join(home, ".local", "share", "systemd"), "/run/user", "/run/systemd", "/run/dbus", "/etc/systemd", "/usr/lib/systemd/user"}
	for _, dir := range dirs {
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
	// The home directory's own entries, not their contents (other
	// programs write there while the tests run).
	entries, _ := os.ReadDir(home)
	for _, e := range entries {
		fmt.Fprintf(h, "%s %v\n", e.Name(), e.Type())
	}
	mounts, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		t.Fatal(err)
	}
	h.Write(mounts)
	return h.String()
}

// expand replaces HOME and UID in want with u's.
func (u runUser) expand(want string) string {
	return strings.NewReplacer("HOME", u.home, "UID", fmt.Sprint(u.uid)).Replace(want)
}

// TestRunUser runs systemctl --user, systemd-run --user and busctl --user
// inside fakesystemd run --user, as the test's user and as nobody: they
// reach the fake as the user manager and print what systemd 252's user
// manager prints (the paths below HOME/.config/systemd/user, the control
// groups below user@UID.service/app.slice), enable and is-enabled are
// answered by the fake (not done client-side), and the host's home,
// runtime and unit directories and mounts do not change.
func TestRunUser(t *testing.T) {
	for _, tool := range []string{"systemctl", "systemd-run", "busctl"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s", tool)
		}
	}
	tests := []struct {
		name, script, want string
		code               int
	}{
		{"systemctl", userSystemctlScript, userSystemctlWant, 7},
		{"systemd-run and busctl", userRunScript, userRunWant, 0},
		{"environment", userEnvScript, userEnvWant, 0},
	}
	for _, u := range runUsers(t) {
		t.Run(u.name, func(t *testing.T) {
			skipWithoutNamespaces(t, u.as)
			systemBus, ok := os.LookupEnv("DBUS_SYSTEM_BUS_ADDRESS")
			if !ok {
				systemBus = "unset"
			}
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					before := userHostState(t, u.home)
					homeBefore, _ := os.ReadDir(u.home)
					log := filepath.Join(ownedDir(t, u.uid), "trace.log")
					r := runProgram(t, u.as, "run", "--user", "--trace", "--log", log, "--", "sh", "-c", tt.script)
					want := runResult{code: tt.code, stdout: strings.ReplaceAll(u.expand(tt.want), "SYSTEMBUS", systemBus)}
					if diff := cmp.Diff(want, r, cmp.AllowUnexported(runResult{})); diff != "" {
						t.Errorf("fakesystemd run --user -- sh -c SCRIPT (-want +got):\n%s", diff)
					}
					if tt.name == "systemctl" {
						// With no /run/systemd/system, systemctl would
						// enable the unit itself and print the same.
						data, err := os.ReadFile(log)
						if err != nil {
							t.Fatal(err)
						}
						for _, m := range []string{"EnableUnitFiles", "GetUnitFileState", "DisableUnitFiles"} {
							if !strings.Contains(string(data), "call org.freedesktop.systemd1.Manager."+m+" ") {
								t.Errorf("the fake was not asked %s", m)
							}
						}
					}
					if diff := cmp.Diff(before, userHostState(t, u.home)); diff != "" {
						t.Errorf("the host's home, runtime or unit directories or mounts changed (-before +after):\n%s", diff)
					}
					homeAfter, _ := os.ReadDir(u.home)
					if diff := cmp.Diff(entryNames(homeBefore), entryNames(homeAfter)); diff != "" {
						t.Errorf("%s changed (-before +after):\n%s", u.home, diff)
					}
				})
			}
		})
	}
}

func entryNames(entries []os.DirEntry) []string {
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// TestRunUserErrors checks run --user's refusals: another user's manager,
// and a home directory it cannot use.
func TestRunUserErrors(t *testing.T) {
	skipWithoutNamespaces(t, nil)
	other := fmt.Sprint(os.Geteuid() + 1)
	tests := []struct {
		name   string
		home   string
		args   []string
		stderr string
	}{
		{"another uid", "", []string{"run", "--user=" + other, "--", "true"},
			fmt.Sprintf("fakesystemd: run: --user=%s: run plays the caller's user manager (uid %d); run it as uid %s (see fakesystemd run -h)\n", other, os.Geteuid(), other)},
		{"HOME is /", "/", []string{"run", "--user", "--", "true"},
			"fakesystemd: run: --user: HOME is \"/\": want an existing directory other than /\n"},
		{"HOME is relative", "home", []string{"run", "--user", "--", "true"},
			"fakesystemd: run: --user: HOME is \"home\": want the absolute path of the caller's home directory\n"},
		{"HOME is missing", "/nonexistent/home", []string{"run", "--user", "--", "true"},
			"fakesystemd: run: --user: HOME is \"/nonexistent/home\": want an existing directory other than /\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var as []string
			if tt.home != "" {
				as = []string{"env", "HOME=" + tt.home}
			}
			r := runProgram(t, as, tt.args...)
			want := runResult{code: exitRunFailed, stderr: tt.stderr}
			if diff := cmp.Diff(want, r, cmp.AllowUnexported(runResult{})); diff != "" {
				t.Errorf("fakesystemd %q (-want +got):\n%s", tt.args, diff)
			}
		})
	}
}

// TestServeUser serves the fake with --user: the manager's ControlGroup,
// a transient scope's slice and control group, and app.slice are those
// systemd 252's user manager of the uid reports (measured for uids 0 and
// 2000) on the bus; systemctl --user finds the manager on the private
// socket in $XDG_RUNTIME_DIR/systemd; plain --user is the caller's uid.
func TestServeUser(t *testing.T) {
	busctlPath(t)
	tests := []struct {
		flag string
		uid  int
	}{
		{"--user=2000", 2000},
		{"--user=0", 0},
		{"--user", os.Geteuid()},
		{"-user=1000", 1000},
	}
	for _, tt := range tests {
		t.Run(tt.flag, func(t *testing.T) {
			dir := socketDir(t)
			if err := os.Mkdir(filepath.Join(dir, "systemd"), 0o755); err != nil {
				t.Fatal(err)
			}
			sock, priv := filepath.Join(dir, "bus"), filepath.Join(dir, "systemd", "private")
			p, addrs := startProgram(t, 2, "--socket", sock, "--private-socket", priv, tt.flag, "--print-address")
			manager := fmt.Sprintf("/user.slice/user-%d.slice/user@%d.service", tt.uid, tt.uid)
			type step struct {
				args []string
				want busctlResult
			}
			steps := []step{
				{[]string{"get-property", dest, mgrPath, mgr, "ControlGroup"},
					busctlResult{Stdout: fmt.Sprintf("s %q\n", manager)}},
				{[]string{"call", dest, mgrPath, mgr, "GetUnit", "s", "app.slice"},
					busctlResult{Stdout: "o \"/org/freedesktop/systemd1/unit/app_2eslice\"\n"}},
			}
			if tt.uid == os.Geteuid() {
				// A scope of the test's own process, as measured (another
				// user's process fails an unprivileged manager's scope).
				scope := "/org/freedesktop/systemd1/unit/run_2dscope_2dtest_2escope"
				steps = append(steps,
					step{[]string{"call", dest, mgrPath, mgr, "StartTransientUnit", "ssa(sv)a(sa(sv))", "run-scope-test.scope", "replace", "1", "PIDs", "au", "1", fmt.Sprint(os.Getpid()), "0"},
						busctlResult{Stdout: "o \"/org/freedesktop/systemd1/job/1\"\n"}},
					step{[]string{"get-property", dest, scope, "org.freedesktop.systemd1.Unit", "ActiveState"},
						busctlResult{Stdout: "s \"active\"\n"}},
					step{[]string{"get-property", dest, scope, "org.freedesktop.systemd1.Scope", "Slice", "ControlGroup"},
						busctlResult{Stdout: fmt.Sprintf("s \"app.slice\"\ns %q\n", manager+"/app.slice/run-scope-test.scope")}})
			}
			for _, s := range steps {
				if got := waitBusctl(t, addrs[0], s.want.Stdout, s.args...); !cmp.Equal(s.want, got) {
					t.Errorf("busctl %s (-want +got):\n%s", strings.Join(s.args, " "), cmp.Diff(s.want, got))
				}
			}
			// systemctl --user connects to $XDG_RUNTIME_DIR/systemd/private.
			if systemctl, err := exec.LookPath("systemctl"); err == nil {
				c := exec.Command(systemctl, "--user", "show", "-p", "ControlGroup")
				c.Env = append(os.Environ(), "XDG_RUNTIME_DIR="+dir, "DBUS_SESSION_BUS_ADDRESS=unix:path=/nonexistent")
				out, err := c.CombinedOutput()
				if diff := cmp.Diff("ControlGroup="+manager+"\n", string(out)); diff != "" || err != nil {
					t.Errorf("systemctl --user show -p ControlGroup: %v (-want +got):\n%s", err, diff)
				}
			}
			if code, rest := p.stop(syscall.SIGTERM); code != 0 || rest != "" {
				t.Errorf("after SIGTERM: exit %d, more stdout %q; stderr: %s", code, rest, p.stderr)
			}
		})
	}
}
