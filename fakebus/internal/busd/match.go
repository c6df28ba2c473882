package busd

import (
	"errors"
	"reflect"
	"strings"

	"github.com/godbus/dbus/v5"
)

// Match rules, as in the D-Bus specification's "Match Rules" section and
// dbus-daemon's parser.

const (
	maxMatchRuleLen   = 1024 // DBUS_MAXIMUM_MATCH_RULE_LENGTH
	maxMatchArg       = 63   // DBUS_MAXIMUM_MATCH_RULE_ARG_NUMBER
	maxRulesPerClient = 4096
)

// argKind says how an argN key compares.
type argKind uint8

const (
	argString    argKind = iota // argN: string equality
	argPath                     // argNpath: path prefix semantics
	argNamespace                // arg0namespace: bus name / interface namespace
)

// argMatch is one argN, argNpath or arg0namespace condition.
type argMatch struct {
	value string
	index uint8 // at most maxMatchArg
	kind  argKind
}

// matchRule is a parsed match rule. Empty fields match anything.
type matchRule struct {
	typ       dbus.Type // 0 = any
	sender    string
	iface     string
	member    string
	path      dbus.ObjectPath
	pathNS    dbus.ObjectPath
	dest      string
	eavesdrop bool
	args      []argMatch // sorted by index, at most one per index
}

func ruleError(msg string) error { return errors.New(msg) }

// parseMatchRule parses a match rule such as
// "type='signal',sender='org.freedesktop.systemd1',member='JobRemoved'".
//
// Values may be quoted with apostrophes; inside quotes a backslash is literal,
// outside quotes \' is an apostrophe (and any other backslash is literal).
// Unquoted values end at a comma. Each key may appear once.
func parseMatchRule(s string) (*matchRule, error) {
	if len(s) > maxMatchRuleLen {
		return nil, ruleError("Match rule text is too long")
	}
	r := &matchRule{}
	seen := make(map[string]bool)
	i := 0
	for i < len(s) {
		for i < len(s) && isSpace(s[i]) {
			i++
		}
		if i == len(s) {
			break
		}
		ks := i
		for i < len(s) && s[i] != '=' && !isSpace(s[i]) {
			i++
		}
		key := s[ks:i]
		for i < len(s) && isSpace(s[i]) {
			i++
		}
		if key == "" {
			return nil, ruleError("Match rule has a key with no name")
		}
		if i == len(s) || s[i] != '=' {
			return nil, ruleError("Match rule has a key with no subsequent '=' character")
		}
		i++
		value, next, err := parseRuleValue(s, i)
		if err != nil {
			return nil, err
		}
		i = next
		if err := r.set(key, value, seen); err != nil {
			return nil, err
		}
	}
	if r.path != "" && r.pathNS != "" {
		return nil, ruleError("Cannot specify both path and path_namespace in the same match rule")
	}
	r.compact()
	return r, nil
}

// compact makes r keep its strings in one allocation and its arguments in
// a slice of their exact length: a rule holds little more than its text
// (Limits.MaxMatchRules, matchRuleCost).
func (r *matchRule) compact() {
	n := len(r.sender) + len(r.iface) + len(r.member) + len(r.path) + len(r.pathNS) + len(r.dest)
	for _, a := range r.args {
		n += len(a.value)
	}
	var sb strings.Builder
	sb.Grow(n)
	for _, v := range []string{r.sender, r.iface, r.member, string(r.path), string(r.pathNS), r.dest} {
		sb.WriteString(v)
	}
	for _, a := range r.args {
		sb.WriteString(a.value)
	}
	all := sb.String()
	take := func(v string) string {
		v, all = all[:len(v)], all[len(v):]
		return v
	}
	r.sender = take(r.sender)
	r.iface = take(r.iface)
	r.member = take(r.member)
	r.path = dbus.ObjectPath(take(string(r.path)))
	r.pathNS = dbus.ObjectPath(take(string(r.pathNS)))
	r.dest = take(r.dest)
	if len(r.args) > 0 {
		args := make([]argMatch, len(r.args))
		for i, a := range r.args {
			a.value = take(a.value)
			args[i] = a
		}
		r.args = args
	}
}

// parseRuleValue parses the value starting at s[i] and returns it and the
// index after the terminating comma (or len(s)).
func parseRuleValue(s string, i int) (string, int, error) {
	var b strings.Builder
	const (
		plain  = 0
		quoted = 1
		escape = 2
	)
	state := plain
	for ; i < len(s); i++ {
		c := s[i]
		switch state {
		case plain:
			switch c {
			case '\'':
				state = quoted
			case ',':
				return b.String(), i + 1, nil
			case '\\':
				state = escape
			default:
				b.WriteByte(c)
			}
		case escape:
			// A backslash outside quotes only escapes an apostrophe.
			if c != '\'' {
				b.WriteByte('\\')
			}
			b.WriteByte(c)
			state = plain
		case quoted:
			if c == '\'' {
				state = plain
			} else {
				b.WriteByte(c)
			}
		}
	}
	switch state {
	case escape:
		b.WriteByte('\\')
	case quoted:
		return "", 0, ruleError("Unbalanced quotation marks in match rule")
	}
	return b.String(), i, nil
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// set applies one key=value pair.
func (r *matchRule) set(key, value string, seen map[string]bool) error {
	a, isArg, err := parseArgKey(key)
	if err != nil {
		return err
	}
	if isArg {
		n := itoa(uint64(a.index))
		if seen["arg"+n] {
			return ruleError("Argument " + n + " matched more than once in match rule")
		}
		seen["arg"+n] = true
		if a.kind == argNamespace && !validNamespace(value) {
			return ruleError("arg0namespace='" + value + "' is not a valid prefix of a bus name")
		}
		a.value = value
		r.addArg(a)
		return nil
	}
	if seen[key] {
		return ruleError("Key " + key + " specified twice in match rule")
	}
	seen[key] = true
	switch key {
	case "type":
		switch value {
		case "signal":
			r.typ = dbus.TypeSignal
		case "method_call":
			r.typ = dbus.TypeMethodCall
		case "method_return":
			r.typ = dbus.TypeMethodReply
		case "error":
			r.typ = dbus.TypeError
		default:
			return ruleError("Invalid message type (" + value + ") in match rule")
		}
	case "sender":
		if !validBusName(value) {
			return ruleError("Sender name '" + value + "' is invalid")
		}
		r.sender = value
	case "interface":
		if !validInterface(value) {
			return ruleError("Interface name '" + value + "' is invalid")
		}
		r.iface = value
	case "member":
		if !validMember(value) {
			return ruleError("Member name '" + value + "' is invalid")
		}
		r.member = value
	case "path":
		if !validPath(value) {
			return ruleError("Path '" + value + "' is invalid")
		}
		r.path = dbus.ObjectPath(value)
	case "path_namespace":
		if !validPath(value) {
			return ruleError("Path namespace '" + value + "' is invalid")
		}
		r.pathNS = dbus.ObjectPath(value)
	case "destination":
		if !validBusName(value) {
			return ruleError("Destination name '" + value + "' is invalid")
		}
		r.dest = value
	case "eavesdrop":
		switch value {
		case "true":
			r.eavesdrop = true
		case "false":
			r.eavesdrop = false
		default:
			return ruleError("eavesdrop='" + value + "' is invalid, it should be 'true' or 'false'")
		}
	default:
		return ruleError("Unknown key \"" + key + "\" in match rule")
	}
	return nil
}

// parseArgKey parses argN, argNpath and arg0namespace keys. ok is false for
// keys that do not start with "arg" followed by a digit.
func parseArgKey(key string) (a argMatch, ok bool, err error) {
	if !strings.HasPrefix(key, "arg") || len(key) < 4 || !isDigit(key[3]) {
		return a, false, nil
	}
	i := 3
	n := 0
	for i < len(key) && isDigit(key[i]) {
		n = n*10 + int(key[i]-'0')
		i++
		if n > maxMatchArg {
			return a, false, ruleError("Key " + key + " has an argument number that is too large")
		}
	}
	a.index = uint8(n)
	switch key[i:] {
	case "":
		a.kind = argString
	case "path":
		a.kind = argPath
	case "namespace":
		if n != 0 {
			return a, false, ruleError("Key " + key + " is not allowed: only arg0namespace is")
		}
		a.kind = argNamespace
	default:
		return a, false, ruleError("Unknown key \"" + key + "\" in match rule")
	}
	return a, true, nil
}

// addArg inserts a keeping r.args sorted by index.
func (r *matchRule) addArg(a argMatch) {
	i := len(r.args)
	for i > 0 && r.args[i-1].index > a.index {
		i--
	}
	r.args = append(r.args, argMatch{})
	copy(r.args[i+1:], r.args[i:])
	r.args[i] = a
}

// equal reports whether r and o are the same rule (for RemoveMatch).
func (r *matchRule) equal(o *matchRule) bool {
	if r.typ != o.typ || r.sender != o.sender || r.iface != o.iface || r.member != o.member ||
		r.path != o.path || r.pathNS != o.pathNS || r.dest != o.dest || r.eavesdrop != o.eavesdrop ||
		len(r.args) != len(o.args) {
		return false
	}
	for i := range r.args {
		if r.args[i] != o.args[i] {
			return false
		}
	}
	return true
}

// matches reports whether m satisfies r. owner returns the unique name that
// currently owns a bus name ("" if none); a sender or destination key naming
// a well-known name matches messages from / to its current owner.
func (r *matchRule) matches(m *msgInfo, owner func(string) string) bool {
	if !r.matchesHeader(m, owner) {
		return false
	}
	for _, a := range r.args {
		if int(a.index) >= len(m.body) || !a.matches(m.body[a.index]) {
			return false
		}
	}
	return true
}

// matchesHeader is matches without the argument keys: what can be decided
// before a message has a body.
func (r *matchRule) matchesHeader(m *msgInfo, owner func(string) string) bool {
	if r.typ != 0 && r.typ != m.typ {
		return false
	}
	if r.iface != "" && r.iface != m.iface {
		return false
	}
	if r.member != "" && r.member != m.member {
		return false
	}
	if r.path != "" && r.path != m.path {
		return false
	}
	if r.pathNS != "" && !inPathNamespace(m.path, r.pathNS) {
		return false
	}
	if r.sender != "" {
		// Senders on the wire are unique names or the driver's name; a
		// well-known name matches whatever unique name owns it now, so a
		// signal forged with the well-known name itself does not match.
		want := r.sender
		if want[0] != ':' && want != driverName {
			want = owner(want)
		}
		if want == "" || want != m.sender {
			return false
		}
	}
	if r.dest != "" {
		// Compare the connections the names stand for.
		if m.dest == "" {
			return false
		}
		want := owner(r.dest)
		if want == "" || want != owner(m.dest) {
			return false
		}
	}
	return true
}

// inPathNamespace reports whether path is ns or below it.
func inPathNamespace(path, ns dbus.ObjectPath) bool {
	if ns == "/" {
		return path != ""
	}
	return path == ns || (len(path) > len(ns) && path[len(ns)] == '/' && path[:len(ns)] == ns)
}

// matches applies one argument condition to the argument v.
func (a *argMatch) matches(v any) bool {
	s, isPath, ok := argText(v)
	if !ok {
		return false
	}
	switch a.kind {
	case argString:
		return !isPath && s == a.value
	case argPath:
		// Equal, or one is a prefix of the other that ends with '/'.
		return s == a.value ||
			(strings.HasSuffix(a.value, "/") && strings.HasPrefix(s, a.value)) ||
			(strings.HasSuffix(s, "/") && strings.HasPrefix(a.value, s))
	case argNamespace:
		return !isPath && (s == a.value || (strings.HasPrefix(s, a.value) && s[len(a.value)] == '.'))
	}
	return false
}

// argText returns v if it is a D-Bus STRING or OBJECT_PATH.
func argText(v any) (s string, isPath, ok bool) {
	switch x := v.(type) {
	case string:
		return x, false, true
	case dbus.ObjectPath:
		return string(x), true, true
	case nil:
		return "", false, false
	}
	// Named string types (type unitName string) are encoded as STRING.
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.String {
		return rv.String(), false, true
	}
	return "", false, false
}
