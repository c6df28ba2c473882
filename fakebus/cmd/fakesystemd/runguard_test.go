package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestRunRefusesHostDirs: run refuses, before any namespace is made, a
// directory of the fake's that is the host's systemd or D-Bus directory,
// lies inside one or contains one, symlinks resolved (with the old code,
// --unit-dir /etc/systemd/system bound the host's directory into the
// namespace, where enable wrote to it). One line on stderr, status 125,
// and the host's directories as they were.
func TestRunRefusesHostDirs(t *testing.T) {
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink("/etc/systemd", link); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	vendor := "/lib/systemd" // /usr/lib/systemd where /lib is a symlink to usr/lib
	if r, err := filepath.EvalSymlinks(vendor); err == nil && r == "/usr/lib/systemd" {
		vendor = r
	}
	for _, tc := range []struct {
		name string
		args []string
		want string // stderr
	}{
		{"host unit directory", []string{"--unit-dir", "/etc/systemd/system"},
			"fakesystemd: run: --unit-dir /etc/systemd/system: is inside the host's /etc/systemd, which run mounts over: give a directory of your own\n"},
		{"runtime unit directory", []string{"--runtime-unit-dir", "/run/systemd/system"},
			"fakesystemd: run: --runtime-unit-dir /run/systemd/system: is inside the host's /run/systemd, which run mounts over: give a directory of your own\n"},
		{"vendor directory", []string{"--unit-dir=/lib/systemd/system"},
			"fakesystemd: run: --unit-dir /lib/systemd/system: is inside the host's " + vendor + ", which run mounts over: give a directory of your own\n"},
		{"through a symlink", []string{"--unit-dir", link + "/system"},
			"fakesystemd: run: --unit-dir " + link + "/system: is inside the host's /etc/systemd, which run mounts over: give a directory of your own\n"},
		{"a parent", []string{"--unit-dir", "/etc"},
			"fakesystemd: run: --unit-dir /etc: contains the host's /etc/systemd, which run mounts over: give a directory of your own\n"},
		{"the root", []string{"--runtime-unit-dir", "/"},
			"fakesystemd: run: --runtime-unit-dir /: contains the host's /etc/systemd, which run mounts over: give a directory of your own\n"},
		{"the cgroup file system", []string{"--cgroup-root", "/sys/fs/cgroup/fake"},
			"fakesystemd: run: --cgroup-root /sys/fs/cgroup/fake: is inside the host's /sys/fs/cgroup, which run mounts over: give a directory of your own\n"},
		{"the user's unit directory", []string{"--user", "--unit-dir", home + "/.config/systemd/user"},
			"fakesystemd: run: --unit-dir " + home + "/.config/systemd/user: is inside the host's " + home + "/.config/systemd, which run mounts over: give a directory of your own\n"},
		{"the user's home", []string{"--user", "--unit-dir", home},
			"fakesystemd: run: --unit-dir " + home + ": contains the host's " + home + "/.config/systemd, which run mounts over: give a directory of your own\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := hostState(t)
			c := programCmd(t, append(append([]string{"run"}, tc.args...), "--", "true")...)
			c.Env = append(c.Environ(), "HOME="+home)
			var stdout, stderr strings.Builder
			c.Stdout, c.Stderr = &stdout, &stderr
			c.Run()
			if code := c.ProcessState.ExitCode(); code != exitRunFailed || stderr.String() != tc.want {
				t.Errorf("status %d, stderr %q; want %d, %q", code, stderr.String(), exitRunFailed, tc.want)
			}
			if after := hostState(t); after != before {
				t.Error("the host's systemd directories or mounts changed")
			}
			if _, err := os.Stat(filepath.Join(home, ".config")); err == nil {
				t.Errorf("%s/.config was made", home)
			}
		})
	}
}

// TestRunKilledLeavesNothing: a SIGKILLed run leaves nothing in $TMPDIR
// (with the old code, fakesystemd-run-* with the fake's unit directory
// and cgroup root): the directories it was not given live in tmpfs
// mounts of the namespace, which end with it.
func TestRunKilledLeavesNothing(t *testing.T) {
	skipWithoutNamespaces(t, nil)
	tmp, ready := t.TempDir(), filepath.Join(t.TempDir(), "ready")
	c := programCmd(t, "run", "--", "sh", "-c", `systemctl enable --quiet --now -- "$0" 2>/dev/null; touch "$1"; exec sleep 60`, "x.service", ready)
	c.Env = append(c.Environ(), "TMPDIR="+tmp)
	// In a process group of its own, so that the kill reaches CMD too.
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- c.Wait() }()
	deadline := time.Now().Add(20 * time.Second)
	for {
		if _, err := os.Stat(ready); err == nil {
			break
		}
		if time.Now().After(deadline) {
			syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
			t.Fatal("CMD did not start within 20s")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := syscall.Kill(-c.Process.Pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-done
	ents, err := os.ReadDir(tmp)
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != 0 {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Errorf("$TMPDIR after a SIGKILLed run: %v, want nothing", names)
	}
}

// TestRunOtherUserReachesBus: under a root run, a process of CMD's that
// drops to another uid reaches the fake's bus, as it reaches a real
// system bus (dbus-daemon's socket is 0666; systemd 252 answers such a
// user's reads); the private socket stays root's (0700). With the old
// code both followed the umask, 0755, and the other user got
// "Permission denied".
func TestRunOtherUserReachesBus(t *testing.T) {
	nobody := unprivileged(t)
	if nobody == nil {
		t.Skip("needs root and setpriv")
	}
	skipWithoutNamespaces(t, nil)
	script := `stat -c '%a %n' /run/dbus/system_bus_socket /run/systemd/private
` + strings.Join(nobody[:4], " ") + ` systemctl is-system-running
` + strings.Join(nobody[:4], " ") + ` busctl --system get-property org.freedesktop.systemd1 /org/freedesktop/systemd1 org.freedesktop.systemd1.Manager Version >/dev/null && echo read`
	r := runProgram(t, nil, "run", "--", "sh", "-c", script)
	want := runResult{code: 0, stdout: "666 /run/dbus/system_bus_socket\n700 /run/systemd/private\nrunning\nread\n"}
	if diff := cmp.Diff(want, r, cmp.AllowUnexported(runResult{})); diff != "" {
		t.Errorf("run -- sh -c SCRIPT (-want +got):\n%s", diff)
	}
}
