package fakebus

// What is special to services (systemd's src/core/service.c): the type,
// the main process and what is kept of it after it ended, ExecStartPost,
// live mounts into its namespace.

import (
	"strings"
	"time"

	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus/internal/sdversions"
)

func serviceType(u *unit) string {
	if t := u.str("Type"); t != "" {
		return t
	}
	return string(sdbus.ServiceSimple)
}

// spawnLocked starts u's main process. For a oneshot service startJob is its
// start job, which ends when the process exits.
func (m *manager) spawnLocked(u *unit, p process, startJob *job) {
	proc := p
	proc.started = time.Now()
	proc.pid = 1000 + startJobID(startJob, m)
	u.proc = &proc
	u.exec = execMain{pid: proc.pid, start: proc.started}
	exited := func() {
		if u.proc != &proc || proc.ended {
			return
		}
		proc.ended = true
		u.proc = nil
		u.exec.ended(cldExited, int32(proc.exit))
		// The unit changes state first; its start job ends with it.
		result := "done"
		switch {
		case proc.exit != 0:
			m.failLocked(u, "exit-code")
			result = "failed"
		case startJob != nil && !m.startPostLocked(u):
			result = "failed"
		case u.boolProp("RemainAfterExit", false):
			m.setStateLocked(u, "active", "exited")
		default:
			m.deactivateLocked(u)
		}
		if startJob != nil && !startJob.finished {
			m.finishJobLocked(startJob, result)
		}
	}
	switch {
	case proc.runFor < 0:
	case proc.runFor == 0:
		exited()
	default:
		m.afterLocked(proc.runFor, exited)
	}
}

// startPostLocked runs u's ExecStartPost commands once its main process
// runs (for a oneshot service: once it exited successfully); when one
// fails, the main process is killed and u fails (exit-code). It reports
// whether they succeeded.
func (m *manager) startPostLocked(u *unit) bool {
	if len(u.commands("ExecStartPost")) == 0 {
		return true
	}
	m.setStateLocked(u, "activating", "start-post")
	if u.runCommands("ExecStartPost") {
		return true
	}
	if u.proc != nil {
		u.proc.ended = true
		u.proc = nil
		u.exec.ended(cldKilled, 15)
	}
	m.failLocked(u, "exit-code")
	return false
}

func startJobID(j *job, m *manager) uint32 {
	if j != nil {
		return j.id
	}
	return m.lastJob
}

// si_code values of a child's end (ExecMainCode).
const (
	cldExited int32 = 1
	cldKilled int32 = 2
)

// execMain is what systemd keeps of a service's main process after it
// ended: ExecMainPID, ExecMainCode, ExecMainStatus and the timestamps.
type execMain struct {
	pid          uint32
	code, status int32
	start, exit  time.Time
}

func (e *execMain) ended(code, status int32) {
	e.code, e.status, e.exit = code, status, time.Now()
}

func usec(t time.Time) uint64 {
	if t.IsZero() {
		return 0
	}
	return uint64(t.UnixMicro())
}

// liveMountLocked is BindMountUnit and MountImageUnit: the fake runs no
// service in a mount namespace of its own, so each answers, after its
// checks, that the unit is not running in one.
func (m *manager) liveMountLocked(method, name, src, dst string) ([]any, error) {
	u := m.unitLocked(name)
	if u == nil {
		return nil, errNoSuchUnit(name)
	}
	if sdversions.Behaves(m.release, sdversions.LiveMountChecks) {
		if u.kind != "service" {
			return nil, &callErr{dbusErr + "NotSupported", method + " operation is not supported for unit type '" + u.kind + "'"}
		}
		return nil, errInvalidArgs("Unit '%s' not running in private mount namespace, cannot live mount.", name)
	}
	switch {
	case !strings.HasPrefix(src, "/") || !normalizedPath(src):
		return nil, errInvalidArgs("Source path must be absolute and normalized.")
	case !strings.HasPrefix(dst, "/") || !normalizedPath(dst):
		return nil, errInvalidArgs("Destination path must be absolute and normalized.")
	case u.kind != "service":
		return nil, errInvalidArgs("Unit is not of type .service")
	}
	return nil, errInvalidArgs("Unit not running in private mount namespace, cannot activate bind mount")
}
