package busd

// Validation of D-Bus names, per the specification's "Valid Names" section.

const maxNameLen = 255

// validBusName reports whether s is a valid unique or well-known bus name.
func validBusName(s string) bool {
	if len(s) == 0 || len(s) > maxNameLen {
		return false
	}
	unique := s[0] == ':'
	if unique {
		s = s[1:]
	}
	return validElements(s, unique, true, 2)
}

// ValidBusName reports whether s is a valid unique or well-known bus name,
// as EmitFrom's sender must be.
func ValidBusName(s string) bool { return validBusName(s) }

// validNamespace reports whether s is a valid arg0namespace value: a bus name
// or interface name prefix, which may consist of a single element.
func validNamespace(s string) bool {
	return len(s) > 0 && len(s) <= maxNameLen && validElements(s, false, true, 1)
}

// validInterface reports whether s is a valid interface (or error) name.
func validInterface(s string) bool {
	return len(s) <= maxNameLen && validElements(s, false, false, 2)
}

// validMember reports whether s is a valid member name.
func validMember(s string) bool {
	if len(s) == 0 || len(s) > maxNameLen || isDigit(s[0]) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isNameChar(s[i], false) {
			return false
		}
	}
	return true
}

// validElements checks a dot-separated name with at least minElems non-empty
// elements. Elements may start with a digit only if digitStart is set and
// may contain '-' only if dash is set.
func validElements(s string, digitStart, dash bool, minElems int) bool {
	elems, start := 0, true
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '.' {
			if start {
				return false
			}
			elems++
			start = true
			continue
		}
		if !isNameChar(c, dash) || (start && !digitStart && isDigit(c)) {
			return false
		}
		start = false
	}
	if start {
		return false // empty name, or trailing dot
	}
	return elems+1 >= minElems
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func isNameChar(c byte, dash bool) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || isDigit(c) || c == '_' || (dash && c == '-')
}

// validPath reports whether s is a valid object path.
func validPath(s string) bool {
	if len(s) == 0 || s[0] != '/' {
		return false
	}
	if s == "/" {
		return true
	}
	start := true // at the start of an element
	for i := 1; i < len(s); i++ {
		c := s[i]
		if c == '/' {
			if start {
				return false
			}
			start = true
			continue
		}
		if !isNameChar(c, false) {
			return false
		}
		start = false
	}
	return !start
}
