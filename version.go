package sdbus

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
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

// ParseVersion parses a systemd version string as the manager's Version
// property reports it. Every form distributions ship is accepted:
//
//	219                          a bare release (RHEL 7)
//	239 (239-41.el8_3.2)         release and package version (RHEL 8)
//	252-51.el9                   release and package release (RHEL 9)
//	252.38-1~deb12u1             point release and package (Debian, Ubuntu, Fedora)
//	v256.7                       git describe of an upstream build
//	257-rc1, 257~rc1             a pre-release
//	254.5+suse.17.g7b8c8f0d88    a distribution's build suffix (openSUSE)
//
// and the GVariant text form busctl and go-systemd's GetManagerProperty
// return ("\"252.4-1\"" or "'252'"). Major is the leading number, Minor the
// number after a '.' that directly follows it, Pre a "~tag" or "-rcN"
// pre-release tag, and Distro whatever follows (without its separator; for
// "239 (239-41.el8_3.2)", "41.el8_3.2"). Only a string with no leading
// version number, with a number of more than 9 digits, or that systemd
// cannot produce (invalid UTF-8, control characters such as NUL) is
// refused, with an error matching ErrInvalidArgs.
func ParseVersion(s string) (Version, error) {
	if !utf8.ValidString(s) {
		return Version{}, badVersion(s, "not valid UTF-8")
	}
	raw, err := unquoteVersion(strings.TrimSpace(s))
	if err != nil {
		return Version{}, badVersion(s, err.Error())
	}
	raw = strings.TrimSpace(raw)
	if !utf8.ValidString(raw) {
		return Version{}, badVersion(s, "not valid UTF-8")
	}
	for _, r := range raw {
		if unicode.IsControl(r) {
			return Version{}, badVersion(s, "contains a control character")
		}
	}
	v, err := parseVersionNumber(strings.TrimPrefix(raw, "v"))
	if err != nil {
		return Version{}, badVersion(s, err.Error())
	}
	v.Raw = raw
	return v, nil
}

// parseVersionNumber parses major[.minor] and sorts what follows into Pre
// and Distro.
func parseVersionNumber(s string) (Version, error) {
	var v Version
	var ok bool
	rest := s
	if v.Major, rest, ok = leadingInt(rest); !ok {
		if rest != "" && rest[0] >= '0' && rest[0] <= '9' {
			return Version{}, fmt.Errorf("version number too long")
		}
		return Version{}, fmt.Errorf("no leading version number")
	}
	if len(rest) > 1 && rest[0] == '.' && isDigit(rest[1]) {
		if v.Minor, rest, ok = leadingInt(rest[1:]); !ok {
			return Version{}, fmt.Errorf("version number too long")
		}
	}
	switch {
	case rest == "":
	case rest[0] == '~':
		// "257~rc2", "256~rc3-1ubuntu1": Debian's spelling of a
		// pre-release.
		v.Pre, v.Distro, _ = strings.Cut(rest[1:], "-")
	case strings.HasPrefix(rest, " (") && strings.HasSuffix(rest, ")"):
		// "239 (239-41.el8_3.2)": the package version in parentheses.
		inner := strings.TrimSpace(rest[2 : len(rest)-1])
		if w, err := parseVersionNumber(strings.TrimPrefix(inner, "v")); err == nil && w.Major == v.Major {
			if v.Minor == 0 {
				v.Minor = w.Minor
			}
			v.Pre, v.Distro = w.Pre, w.Distro
		} else {
			v.Distro = inner
		}
	case strings.ContainsRune("-+. _", rune(rest[0])):
		v.Distro = rest[1:]
		// "257-rc2" is how git describe spells a pre-release.
		if rest[0] == '-' && strings.HasPrefix(v.Distro, "rc") {
			tag, distro, _ := strings.Cut(v.Distro, "-")
			if len(tag) > 2 && allDigits(tag[2:]) {
				v.Pre, v.Distro = tag, distro
			}
		}
	default:
		v.Distro = rest
	}
	return v, nil
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return s != ""
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
