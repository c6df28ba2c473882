package fakebus

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Dynamic users (DynamicUser=): the fake allocates none, so
// GetDynamicUsers answers an empty list and the lookups answer
// NoSuchDynamicUser for every valid name or UID, as systemd does when no
// unit runs with DynamicUser=yes.

// dynamicUser is one element of GetDynamicUsers, (us).
type dynamicUser struct {
	UID  uint32
	Name string
}

// relaxedUserName is systemd's valid_user_group_name with VALID_USER_RELAX,
// as far as the fake needs it: not empty, not "." or "..", not numeric,
// no leading or trailing whitespace, no '/', ':' or control characters,
// valid UTF-8. (Measured: "", a name only systemd rejects; "bad name",
// "0abc" and "-abc" are valid.)
func relaxedUserName(s string) bool {
	if s == "" || s == "." || s == ".." || !utf8.ValidString(s) || len(s) > 256 {
		return false
	}
	if _, err := strconv.ParseUint(s, 10, 32); err == nil {
		return false
	}
	if r, _ := utf8.DecodeRuneInString(s); unicode.IsSpace(r) {
		return false
	}
	if r, _ := utf8.DecodeLastRuneInString(s); unicode.IsSpace(r) {
		return false
	}
	return !strings.ContainsFunc(s, func(r rune) bool { return r == '/' || r == ':' || unicode.IsControl(r) })
}
