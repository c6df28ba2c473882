package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// run --user (see run.go): the init step's mount layout when the fake
// plays the caller's user manager, with the paths systemd 252's user
// manager has (systemctl --user show -p UnitPath, Environment): its
// runtime directory /run/user/UID (XDG_RUNTIME_DIR, a tmpfs of mode 0700
// owned by the user, which user-runtime-dir@.service mounts), its private
// socket there in systemd/private and the session bus in bus, its unit
// directories ~/.config/systemd/user and $XDG_RUNTIME_DIR/systemd/user.
// The system's paths (/run/dbus, /run/systemd, /etc/systemd/system) stay
// the host's: CMD reaches the fake as its user manager only.

// userVendorUnitDirs are the user unit directories systemd searches
// (user_dirs, src/shared/path-lookup.c) that are not the fake's and not
// below $XDG_RUNTIME_DIR, which is the fake's tmpfs: the init step hides
// each with an empty tmpfs, as it hides vendorUnitDirs for the system
// manager. The directories of $XDG_CONFIG_DIRS and $XDG_DATA_DIRS, and
// those below the home directory, are added by userHiddenDirs.
var userVendorUnitDirs = []string{
	"/etc/systemd/user", "/run/systemd/user",
	"/usr/local/lib/systemd/user", "/usr/lib/systemd/user", "/lib/systemd/user",
}

// userRuntimeDir is the user manager's runtime directory, XDG_RUNTIME_DIR.
func userRuntimeDir(uid int) string { return "/run/user/" + strconv.Itoa(uid) }

// userLayout is the user manager's layout for uid, whose home is home.
func userLayout(uid int, home string) layout {
	rt := userRuntimeDir(uid)
	bus := filepath.Join(rt, "bus")
	return layout{
		busSocket:     bus,
		privateSocket: filepath.Join(rt, "systemd", "private"),
		unitDir:       filepath.Join(home, ".config", "systemd", "user"),
		runtimeDir:    filepath.Join(rt, "systemd", "user"),
		env:           []string{"XDG_RUNTIME_DIR=" + rt, "DBUS_SESSION_BUS_ADDRESS=" + unixAddress(bus)},
	}
}

// userHome is the caller's home directory, $HOME: where clients
// (systemctl --user's client-side commands) look for the user's unit
// directory. It must be an existing directory other than /, as the init
// step shadows directories in it.
func userHome() (string, error) {
	home := os.Getenv("HOME")
	if !filepath.IsAbs(home) {
		return "", fmt.Errorf("--user: HOME is %q: want the absolute path of the caller's home directory", home)
	}
	home = filepath.Clean(home)
	if fi, err := os.Stat(home); err != nil || !fi.IsDir() || home == "/" {
		return "", fmt.Errorf("--user: HOME is %q: want an existing directory other than /", home)
	}
	return home, nil
}

// userHiddenDirs are the user unit directories to hide for home: the
// vendor ones, those of $XDG_CONFIG_DIRS and $XDG_DATA_DIRS (systemd's
// defaults /etc/xdg and /usr/local/share:/usr/share) and the user's
// ~/.local/share/systemd/user and ~/.config/systemd/user.control.
func userHiddenDirs(home string) []string {
	dirs := append([]string(nil), userVendorUnitDirs...)
	for _, v := range []struct{ name, def string }{
		{"XDG_CONFIG_DIRS", "/etc/xdg"},
		{"XDG_DATA_DIRS", "/usr/local/share:/usr/share"},
	} {
		list := os.Getenv(v.name)
		if list == "" {
			list = v.def
		}
		for _, d := range strings.Split(list, ":") {
			if filepath.IsAbs(d) {
				dirs = append(dirs, filepath.Join(d, "systemd", "user"))
			}
		}
	}
	return append(dirs,
		filepath.Join(home, ".local", "share", "systemd", "user"),
		filepath.Join(home, ".config", "systemd", "user.control"))
}

// userMounts is a user manager's layout (mountFake): the fake's
// directories where a user manager's are, and the runtime directory for
// its sockets. Where the host has no /run/systemd/system, it is made
// (empty): sd_booted() looks for it, and a user manager runs only where
// systemd booted the machine (without it, systemctl --user enable and
// is-enabled would change and read the files themselves, not ask the
// fake).
func userMounts(cfg initConfig, src fakeDirs) error {
	l := userLayout(cfg.UID, cfg.Home)

	// The persistent unit directory: the fake's, over the user's or in a
	// tmpfs over its nearest existing parent. The home directory itself
	// is never written.
	if err := makeDirOrShadow(l.unitDir); err != nil {
		return err
	}
	owner, group := cfg.UID, cfg.GID
	if cfg.UserNamespace {
		owner, group = 0, 0 // the caller, in the serve step's namespace
	}
	ids := fmt.Sprintf("uid=%d,gid=%d", owner, group)
	if err := place(src.unitDir, l.unitDir, ids); err != nil {
		return err
	}

	// The runtime directory: a tmpfs owned by the caller (the init
	// step's root when it has a user namespace of its own), mode 0700.
	rt := userRuntimeDir(cfg.UID)
	if err := makeDirOrShadow(rt); err != nil {
		return err
	}
	opts := "mode=0700," + ids
	if err := syscall.Mount("tmpfs", rt, "tmpfs", syscall.MS_NOSUID|syscall.MS_NODEV, opts); err != nil {
		return fmt.Errorf("mount a tmpfs on %s: %w", rt, err)
	}
	for _, d := range []string{filepath.Dir(l.runtimeDir), l.runtimeDir} {
		if err := os.Mkdir(d, 0o755); err != nil {
			return err
		}
	}
	if err := place(src.runtimeDir, l.runtimeDir, ids); err != nil {
		return err
	}

	// sd_booted()'s mark (see above).
	if _, err := os.Lstat(runtimeDir); errors.Is(err, fs.ErrNotExist) {
		if err := makeShadowDir(runtimeDir); err != nil {
			return err
		}
	}

	// The other user unit directories: empty.
	return hideDirs(userHiddenDirs(cfg.Home), l.unitDir, l.runtimeDir)
}

// makeDirOrShadow makes sure dir exists, as a mount point: an existing
// directory is kept, a missing one is made in a tmpfs over its nearest
// existing parent (makeShadowDir).
func makeDirOrShadow(dir string) error {
	fi, err := os.Stat(dir)
	switch {
	case err == nil && fi.IsDir():
		return nil
	case err == nil:
		return fmt.Errorf("%s is not a directory", dir)
	case !errors.Is(err, fs.ErrNotExist):
		return err
	}
	return makeShadowDir(dir)
}
