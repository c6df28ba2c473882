package sdbus

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// Version is a systemd version as reported by the manager's Version
// property, for example "252.38-1~deb12u1".
//
// systemd documents the string as informational only; distributions
// backport features and patch behaviour within one major version. Treat a
// Version as a hint and probe for features (see Conn.Supports) when it
// matters.
type Version struct {
	// Major is the systemd release, 252 in "252.38-1~deb12u1".
	Major int
	// Minor is the stable point release, 38 in "252.38-1~deb12u1"; 0 when
	// the string has none.
	Minor int
	// Pre is a pre-release tag, "rc2" in "257~rc2" or "257-rc2"; empty for
	// a release.
	Pre string
	// Distro is the packaging suffix, "1~deb12u1" in "252.38-1~deb12u1",
	// "1.fc32" in "v245.4-1.fc32".
	Distro string
	// Raw is the version string without GVariant quoting.
	Raw string
}

// ParseVersion parses a systemd version string: an optional "v", the major
// release, an optional ".point" release, an optional "~pre" tag and an
// optional "-distro" suffix. It accepts the GVariant text form that
// busctl and go-systemd's GetManagerProperty return ("\"252.4-1\"" or
// "'252'"). Anything else is an error matching ErrInvalidArgs.
func ParseVersion(s string) (Version, error) {
	raw, err := unquoteVersion(strings.TrimSpace(s))
	if err != nil {
		return Version{}, badVersion(s, err.Error())
	}
	v := Version{Raw: raw}
	rest := strings.TrimPrefix(raw, "v")
	for i := 0; i < len(rest); i++ {
		if c := rest[i]; c <= ' ' || c >= 0x7f {
			return Version{}, badVersion(s, "contains a space or non-ASCII byte")
		}
	}
	var ok bool
	if v.Major, rest, ok = leadingInt(rest); !ok {
		return Version{}, badVersion(s, "no major version number")
	}
	if strings.HasPrefix(rest, ".") {
		if v.Minor, rest, ok = leadingInt(rest[1:]); !ok {
			return Version{}, badVersion(s, "no number after '.'")
		}
	}
	if strings.HasPrefix(rest, "~") {
		v.Pre, rest, _ = strings.Cut(rest[1:], "-")
		if v.Pre == "" {
			return Version{}, badVersion(s, "empty pre-release tag")
		}
		if rest == "" && strings.HasSuffix(raw, "-") {
			return Version{}, badVersion(s, "empty distribution suffix")
		}
		v.Distro = rest
		return v, nil
	}
	switch {
	case rest == "":
	case rest[0] == '-' || rest[0] == '+':
		v.Distro = rest[1:]
		if v.Distro == "" {
			return Version{}, badVersion(s, "empty distribution suffix")
		}
		// "257-rc2" is how git describe spells a pre-release.
		if strings.HasPrefix(v.Distro, "rc") {
			if _, err := strconv.Atoi(strings.SplitN(v.Distro[2:], "-", 2)[0]); err == nil {
				v.Pre, v.Distro, _ = strings.Cut(v.Distro, "-")
			}
		}
	default:
		return Version{}, badVersion(s, fmt.Sprintf("unexpected %q after the version number", rest[0]))
	}
	return v, nil
}

func badVersion(s, why string) error {
	return &Error{Op: "ParseVersion", Message: fmt.Sprintf("invalid systemd version %q: %s", s, why), Err: ErrInvalidArgs}
}

// unquoteVersion removes the GVariant quoting of a string value.
func unquoteVersion(s string) (string, error) {
	if len(s) < 2 {
		return s, nil
	}
	switch q := s[0]; {
	case q == '"' && s[len(s)-1] == '"':
		u, err := strconv.Unquote(s)
		if err != nil {
			return "", fmt.Errorf("bad quoting")
		}
		return u, nil
	case q == '\'' && s[len(s)-1] == '\'':
		inner := s[1 : len(s)-1]
		if strings.ContainsAny(inner, `'\`) {
			return "", fmt.Errorf("bad quoting")
		}
		return inner, nil
	case q == '"' || q == '\'':
		return "", fmt.Errorf("unbalanced quote")
	}
	return s, nil
}

// leadingInt parses the decimal digits at the start of s.
func leadingInt(s string) (n int, rest string, ok bool) {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == 0 || i > 9 {
		return 0, s, false
	}
	n, _ = strconv.Atoi(s[:i])
	return n, s[i:], true
}

// String returns the version string as the manager reported it.
func (v Version) String() string {
	if v.Raw != "" {
		return v.Raw
	}
	s := strconv.Itoa(v.Major)
	if v.Minor != 0 {
		s += "." + strconv.Itoa(v.Minor)
	}
	if v.Pre != "" {
		s += "~" + v.Pre
	}
	if v.Distro != "" {
		s += "-" + v.Distro
	}
	return s
}

// AtLeast reports whether v is major or newer. A pre-release of major counts
// as major: features land before the release.
func (v Version) AtLeast(major int) bool { return v.Major >= major }

// Compare orders versions by Major, then Minor, with a pre-release before
// the release it precedes. Distribution suffixes are not ordered. It
// returns -1, 0 or +1.
func (v Version) Compare(w Version) int {
	switch {
	case v.Major != w.Major:
		return sign(v.Major - w.Major)
	case v.Minor != w.Minor:
		return sign(v.Minor - w.Minor)
	case v.Pre == w.Pre:
		return 0
	case v.Pre == "":
		return 1
	case w.Pre == "":
		return -1
	}
	return strings.Compare(v.Pre, w.Pre)
}

func sign(n int) int {
	switch {
	case n < 0:
		return -1
	case n > 0:
		return 1
	}
	return 0
}

// Version reads the manager's Version property and parses it. A successful
// result is cached for the life of c; a failure is not, so the next call
// asks again.
func (c *Conn) Version(ctx context.Context) (Version, error) {
	if err := c.usable("Version", ""); err != nil {
		return Version{}, err
	}
	c.mu.Lock()
	v, ok := c.version, c.versionOK
	gen := c.gen
	c.mu.Unlock()
	if ok {
		return v, nil
	}
	var s string
	if err := c.getProperty(ctx, managerPath, managerIface, "Version", "", &s); err != nil {
		return Version{}, err
	}
	v, err := ParseVersion(s)
	if err != nil {
		return Version{}, err
	}
	c.cacheIfCurrent(gen, func() { c.version, c.versionOK = v, true })
	return v, nil
}
