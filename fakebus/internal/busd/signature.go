package busd

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/godbus/dbus/v5"
)

// Signatures: validation, and derivation from Go types (as godbus does it).

const (
	maxSignatureLen = 255
	maxSigNesting   = 32 // separately for arrays and for structs
)

// validSignature reports whether s is a valid signature: zero or more
// single complete types.
func validSignature(s string) bool {
	if len(s) > maxSignatureLen {
		return false
	}
	for s != "" {
		n := singleType(s, 0, 0)
		if n == 0 {
			return false
		}
		s = s[n:]
	}
	return true
}

// sigLen returns the length of the single complete type at the start of the
// valid signature s.
func sigLen(s string) int { return singleType(s, 0, 0) }

// TypeLen returns the length of the single complete type at the start of
// the valid signature s.
func TypeLen(s string) int { return sigLen(s) }

// SplitSignature splits the valid signature s into its single complete
// types: "sa(ss)b" into "s", "a(ss)" and "b".
func SplitSignature(s string) []string {
	var out []string
	for s != "" {
		n := sigLen(s)
		out = append(out, s[:n])
		s = s[n:]
	}
	return out
}

// singleType returns the length of the single complete type at the start of
// s, or 0 if there is none. arrays and structs count the enclosing containers.
func singleType(s string, arrays, structs int) int {
	if s == "" {
		return 0
	}
	switch c := s[0]; {
	case isBasicType(c) || c == 'v':
		return 1
	case c == 'a':
		if arrays >= maxSigNesting {
			return 0
		}
		if len(s) > 1 && s[1] == '{' {
			// a{KV}: a basic key, one value type, and the closing brace.
			if structs >= maxSigNesting || len(s) < 5 || !isBasicType(s[2]) {
				return 0
			}
			n := singleType(s[3:], arrays+1, structs+1)
			if n == 0 || 3+n >= len(s) || s[3+n] != '}' {
				return 0
			}
			return 4 + n
		}
		n := singleType(s[1:], arrays+1, structs)
		if n == 0 {
			return 0
		}
		return 1 + n
	case c == '(':
		if structs >= maxSigNesting {
			return 0
		}
		i := 1
		for i < len(s) && s[i] != ')' {
			n := singleType(s[i:], arrays, structs+1)
			if n == 0 {
				return 0
			}
			i += n
		}
		if i >= len(s) || i == 1 {
			return 0 // unterminated or empty struct
		}
		return i + 1
	}
	return 0
}

// isBasicType reports whether c is a basic type code (valid as a dict key).
func isBasicType(c byte) bool {
	switch c {
	case 'y', 'b', 'n', 'q', 'i', 'u', 'x', 't', 'd', 's', 'o', 'g', 'h':
		return true
	}
	return false
}

// sigAlign returns the alignment of values whose type code is c.
func sigAlign(c byte) int {
	switch c {
	case 'y', 'g', 'v':
		return 1
	case 'n', 'q':
		return 2
	case 'x', 't', 'd', '(', '{':
		return 8
	}
	return 4
}

// signatureOfValues returns the signature godbus derives for body.
func signatureOfValues(body []any) (string, error) {
	var sb strings.Builder
	for _, v := range body {
		switch v.(type) {
		case string:
			sb.WriteByte('s')
		case uint32:
			sb.WriteByte('u')
		case dbus.ObjectPath:
			sb.WriteByte('o')
		case bool:
			sb.WriteByte('b')
		case dbus.Variant:
			sb.WriteByte('v')
		case map[string]dbus.Variant, PropDict:
			sb.WriteString("a{sv}")
		case []string:
			sb.WriteString("as")
		default:
			if v == nil {
				return "", fmt.Errorf("busd: cannot encode a nil value")
			}
			if err := appendSignature(&sb, reflect.TypeOf(v), 0, 0); err != nil {
				return "", err
			}
		}
	}
	s := sb.String()
	if len(s) > maxSignatureLen {
		return "", fmt.Errorf("busd: signature %q is too long", s)
	}
	return s, nil
}

// appendSignature appends the signature of t, as dbus.SignatureOfType does.
func appendSignature(sb *strings.Builder, t reflect.Type, arrays, structs int) error {
	if arrays > maxSigNesting || structs > maxSigNesting {
		return fmt.Errorf("busd: %s is nested too deeply", t)
	}
	switch t {
	case reflect.TypeOf(dbus.ObjectPath("")):
		sb.WriteByte('o')
		return nil
	case reflect.TypeOf(dbus.Signature{}):
		sb.WriteByte('g')
		return nil
	case reflect.TypeOf(dbus.Variant{}):
		sb.WriteByte('v')
		return nil
	case reflect.TypeOf(PropDict{}):
		sb.WriteString("a{sv}")
		return nil
	case reflect.TypeOf(dbus.UnixFD(0)), reflect.TypeOf(dbus.UnixFDIndex(0)):
		sb.WriteByte('h')
		return nil
	}
	switch t.Kind() {
	case reflect.Uint8:
		sb.WriteByte('y')
	case reflect.Bool:
		sb.WriteByte('b')
	case reflect.Int16:
		sb.WriteByte('n')
	case reflect.Uint16:
		sb.WriteByte('q')
	case reflect.Int, reflect.Int32:
		sb.WriteByte('i')
	case reflect.Uint, reflect.Uint32:
		sb.WriteByte('u')
	case reflect.Int64:
		sb.WriteByte('x')
	case reflect.Uint64:
		sb.WriteByte('t')
	case reflect.Float64:
		sb.WriteByte('d')
	case reflect.String:
		sb.WriteByte('s')
	case reflect.Pointer:
		return appendSignature(sb, t.Elem(), arrays, structs)
	case reflect.Interface:
		sb.WriteByte('v')
	case reflect.Slice, reflect.Array:
		sb.WriteByte('a')
		return appendSignature(sb, t.Elem(), arrays+1, structs)
	case reflect.Map:
		if !isBasicKind(t.Key()) {
			return fmt.Errorf("busd: %s is not a valid dict key type", t.Key())
		}
		sb.WriteString("a{")
		if err := appendSignature(sb, t.Key(), arrays+1, structs+1); err != nil {
			return err
		}
		if err := appendSignature(sb, t.Elem(), arrays+1, structs+1); err != nil {
			return err
		}
		sb.WriteByte('}')
	case reflect.Struct:
		sb.WriteByte('(')
		n := 0
		for i := 0; i < t.NumField(); i++ {
			if f := t.Field(i); f.PkgPath == "" && f.Tag.Get("dbus") != "-" {
				if err := appendSignature(sb, f.Type, arrays, structs+1); err != nil {
					return err
				}
				n++
			}
		}
		if n == 0 {
			return fmt.Errorf("busd: struct %s has no exported fields", t)
		}
		sb.WriteByte(')')
	default:
		return fmt.Errorf("busd: %s cannot be represented in D-Bus", t)
	}
	return nil
}

// isBasicKind reports whether t can be a dict key, as godbus decides.
func isBasicKind(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Int16, reflect.Int32, reflect.Int64, reflect.Float64,
		reflect.String, reflect.Uint, reflect.Int:
		return true
	}
	return false
}
