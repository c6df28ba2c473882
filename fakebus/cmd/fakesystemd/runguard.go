package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// What run refuses to use as the fake's directories (--unit-dir,
// --runtime-unit-dir, --cgroup-root): the host's systemd and D-Bus
// directories, and every path run mounts over. Inside the namespace the
// fake cannot tell a directory bound from the host's /etc/systemd/system
// from its own, so the check is made before any namespace exists, on the
// resolved path: a directory given is refused when it is one of these,
// lies inside one, or contains one.

// hostSystemDirs are the system manager's directories and those run
// mounts over for it, and the parents of the user unit directories.
var hostSystemDirs = []string{
	"/etc/systemd", "/run/systemd", "/run/dbus", "/usr/lib/systemd", "/lib/systemd",
	"/usr/local/lib/systemd", "/etc/xdg/systemd", "/usr/share/systemd", "/usr/local/share/systemd",
	cgroupFS,
}

// protectedDirs are the directories refuseHostDir keeps the fake out of
// for cfg: hostSystemDirs, and with --user the caller's runtime directory
// and the systemd directories in its home.
func protectedDirs(cfg initConfig) []string {
	dirs := append([]string(nil), hostSystemDirs...)
	if cfg.UserManager {
		dirs = append(dirs, userRuntimeDir(cfg.UID),
			filepath.Join(cfg.Home, ".config", "systemd"), filepath.Join(cfg.Home, ".local", "share", "systemd"))
	}
	return dirs
}

// refuseHostDir returns an error when the absolute path dir, resolved,
// is one of protected (resolved too), inside one or above one.
func refuseHostDir(dir string, protected []string) error {
	d := resolve(dir)
	for _, p := range protected {
		rp := resolve(p)
		switch {
		case d == rp:
			return fmt.Errorf("is the host's %s, which run mounts over: give a directory of your own", p)
		case within(d, rp):
			return fmt.Errorf("is inside the host's %s, which run mounts over: give a directory of your own", p)
		case within(rp, d):
			return fmt.Errorf("contains the host's %s, which run mounts over: give a directory of your own", p)
		}
	}
	return nil
}

// within reports whether path p lies below dir.
func within(p, dir string) bool {
	return dir == "/" && p != "/" || strings.HasPrefix(p, dir+"/")
}

// resolve returns the absolute path p with its symlinks resolved, as far
// as it exists: the missing rest is joined to the resolved part.
func resolve(p string) string {
	p = filepath.Clean(p)
	var rest []string
	for {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(append([]string{r}, rest...)...)
		} else if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, os.ErrInvalid) {
			return filepath.Join(append([]string{p}, rest...)...)
		}
		parent := filepath.Dir(p)
		if parent == p {
			return filepath.Join(append([]string{p}, rest...)...)
		}
		rest = append([]string{filepath.Base(p)}, rest...)
		p = parent
	}
}
