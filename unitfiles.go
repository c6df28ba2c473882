package sdbus

import (
	"context"
	"fmt"
	"path"
	"strings"
)

// Unit files: the Manager methods behind systemctl enable, disable,
// reenable, link, mask, unmask, preset, list-unit-files and is-enabled.
// They change symlinks in the manager's unit directories
// (/etc/systemd/system, or /run/systemd/system with UnitFileRuntime) and
// report what they changed; none of them reloads the manager: call Reload
// (daemon-reload) afterwards so that it sees the new configuration.
//
// A lost reply is not replayed. The calls are idempotent in effect (a
// second EnableUnitFiles leaves the same symlinks), but the change list of
// the first call is lost with its reply, and a repeated call reports only
// what it changed itself, usually nothing. A caller that decides on a
// daemon-reload from the change list would skip a reload it needs. So on
// a reconnecting Conn these calls fail with ErrOutcomeUnknown when the
// connection drops before their reply; calling again is safe, and a
// caller that does should reload whatever the new change list says. The
// reads (GetUnitFileState, ListUnitFiles, ListUnitFilesByPatterns) are
// retried.

// UnitFileFlag modifies a unit-file call.
type UnitFileFlag uint8

const (
	// UnitFileRuntime makes the change in the runtime directory
	// (/run/systemd/system): it lasts until the next reboot.
	UnitFileRuntime UnitFileFlag = 1 << iota
	// UnitFileForce replaces symlinks that are in the way (for example a
	// unit file linked from elsewhere when masking) instead of failing
	// with ErrUnitExists. DisableUnitFiles and UnmaskUnitFiles do not take
	// it.
	UnitFileForce
)

// String returns the flags' names joined by "|" ("runtime|force"), or
// "none".
func (f UnitFileFlag) String() string {
	var names []string
	if f.runtime() {
		names = append(names, "runtime")
	}
	if f.force() {
		names = append(names, "force")
	}
	if rest := f &^ (UnitFileRuntime | UnitFileForce); rest != 0 {
		names = append(names, fmt.Sprintf("%#x", uint8(rest)))
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, "|")
}

func (f UnitFileFlag) runtime() bool { return f&UnitFileRuntime != 0 }
func (f UnitFileFlag) force() bool   { return f&UnitFileForce != 0 }

// UnitFileChangeType is the kind of one change a unit-file call made.
type UnitFileChangeType string

// Change types (the set is open; unknown values are kept verbatim).
const (
	// UnitFileSymlink: Filename is a new symlink to Destination.
	UnitFileSymlink UnitFileChangeType = "symlink"
	// UnitFileUnlink: the symlink Filename was removed.
	UnitFileUnlink UnitFileChangeType = "unlink"
	// UnitFileDestinationNotPresent (systemd 252 and later): a note, no
	// change: Filename is a WantedBy= or RequiredBy= target that has no
	// unit file on the unit path (a user manager has no
	// multi-user.target), Destination the unit file enabled into it. The
	// symlink is made all the same.
	UnitFileDestinationNotPresent UnitFileChangeType = "destination not present"
)

// UnitFileChange is one change a unit-file call made (or, for newer
// change types, a note about a file it left alone).
type UnitFileChange struct {
	Type UnitFileChangeType
	// Filename is the symlink created or removed, e.g.
	// /etc/systemd/system/multi-user.target.wants/app.service.
	Filename string
	// Destination is what a new symlink points to: the unit file, or
	// /dev/null for a mask. Empty for an unlink.
	Destination string
}

// UnitFileState is the enablement state of a unit file: the
// UnitFileState unit property, GetUnitFileState and ListUnitFiles.
type UnitFileState string

// Unit file states (systemctl is-enabled; the set is open: unknown values
// are kept verbatim).
const (
	UnitFileEnabled        UnitFileState = "enabled"         // symlinked into a .wants/ or .requires/ directory, or aliased, in /etc
	UnitFileEnabledRuntime UnitFileState = "enabled-runtime" // the same in /run only
	UnitFileLinked         UnitFileState = "linked"          // the file is outside the unit path, made available by a symlink in /etc
	UnitFileLinkedRuntime  UnitFileState = "linked-runtime"  // the same in /run
	UnitFileAlias          UnitFileState = "alias"           // the name is an alias of another unit file
	UnitFileMasked         UnitFileState = "masked"          // symlinked to /dev/null in /etc
	UnitFileMaskedRuntime  UnitFileState = "masked-runtime"  // symlinked to /dev/null in /run
	UnitFileStatic         UnitFileState = "static"          // no [Install] section: cannot be enabled
	UnitFileDisabled       UnitFileState = "disabled"        // has an [Install] section but is not enabled
	UnitFileIndirect       UnitFileState = "indirect"        // not enabled itself, but Also= or DefaultInstance= names units that may be
	UnitFileGenerated      UnitFileState = "generated"       // made by a generator
	UnitFileTransient      UnitFileState = "transient"       // a transient unit (StartTransientUnit)
	UnitFileBad            UnitFileState = "bad"             // the file is invalid
)

// UnitFileStatus is one row of ListUnitFiles.
type UnitFileStatus struct {
	// Path is where the unit file (or its symlink) is, e.g.
	// /etc/systemd/system/app.service.
	Path  string
	State UnitFileState
}

// unitFileChangeWire is one element of a change list, (sss).
type unitFileChangeWire struct{ Type, Filename, Destination string }

func changeList(w []unitFileChangeWire) []UnitFileChange {
	out := make([]UnitFileChange, len(w))
	for i, c := range w {
		out[i] = UnitFileChange{Type: UnitFileChangeType(c.Type), Filename: c.Filename, Destination: c.Destination}
	}
	return out
}

// unitFileArgs says which forms of a unit file a call takes.
type unitFileArgs int

const (
	namesOnly    unitFileArgs = iota // unit names (app.service)
	namesOrPaths                     // names or absolute paths of unit files
	pathsOnly                        // absolute paths of unit files
)

// checkUnitFiles checks files before sending: at least one, each a valid
// unit name or a clean absolute path to a file with a valid unit name, as
// the call takes.
func checkUnitFiles(op string, files []string, takes unitFileArgs, flags, allowed UnitFileFlag) error {
	if flags&^allowed != 0 {
		return invalidArg(op, "", "unsupported flags %#x", uint8(flags&^allowed))
	}
	if len(files) == 0 {
		return invalidArg(op, "", "no unit files")
	}
	for _, f := range files {
		isPath := strings.HasPrefix(f, "/")
		switch {
		case isPath && takes == namesOnly:
			return invalidArg(op, f, "a unit name is needed, not a path")
		case !isPath && takes == pathsOnly:
			return invalidArg(op, f, "an absolute path of a unit file is needed")
		case isPath && path.Clean(f) != f:
			return invalidArg(op, f, "unit file path is not clean")
		}
		name := f
		if isPath {
			name = path.Base(f)
		}
		if err := checkUnitName(op, name); err != nil {
			return err
		}
	}
	return nil
}

// changeUnitFiles makes a unit-file call that returns a change list, and
// carries_install_info first when withInfo.
func (c *Conn) changeUnitFiles(ctx context.Context, op string, withInfo bool, args ...any) (bool, []UnitFileChange, error) {
	var info bool
	var w []unitFileChangeWire
	out := []any{&w}
	if withInfo {
		out = []any{&info, &w}
	}
	if err := c.call(ctx, op, "", args, out...); err != nil {
		return false, nil, err
	}
	return info, changeList(w), nil
}

// EnableUnitFiles enables unit files (systemctl enable): it creates the
// symlinks their [Install] sections ask for (WantedBy=, RequiredBy=,
// Alias=). files are unit names found on the unit path, or absolute paths
// of unit files anywhere, which are linked first (as LinkUnitFiles). It
// returns whether any of the files has [Install] information (false means
// there was nothing to enable: the units are static) and the changes made,
// empty when everything was enabled already.
//
// Errors: ErrNoSuchUnit when a unit file does not exist, ErrUnitMasked
// for a masked unit, ErrUnitExists when a symlink to something else is in
// the way (UnitFileForce replaces it).
func (c *Conn) EnableUnitFiles(ctx context.Context, files []string, flags UnitFileFlag) (carriesInstallInfo bool, changes []UnitFileChange, err error) {
	const op = "EnableUnitFiles"
	if err := checkUnitFiles(op, files, namesOrPaths, flags, UnitFileRuntime|UnitFileForce); err != nil {
		return false, nil, err
	}
	return c.changeUnitFiles(ctx, op, true, nonNil(files), flags.runtime(), flags.force())
}

// ReenableUnitFiles disables and then enables unit files (systemctl
// reenable), resetting their symlinks to what [Install] says. It returns
// what EnableUnitFiles returns, with the changes of both steps.
func (c *Conn) ReenableUnitFiles(ctx context.Context, files []string, flags UnitFileFlag) (carriesInstallInfo bool, changes []UnitFileChange, err error) {
	const op = "ReenableUnitFiles"
	if err := checkUnitFiles(op, files, namesOrPaths, flags, UnitFileRuntime|UnitFileForce); err != nil {
		return false, nil, err
	}
	return c.changeUnitFiles(ctx, op, true, nonNil(files), flags.runtime(), flags.force())
}

// PresetUnitFiles enables or disables unit files as the preset policy
// says (systemctl preset; with no preset files systemd enables
// everything). It returns what EnableUnitFiles returns.
func (c *Conn) PresetUnitFiles(ctx context.Context, files []string, flags UnitFileFlag) (carriesInstallInfo bool, changes []UnitFileChange, err error) {
	const op = "PresetUnitFiles"
	if err := checkUnitFiles(op, files, namesOrPaths, flags, UnitFileRuntime|UnitFileForce); err != nil {
		return false, nil, err
	}
	return c.changeUnitFiles(ctx, op, true, nonNil(files), flags.runtime(), flags.force())
}

// DisableUnitFiles disables units (systemctl disable): it removes every
// symlink to their unit files from the configuration directory
// (/etc/systemd/system, or /run/systemd/system with UnitFileRuntime, the
// only flag it takes): .wants/ and .requires/ entries, aliases, and the
// symlink of a linked unit file. Masks stay. A unit without a unit file
// fails with ErrNoSuchUnit.
func (c *Conn) DisableUnitFiles(ctx context.Context, names []string, flags UnitFileFlag) ([]UnitFileChange, error) {
	const op = "DisableUnitFiles"
	if err := checkUnitFiles(op, names, namesOnly, flags, UnitFileRuntime); err != nil {
		return nil, err
	}
	_, ch, err := c.changeUnitFiles(ctx, op, false, nonNil(names), flags.runtime())
	return ch, err
}

// LinkUnitFiles makes unit files outside the unit path available under
// their names (systemctl link): files are absolute paths; each gets a
// symlink in the configuration directory. Linking does not enable. A file
// that does not exist fails with ErrNoSuchUnit.
func (c *Conn) LinkUnitFiles(ctx context.Context, files []string, flags UnitFileFlag) ([]UnitFileChange, error) {
	const op = "LinkUnitFiles"
	if err := checkUnitFiles(op, files, pathsOnly, flags, UnitFileRuntime|UnitFileForce); err != nil {
		return nil, err
	}
	_, ch, err := c.changeUnitFiles(ctx, op, false, nonNil(files), flags.runtime(), flags.force())
	return ch, err
}

// MaskUnitFiles masks units (systemctl mask): each name gets a symlink to
// /dev/null in the configuration directory, so that the unit cannot be
// started (StartUnit fails with ErrUnitMasked once the manager has
// reloaded or the unit is next loaded). A unit file or symlink already at
// that place fails with ErrUnitExists unless UnitFileForce is given. A
// unit need not exist to be masked.
func (c *Conn) MaskUnitFiles(ctx context.Context, names []string, flags UnitFileFlag) ([]UnitFileChange, error) {
	const op = "MaskUnitFiles"
	if err := checkUnitFiles(op, names, namesOnly, flags, UnitFileRuntime|UnitFileForce); err != nil {
		return nil, err
	}
	_, ch, err := c.changeUnitFiles(ctx, op, false, nonNil(names), flags.runtime(), flags.force())
	return ch, err
}

// UnmaskUnitFiles removes the masks of units (systemctl unmask); a unit
// that is not masked is left alone. UnitFileRuntime is the only flag it
// takes.
func (c *Conn) UnmaskUnitFiles(ctx context.Context, names []string, flags UnitFileFlag) ([]UnitFileChange, error) {
	const op = "UnmaskUnitFiles"
	if err := checkUnitFiles(op, names, namesOnly, flags, UnitFileRuntime); err != nil {
		return nil, err
	}
	_, ch, err := c.changeUnitFiles(ctx, op, false, nonNil(names), flags.runtime())
	return ch, err
}

// GetUnitFileState returns the enablement state of a unit's file
// (systemctl is-enabled), whether or not the unit is loaded. A unit with
// no unit file fails with ErrNoSuchUnit (systemd answers
// org.freedesktop.DBus.Error.FileNotFound).
func (c *Conn) GetUnitFileState(ctx context.Context, name string) (UnitFileState, error) {
	const op = "GetUnitFileState"
	if err := checkUnitName(op, name); err != nil {
		return "", err
	}
	var s string
	err := c.call(ctx, op, name, []any{name}, &s)
	return UnitFileState(s), err
}

type unitFileWire struct{ Path, State string }

func (c *Conn) listUnitFiles(ctx context.Context, op string, args ...any) ([]UnitFileStatus, error) {
	var rows []unitFileWire
	if err := c.call(ctx, op, "", args, &rows); err != nil {
		return nil, err
	}
	out := make([]UnitFileStatus, len(rows))
	for i, r := range rows {
		out[i] = UnitFileStatus{Path: r.Path, State: UnitFileState(r.State)}
	}
	return out, nil
}

// ListUnitFiles lists the unit files on the unit path with their states
// (systemctl list-unit-files), loaded or not, in no particular order.
func (c *Conn) ListUnitFiles(ctx context.Context) ([]UnitFileStatus, error) {
	return c.listUnitFiles(ctx, "ListUnitFiles")
}

// ListUnitFilesByPatterns lists the unit files whose state is in states
// (all when empty) and whose name matches one of the glob patterns (all
// when empty) (Manager.ListUnitFilesByPatterns, systemd 230 and later).
func (c *Conn) ListUnitFilesByPatterns(ctx context.Context, states []UnitFileState, patterns []string) ([]UnitFileStatus, error) {
	st := make([]string, len(states))
	for i, s := range states {
		st[i] = string(s)
	}
	return c.listUnitFiles(ctx, "ListUnitFilesByPatterns", st, nonNil(patterns))
}
