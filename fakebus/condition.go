package fakebus

// Condition*= and Assert*= (systemd's src/shared/condition.c), as far as
// the fake evaluates them.

import (
	"os"
	"path/filepath"

	"github.com/godbus/dbus/v5"
)

// evalConditions checks a unit's Conditions and Asserts. It returns ok
// false when one fails, and whether it was an assertion.
func evalConditions(u *unit) (ok bool, failedAssert bool) {
	for _, which := range []string{"Asserts", "Conditions"} {
		v, found := u.props[which]
		if !found {
			continue
		}
		var conds []condition
		if dbus.Store([]any{v.Value()}, &conds) != nil {
			continue
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
				return false, which == "Asserts"
			}
		}
		if anyTrigger && !triggerOK {
			return false, which == "Asserts"
		}
	}
	return true, false
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
