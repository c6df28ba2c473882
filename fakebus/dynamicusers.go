package fakebus

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/sdbus-go/sdbus/fakebus/internal/busd"
)

// Dynamic users (DynamicUser=): the fake allocates none, so
// GetDynamicUsers answers an empty list and the lookups answer
// NoSuchDynamicUser for every valid name or UID, as systemd does when no
// unit runs with DynamicUser=yes.

// dynamicUserCallLocked answers the methods of this file; ok is false
// for other members.
func (m *manager) dynamicUserCallLocked(c *busd.Call) (out []any, ok bool, err error) {
	switch c.Member {
	case "GetDynamicUsers":
		if err := args(c, ""); err != nil {
			return nil, true, err
		}
		return []any{[]dynamicUser{}}, true, nil
	case "LookupDynamicUserByName":
		if err := args(c, "s"); err != nil {
			return nil, true, err
		}
		name := c.Body[0].(string)
		if !relaxedUserName(name) {
			return nil, true, errInvalidArgs("User name invalid: %s", name)
		}
		return nil, true, &callErr{errPrefix + "NoSuchDynamicUser", "Dynamic user " + name + " does not exist."}
	case "LookupDynamicUserByUID":
		if err := args(c, "u"); err != nil {
			return nil, true, err
		}
		uid := c.Body[0].(uint32)
		if uid == 0xffffffff || uid == 0xffff { // systemd's uid_is_valid
			return nil, true, errInvalidArgs("User ID invalid: %d", uid)
		}
		return nil, true, &callErr{errPrefix + "NoSuchDynamicUser", "Dynamic user ID " + strconv.FormatUint(uint64(uid), 10) + " does not exist."}
	}
	return nil, false, nil
}

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
