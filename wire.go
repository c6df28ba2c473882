package sdbus

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"unicode/utf8"

	"github.com/godbus/dbus/v5"
)

// What a D-Bus message can carry. A string on the wire must be valid UTF-8
// without NUL bytes and an object path must be well formed; godbus refuses
// to encode anything else. That refusal is local: nothing was sent and the
// connection is as healthy as before. sdbus checks every argument before
// sending (checkWire), so that the caller learns which argument is wrong,
// and treats a refusal that slips through as the caller's error
// (ErrInvalidArgs), never as a transport failure: it neither ends the
// connection nor sends the call again.

// wireArgNames names the arguments of the Manager methods sdbus calls, for
// the errors of checkWire.
func wireArgNames(method string) []string {
	switch method {
	case "StartUnit", "StopUnit", "RestartUnit", "ReloadUnit", "TryRestartUnit",
		"ReloadOrRestartUnit", "ReloadOrTryRestartUnit":
		return []string{"name", "mode"}
	case "StartTransientUnit":
		return []string{"name", "mode", "properties", "aux"}
	case "ListUnitsByPatterns":
		return []string{"states", "patterns"}
	case "ListUnitsByNames":
		return []string{"names"}
	case "AttachProcessesToUnit":
		return []string{"unit", "subcgroup", "pids"}
	case "KillUnit":
		return []string{"name", "whom", "signal"}
	case "SetUnitProperties":
		return []string{"name", "runtime", "properties"}
	case "GetUnit", "LoadUnit", "ResetFailedUnit", "FreezeUnit", "ThawUnit", "GetUnitFileState":
		return []string{"name"}
	case "EnableUnitFiles", "ReenableUnitFiles", "PresetUnitFiles", "LinkUnitFiles", "MaskUnitFiles":
		return []string{"files", "runtime", "force"}
	case "DisableUnitFiles", "UnmaskUnitFiles":
		return []string{"files", "runtime"}
	case "ListUnitFilesByPatterns":
		return []string{"states", "patterns"}
	}
	return nil
}

// checkWire returns an error matching ErrInvalidArgs, naming the argument
// and the element within it, when a value in args cannot be carried by a
// D-Bus message. names labels args (missing names read "argument N"). It
// is on every call's path: nothing is allocated unless a value is wrong.
func checkWire(op, unit string, names []string, args []any) error {
	for i, a := range args {
		if where, why := wireFault(reflect.ValueOf(a), 0); why != "" {
			label := fmt.Sprintf("argument %d", i+1)
			if i < len(names) {
				label = names[i]
			}
			return invalidArg(op, unit, "%s%s: %s; D-Bus cannot carry it", label, where, why)
		}
	}
	return nil
}

// maxWireDepth bounds the walk; D-Bus itself allows 64 levels of nesting.
const maxWireDepth = 64

// wireFault walks v and returns why the first value D-Bus cannot carry is
// wrong and where it is below v ("[2].Argv[1] at offset 3"), or why == "".
// The path is built only on the way back from a fault.
func wireFault(v reflect.Value, depth int) (where, why string) {
	if depth > maxWireDepth {
		return "", "nested too deeply"
	}
	if !v.IsValid() {
		return "", ""
	}
	switch v.Type() {
	case reflect.TypeOf(dbus.ObjectPath("")):
		if p := dbus.ObjectPath(v.String()); !p.IsValid() {
			return "", fmt.Sprintf("%q is not a valid object path", string(p))
		}
		return "", ""
	case reflect.TypeOf(dbus.Signature{}):
		return "", ""
	case reflect.TypeOf(dbus.Variant{}):
		return wireFault(reflect.ValueOf(valueAt[dbus.Variant](v).Value()), depth+1)
	case reflect.TypeOf(propertyWire{}):
		p := valueAt[propertyWire](v)
		if at, why := stringFault(p.Name); why != "" {
			return " name" + at, why
		}
		if w, why := wireFault(reflect.ValueOf(p.Value.Value()), depth+1); why != "" {
			return fmt.Sprintf(" %q", p.Name) + w, why
		}
		return "", ""
	}
	switch v.Kind() {
	case reflect.String:
		return stringFault(v.String())
	case reflect.Slice, reflect.Array:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return "", "" // ay: bytes, not a string
		}
		for i := 0; i < v.Len(); i++ {
			if w, why := wireFault(v.Index(i), depth+1); why != "" {
				return fmt.Sprintf("[%d]", i) + w, why
			}
		}
	case reflect.Map:
		iter := v.MapRange()
		for iter.Next() {
			if w, why := wireFault(iter.Key(), depth+1); why != "" {
				return fmt.Sprintf("[%q] key", fmt.Sprint(iter.Key())) + w, why
			}
			if w, why := wireFault(iter.Value(), depth+1); why != "" {
				return fmt.Sprintf("[%q]", fmt.Sprint(iter.Key())) + w, why
			}
		}
	case reflect.Struct:
		t := v.Type()
		for i := 0; i < v.NumField(); i++ {
			if !t.Field(i).IsExported() {
				continue
			}
			if w, why := wireFault(v.Field(i), depth+1); why != "" {
				return "." + t.Field(i).Name + w, why
			}
		}
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			return wireFault(v.Elem(), depth+1)
		}
	}
	return "", ""
}

// valueAt returns the T that v holds, through its address when it has one
// (an element of a slice, a field of one): that costs no allocation.
func valueAt[T any](v reflect.Value) *T {
	if v.CanAddr() {
		return v.Addr().Interface().(*T)
	}
	x := v.Interface().(T)
	return &x
}

// stringFault says why s cannot be a D-Bus string, with the byte offset
// as " at offset N", or why == "".
func stringFault(s string) (at, why string) {
	if i := strings.IndexByte(s, 0); i >= 0 {
		return fmt.Sprintf(" at offset %d", i), "contains a NUL byte"
	}
	if !utf8.ValidString(s) {
		for i := 0; i < len(s); {
			r, n := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && n <= 1 {
				return fmt.Sprintf(" at offset %d", i), "is not valid UTF-8"
			}
			i += n
		}
	}
	return "", ""
}

// refusedError marks a call godbus refused to encode: nothing was sent and
// the connection is unaffected. It is the caller's error: ErrInvalidArgs.
type refusedError struct{ error }

func (e refusedError) Unwrap() error { return e.error }

// mismatchError marks a reply that arrived but does not have the type the
// call expects: an answer, not a transport failure.
type mismatchError struct{ error }

func (e mismatchError) Unwrap() error { return e.error }

// encodingRefusal reports whether err is godbus refusing to build a
// message (a FormatError or InvalidMessageError). Decoding errors of
// godbus's read loop are of the same types, but they end the connection
// and come with a response sequence; storeCall tells them apart.
func encodingRefusal(err error) bool {
	var fe dbus.FormatError
	var ie dbus.InvalidMessageError
	return errors.As(err, &fe) || errors.As(err, &ie)
}
