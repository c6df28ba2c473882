package fakebus

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// cgroup2Magic is the file system type of a cgroup2 mount (statfs).
const cgroup2Magic = 0x63677270

// setupCgroupRoot checks and makes the directory of WithCgroupRoot.
func setupCgroupRoot(dir string) (string, error) {
	if dir == "" {
		return "", nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("fakebus: cgroup root: %w", err)
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return "", fmt.Errorf("fakebus: cgroup root: %w", err)
	}
	var st syscall.Statfs_t
	if err := syscall.Statfs(abs, &st); err != nil {
		return "", fmt.Errorf("fakebus: cgroup root: %w", err)
	}
	if st.Type == cgroup2Magic || st.Type == 0x27e0eb /* cgroup v1 */ {
		return "", fmt.Errorf("fakebus: cgroup root %s is a real cgroup file system", abs)
	}
	return abs, nil
}

// cgroupDirLocked makes or removes the directory of u's control group
// below the cgroup root, as u's state says (see WithCgroupRoot). Errors
// are ignored: the directory is a convenience for the unit's payload.
func (m *manager) cgroupDirLocked(u *unit) {
	if m.cgroupRoot == "" || (u.kind != "service" && u.kind != "scope" && u.kind != "slice") {
		return
	}
	cg := u.cgroup()
	if cg == "" || cg == "/" {
		return
	}
	p := filepath.Join(m.cgroupRoot, filepath.FromSlash(strings.TrimPrefix(cg, "/")))
	if u.isActive() || u.active == "activating" || u.active == "deactivating" {
		_ = os.MkdirAll(p, 0o755)
		return
	}
	if u.kind != "slice" {
		_ = os.RemoveAll(p)
	}
}

// subcgroupLocked reports whether sub-cgroup sub exists below u's control
// group: made with MakeSubcgroup, or as a directory below the cgroup root.
func (m *manager) subcgroupLocked(u *unit, sub string) bool {
	sub = strings.TrimSuffix(sub, "/")
	if u.subcgroups[sub] {
		return true
	}
	if m.cgroupRoot == "" {
		return false
	}
	fi, err := os.Stat(filepath.Join(m.cgroupRoot, filepath.FromSlash(strings.TrimPrefix(u.cgroup(), "/")), filepath.FromSlash(sub)))
	return err == nil && fi.IsDir()
}
