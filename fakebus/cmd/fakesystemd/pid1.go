package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

// PID 1 of run's world (see run.go). Where the kernel allows it, the
// init step is started in a new PID namespace too, whose first process,
// PID 1, it is: it mounts a proc file system of that namespace on /proc
// (in its own mount namespace, so CMD's /proc lists the namespace's
// processes by the namespace's numbers, which the fake sees on the bus
// too: SO_PEERCRED gives PIDs in the reader's namespace), calls itself
// systemd where programs look (/proc/1/comm, /proc/1/cmdline), and does
// what falls to an init: it reaps the orphans the kernel gives it, and
// passes the signals run passes on to its child. When its child ends,
// PID 1 exits with its status and the kernel kills every process left in
// the namespace. As root the fake itself runs in PID 1 (init.scope's
// process, GetUnitByPID(1), as systemd is); as another user it runs in
// the serve step, PID 1's child, and PID 1 only reaps and passes signals
// on.

// pid1Comm is the name PID 1 takes (/proc/1/comm): systemd's, which
// programs read to tell that systemd is the init (Ansible's service
// manager detection, ps -p 1 -o comm=).
const pid1Comm = "systemd"

// pid1Args is PID 1's command line (/proc/1/cmdline): systemd's when it
// is started as the system manager by its path, as measured in
// scripts/sandbox ("/lib/systemd/systemd --system ..."; a machine booted
// from the kernel shows /sbin/init, its symlink). /proc/1/exe still
// names fakesystemd's binary.
func pid1Args() []string { return []string{"/lib/systemd/systemd", "--system"} }

// errProcRefused is mountProc's error when the kernel refuses a proc file
// system for the new PID namespace: run then starts again without one.
var errProcRefused = errors.New("the kernel refuses a proc file system for the PID namespace")

// mountProc mounts a proc file system of the process's PID namespace on
// /proc. The caller's mount namespace must be one of its own, with /
// a slave already. A user namespace may mount proc only where a proc
// mount is fully visible to it (none of its files hidden by a mount it
// cannot undo, as a container's masked /proc/kcore): the error wraps
// errProcRefused then.
func mountProc() error {
	if err := syscall.Mount("proc", "/proc", "proc", syscall.MS_NOSUID|syscall.MS_NODEV|syscall.MS_NOEXEC, ""); err != nil {
		return fmt.Errorf("%w: %w", errProcRefused, err)
	}
	return nil
}

// reportProc tells the caller of the init step, on the pipe fd (its
// SetupFD), how mounting /proc went (err from mountProc): a refusal is
// written for the caller to start again without a PID namespace, nothing
// means /proc is the namespace's. It closes fd, which no child must
// inherit, and returns err.
func reportProc(fd int, err error) error {
	if fd <= 2 {
		return err
	}
	f := os.NewFile(uintptr(fd), "setup")
	if errors.Is(err, errProcRefused) {
		f.WriteString(err.Error())
	}
	f.Close()
	return err
}

// nameSystemd gives the process pid1Comm as its name: the thread group
// leader's, which /proc/PID/comm shows, whatever thread calls it (a
// thread may rename any thread of its group through /proc).
func nameSystemd() error {
	if err := os.WriteFile("/proc/self/comm", []byte(pid1Comm), 0); err != nil {
		return fmt.Errorf("name PID 1 %s: %w", pid1Comm, err)
	}
	return nil
}

// isPID1 reports whether the process is PID 1 of the PID namespace cfg
// asked for.
func isPID1(cfg initConfig) bool { return cfg.PIDNamespace && os.Getpid() == 1 }

// waitReaping is waitForwarding for PID 1: it waits for c, started,
// reaping every other process that ends meanwhile (the orphans the
// kernel makes PID 1's children), passes on the signals of sigs but
// SIGINT, and returns c's exit status. Every child is reaped by this
// wait4(-1) loop, so c is never waited for through c.Wait, and signals
// reach it through its pidfd (os.Process.Signal), which never names
// another process once c is reaped.
func waitReaping(c *exec.Cmd, sigs <-chan os.Signal) (int, error) {
	type end struct {
		ws  syscall.WaitStatus
		err error
	}
	ended := make(chan end, 1)
	pid := c.Process.Pid
	go func() {
		for {
			var ws syscall.WaitStatus
			wpid, err := syscall.Wait4(-1, &ws, 0, nil)
			switch {
			case errors.Is(err, syscall.EINTR):
				continue
			case err != nil:
				ended <- end{err: fmt.Errorf("wait for %s: %w", c.Args[0], err)}
				return
			case wpid == pid:
				ended <- end{ws: ws}
				return
			}
			// An orphan, reaped: nothing else to do.
		}
	}()
	for {
		select {
		case s := <-sigs:
			if s != os.Interrupt {
				c.Process.Signal(s)
			}
		case e := <-ended:
			c.Process.Release()
			switch {
			case e.err != nil:
				return 0, e.err
			case e.ws.Signaled():
				return 128 + int(e.ws.Signal()), nil
			}
			return e.ws.ExitStatus(), nil
		}
	}
}
