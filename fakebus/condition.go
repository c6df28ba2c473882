package fakebus

// Condition*= and Assert*= (systemd's src/shared/condition.c), as far as
// the fake evaluates them.

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/godbus/dbus/v5"
)

// testConditions tests u's conditions and, when they hold, its
// assertions, as systemd's unit_start does (unit_test_condition, then
// unit_test_assert): it records each result it tested and when
// (ConditionResult, ConditionTimestamp, AssertResult, AssertTimestamp;
// a unit never started has tested nothing: false, never) and reports
// whether the start may go on, and when not whether an assertion failed.
func testConditions(u *unit, t dualTime) (ok bool, failedAssert bool) {
	u.condition, u.conditionAt = holds(u, "Conditions"), t
	if !u.condition {
		return false, false
	}
	u.assert, u.assertAt = holds(u, "Asserts"), t
	return u.assert, !u.assert
}

// holds evaluates the list of conditions which ("Conditions" or
// "Asserts") of u.
func holds(u *unit, which string) bool {
	v, found := u.props[which]
	if !found {
		return true
	}
	var conds []condition
	if dbus.Store([]any{v.Value()}, &conds) != nil {
		return true
	}
	// Conditions of one kind are ANDed, except triggering ones, which
	// are ORed among themselves.
	anyTrigger, triggerOK := false, false
	for _, c := range conds {
		r := c.eval()
		if c.Trigger {
			anyTrigger = true
			triggerOK = triggerOK || r
			continue
		}
		if !r {
			return false
		}
	}
	return !anyTrigger || triggerOK
}

// condition is one entry of the Conditions or Asserts property, (sbbs).
type condition struct {
	Type    string
	Trigger bool
	Negate  bool
	Param   string
}

// knownCondition reports whether the fake can evaluate a condition type.
func knownCondition(t string) bool {
	switch t {
	case "PathExists", "PathIsDirectory", "PathIsSymbolicLink", "FileNotEmpty", "DirectoryNotEmpty",
		"PathIsReadWrite", "FileIsExecutable", "PathExistsGlob", "Virtualization", "Host", "KernelCommandLine":
		return true
	}
	return false
}

func (c condition) eval() bool {
	r := false
	switch trimCondPrefix(c.Type) {
	case "PathExists":
		_, err := os.Stat(c.Param)
		r = err == nil
	case "PathIsDirectory":
		fi, err := os.Stat(c.Param)
		r = err == nil && fi.IsDir()
	case "PathIsSymbolicLink":
		fi, err := os.Lstat(c.Param)
		r = err == nil && fi.Mode()&os.ModeSymlink != 0
	case "FileNotEmpty":
		fi, err := os.Stat(c.Param)
		r = err == nil && fi.Mode().IsRegular() && fi.Size() > 0
	case "DirectoryNotEmpty":
		ents, err := os.ReadDir(c.Param)
		r = err == nil && len(ents) > 0
	case "FileIsExecutable":
		fi, err := os.Stat(c.Param)
		r = err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0
	case "PathExistsGlob":
		ms, _ := filepath.Glob(c.Param)
		r = len(ms) > 0
	case "PathIsReadWrite":
		r = true
	default:
		r = true
	}
	if c.Negate {
		r = !r
	}
	return r
}

func trimCondPrefix(t string) string {
	for _, p := range []string{"Condition", "Assert"} {
		if len(t) > len(p) && t[:len(p)] == p {
			return t[len(p):]
		}
	}
	return t
}

// conditionList is the property a unit file's [Unit] directive key adds
// to, Conditions for a Condition*=, Asserts for an Assert*=, or "".
func conditionList(key string) string {
	switch {
	case strings.HasPrefix(key, "Condition") && len(key) > len("Condition"):
		return "Conditions"
	case strings.HasPrefix(key, "Assert") && len(key) > len("Assert"):
		return "Asserts"
	}
	return ""
}

// parseConditionLine reads a unit file's Condition*= or Assert*= value as
// systemd's config_parse_unit_condition_path does: "|" makes it
// triggering, then "!" negates it; the path must be absolute. ok is false
// for a line systemd ignores, and for a condition that is not one of the
// path conditions the fake evaluates (knownCondition), which it leaves
// out (and lists as not used) rather than guess its outcome.
func parseConditionLine(key, val string) (c condition, ok bool) {
	c.Type = key
	if rest, trig := strings.CutPrefix(val, "|"); trig {
		c.Trigger, val = true, strings.TrimLeft(rest, " ")
	}
	if rest, neg := strings.CutPrefix(val, "!"); neg {
		c.Negate, val = true, strings.TrimLeft(rest, " ")
	}
	c.Param = val
	t := trimCondPrefix(key)
	if !knownCondition(t) || t == "PathIsReadWrite" ||
		!(strings.HasPrefix(t, "Path") || strings.HasPrefix(t, "File") || strings.HasPrefix(t, "Directory")) {
		return c, false // the fake does not evaluate it (eval)
	}
	if !filepath.IsAbs(val) {
		return c, false
	}
	c.Param = filepath.Clean(val)
	return c, true
}
