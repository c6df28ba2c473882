package sdversions

//go:generate go test -run TestCapturedTable -update .

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io/fs"
	"path"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/godbus/dbus/v5"
	"github.com/godbus/dbus/v5/introspect"
	"github.com/sdbus-go/sdbus/fakebus/internal/busd"
)

// Capture is what one real systemd release answered on the bus, read by
// LoadCapture from data/MAJOR/ (the format is described in data/README.md;
// scripts/capture-introspection refreshes it).
type Capture struct {
	// Release is the manager's Version property ("252.39-1~deb12u1"),
	// Package the Debian package version of systemd in the root.
	Release string `json:"release"`
	Package string `json:"package,omitempty"`
	// Objects are the captured objects by kind ("manager", "service",
	// "job", "node-unit", ...).
	Objects map[string]*Object `json:"-"`
}

// Object is one captured D-Bus object: its introspection data and what
// Properties.GetAll answered.
type Object struct {
	// Kind names the object ("manager", "service", "node-root", ...); the
	// files are KIND.xml and KIND.json.
	Kind string `json:"kind"`
	// Path is the object path; Unit the unit's name (unit objects) or the
	// job's unit (job objects).
	Path dbus.ObjectPath `json:"path"`
	Unit string          `json:"unit,omitempty"`
	// Made says how the unit or job was made and the state it was in
	// when captured ("transient, started, active").
	Made string `json:"made,omitempty"`
	// Errors lists what failed while capturing it (empty: nothing).
	Errors []string `json:"errors,omitempty"`
	// Properties is Properties.GetAll of each interface the introspection
	// data lists, in the order of the introspection data and each
	// interface's properties sorted by name.
	Properties []Prop `json:"properties,omitempty"`
	// GetAllEmpty is the sorted names Properties.GetAll("") answered (the
	// empty interface name: all interfaces at once).
	GetAllEmpty []string `json:"getAllEmpty,omitempty"`
	// GetOnly are properties that Get answers although neither the
	// introspection data nor GetAll lists them (systemd 262 hides the
	// deprecated cgroup-v1 settings): the names tried are the properties
	// any captured release lists for the same interface.
	GetOnly []Prop `json:"getOnly,omitempty"`

	// XML is the introspection data as answered; Node is it parsed.
	XML  string           `json:"-"`
	Node *introspect.Node `json:"-"`
}

// Prop is one property: interface, name, D-Bus signature and value.
type Prop struct {
	Interface string `json:"interface"`
	Name      string `json:"name"`
	Type      string `json:"type"`
	// Value is the value in the JSON form busctl --json prints: numbers as
	// numbers (64-bit ones exact), strings, object paths and signatures as
	// strings, arrays (ay too) as arrays, structs as arrays, dicts as
	// objects, variants as {"type": SIG, "data": VALUE}.
	Value json.RawMessage `json:"value"`
	// Varies is empty for a value that is the same on every boot; else
	// why it differs ("time", "pid", "id", "usage", "count", "host"): the
	// value recorded is the one seen, the fake computes its own.
	Varies string `json:"varies,omitempty"`
}

// Variant returns p's value as a D-Bus variant of signature p.Type, with
// the Go types godbus encodes that signature from (structs as Go structs).
func (p Prop) Variant() (dbus.Variant, error) {
	sig, err := dbus.ParseSignature(p.Type)
	if err != nil {
		return dbus.Variant{}, err
	}
	d := json.NewDecoder(bytes.NewReader(p.Value))
	d.UseNumber()
	var raw any
	if err := d.Decode(&raw); err != nil {
		return dbus.Variant{}, fmt.Errorf("%s: %w", p.Name, err)
	}
	v, err := fromJSON(sig.String(), raw)
	if err != nil {
		return dbus.Variant{}, fmt.Errorf("%s (%s): %w", p.Name, p.Type, err)
	}
	return dbus.MakeVariantWithSignature(v.Interface(), sig), nil
}

// NewProp returns the Prop of a value as godbus decoded it.
func NewProp(iface, name string, v dbus.Variant) (Prop, error) {
	j, err := toJSON(v.Signature().String(), v.Value())
	if err != nil {
		return Prop{}, fmt.Errorf("%s: %w", name, err)
	}
	b, err := json.Marshal(j)
	if err != nil {
		return Prop{}, fmt.Errorf("%s: %w", name, err)
	}
	return Prop{Interface: iface, Name: name, Type: v.Signature().String(), Value: b}, nil
}

// ValueJSON returns the JSON form of a value as godbus decoded it (Prop's
// Value), to compare values across backends.
func ValueJSON(v dbus.Variant) (json.RawMessage, error) {
	p, err := NewProp("", "", v)
	return p.Value, err
}

// LoadCapture reads the capture of release major ("252") from fsys, a
// directory holding data/MAJOR/ (the package directory on disk in tests).
func LoadCapture(fsys fs.FS, major string) (*Capture, error) {
	dir := path.Join("data", major)
	b, err := fs.ReadFile(fsys, path.Join(dir, "release.json"))
	if err != nil {
		return nil, err
	}
	c := &Capture{Objects: map[string]*Object{}}
	if err := json.Unmarshal(b, c); err != nil {
		return nil, fmt.Errorf("%s/release.json: %w", dir, err)
	}
	names, err := fs.Glob(fsys, path.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	for _, name := range names {
		kind := strings.TrimSuffix(path.Base(name), ".json")
		if kind == "release" {
			continue
		}
		o := &Object{}
		if b, err = fs.ReadFile(fsys, name); err != nil {
			return nil, err
		}
		if err := json.Unmarshal(b, o); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if o.Kind != kind {
			return nil, fmt.Errorf("%s: kind %q", name, o.Kind)
		}
		x, err := fs.ReadFile(fsys, path.Join(dir, kind+".xml"))
		if err != nil {
			return nil, err
		}
		o.XML = string(x)
		o.Node = &introspect.Node{}
		if err := xml.Unmarshal(x, o.Node); err != nil {
			return nil, fmt.Errorf("%s.xml: %w", kind, err)
		}
		c.Objects[kind] = o
	}
	return c, nil
}

// CapturedReleases lists the releases fsys holds captures of (data/MAJOR),
// in ascending order.
func CapturedReleases(fsys fs.FS) ([]string, error) {
	dirs, err := fs.Glob(fsys, "data/*/release.json")
	if err != nil {
		return nil, err
	}
	var out []string
	for _, d := range dirs {
		out = append(out, path.Base(path.Dir(d)))
	}
	sort.Slice(out, func(i, j int) bool {
		a, _ := strconv.Atoi(out[i])
		b, _ := strconv.Atoi(out[j])
		return a < b
	})
	return out, nil
}

// Interface returns the named interface of o's introspection data, or nil.
func (o *Object) Interface(name string) *introspect.Interface {
	if o.Node == nil {
		return nil
	}
	for i := range o.Node.Interfaces {
		if o.Node.Interfaces[i].Name == name {
			return &o.Node.Interfaces[i]
		}
	}
	return nil
}

// Interfaces returns every interface of c's introspection data once, by
// name: the D-Bus interfaces of that release, each the same on every
// object that has it (TestCapturedData checks that), taken from the first
// object kind in name order that has it.
func (c *Capture) Interfaces() map[string]introspect.Interface {
	kinds := make([]string, 0, len(c.Objects))
	for k := range c.Objects {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	out := map[string]introspect.Interface{}
	for _, k := range kinds {
		if c.Objects[k].Node == nil {
			continue
		}
		for _, in := range c.Objects[k].Node.Interfaces {
			if _, ok := out[in.Name]; !ok {
				out[in.Name] = in
			}
		}
	}
	return out
}

// toJSON converts a value godbus decoded with signature sig to its JSON
// form.
func toJSON(sig string, v any) (any, error) {
	switch sig[0] {
	case 'y', 'n', 'q', 'i', 'u', 'x', 't', 'h':
		rv := reflect.ValueOf(v)
		switch rv.Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			return json.Number(strconv.FormatInt(rv.Int(), 10)), nil
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			return json.Number(strconv.FormatUint(rv.Uint(), 10)), nil
		}
		return nil, fmt.Errorf("%T for %s", v, sig)
	case 'd':
		f, ok := v.(float64)
		if !ok {
			return nil, fmt.Errorf("%T for d", v)
		}
		return json.Number(strconv.FormatFloat(f, 'g', -1, 64)), nil
	case 'b':
		b, ok := v.(bool)
		if !ok {
			return nil, fmt.Errorf("%T for b", v)
		}
		return b, nil
	case 's', 'o', 'g':
		switch s := v.(type) {
		case string:
			return s, nil
		case dbus.ObjectPath:
			return string(s), nil
		case dbus.Signature:
			return s.String(), nil
		}
		return nil, fmt.Errorf("%T for %s", v, sig)
	case 'v':
		vv, ok := v.(dbus.Variant)
		if !ok {
			return nil, fmt.Errorf("%T for v", v)
		}
		d, err := toJSON(vv.Signature().String(), vv.Value())
		if err != nil {
			return nil, err
		}
		return map[string]any{"type": vv.Signature().String(), "data": d}, nil
	case 'a':
		elem := sig[1:]
		rv := reflect.ValueOf(v)
		if elem[0] == '{' {
			k, val := splitDict(elem)
			if rv.Kind() != reflect.Map {
				return nil, fmt.Errorf("%T for %s", v, sig)
			}
			out := map[string]any{}
			for _, key := range rv.MapKeys() {
				kj, err := toJSON(k, key.Interface())
				if err != nil {
					return nil, err
				}
				vj, err := toJSON(val, rv.MapIndex(key).Interface())
				if err != nil {
					return nil, err
				}
				out[fmt.Sprint(kj)] = vj
			}
			return out, nil
		}
		if rv.Kind() != reflect.Slice {
			return nil, fmt.Errorf("%T for %s", v, sig)
		}
		out := make([]any, 0, rv.Len())
		for i := 0; i < rv.Len(); i++ {
			e, err := toJSON(elem, rv.Index(i).Interface())
			if err != nil {
				return nil, err
			}
			out = append(out, e)
		}
		return out, nil
	case '(':
		fields := splitStruct(sig)
		rv := reflect.ValueOf(v)
		var get func(i int) any
		switch {
		case rv.Kind() == reflect.Slice && rv.Len() == len(fields):
			get = func(i int) any { return rv.Index(i).Interface() }
		case rv.Kind() == reflect.Struct && rv.NumField() == len(fields):
			get = func(i int) any { return rv.Field(i).Interface() }
		default:
			return nil, fmt.Errorf("%T for %s", v, sig)
		}
		out := make([]any, len(fields))
		for i, f := range fields {
			var err error
			if out[i], err = toJSON(f, get(i)); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	return nil, fmt.Errorf("signature %s", sig)
}

// fromJSON converts the JSON form (decoded with UseNumber) of a value of
// signature sig to the Go value godbus encodes as sig.
func fromJSON(sig string, j any) (reflect.Value, error) {
	t, err := goType(sig)
	if err != nil {
		return reflect.Value{}, err
	}
	v := reflect.New(t).Elem()
	switch sig[0] {
	case 'y', 'n', 'q', 'i', 'u', 'x', 't', 'h':
		n, ok := j.(json.Number)
		if !ok {
			return v, fmt.Errorf("%v for %s", j, sig)
		}
		switch t.Kind() {
		case reflect.Int16, reflect.Int32, reflect.Int64:
			i, err := strconv.ParseInt(n.String(), 10, t.Bits())
			if err != nil {
				return v, err
			}
			v.SetInt(i)
		default:
			u, err := strconv.ParseUint(n.String(), 10, t.Bits())
			if err != nil {
				return v, err
			}
			v.SetUint(u)
		}
	case 'd':
		n, ok := j.(json.Number)
		if !ok {
			return v, fmt.Errorf("%v for d", j)
		}
		f, err := n.Float64()
		if err != nil {
			return v, err
		}
		v.SetFloat(f)
	case 'b':
		b, ok := j.(bool)
		if !ok {
			return v, fmt.Errorf("%v for b", j)
		}
		v.SetBool(b)
	case 's', 'o':
		s, ok := j.(string)
		if !ok {
			return v, fmt.Errorf("%v for %s", j, sig)
		}
		v.SetString(s)
	case 'g':
		s, ok := j.(string)
		if !ok {
			return v, fmt.Errorf("%v for g", j)
		}
		g, err := dbus.ParseSignature(s)
		if err != nil {
			return v, err
		}
		v.Set(reflect.ValueOf(g))
	case 'v':
		m, ok := j.(map[string]any)
		s, ok2 := m["type"].(string)
		if !ok || !ok2 {
			return v, fmt.Errorf("%v for v", j)
		}
		inner, err := fromJSON(s, m["data"])
		if err != nil {
			return v, err
		}
		g, err := dbus.ParseSignature(s)
		if err != nil {
			return v, err
		}
		v.Set(reflect.ValueOf(dbus.MakeVariantWithSignature(inner.Interface(), g)))
	case 'a':
		elem := sig[1:]
		if elem[0] == '{' {
			k, val := splitDict(elem)
			m, ok := j.(map[string]any)
			if !ok {
				return v, fmt.Errorf("%v for %s", j, sig)
			}
			v.Set(reflect.MakeMapWithSize(t, len(m)))
			for ks, vj := range m {
				var kj any = ks
				if !strings.ContainsAny(k[:1], "sog") {
					kj = json.Number(ks)
				}
				kv, err := fromJSON(k, kj)
				if err != nil {
					return v, err
				}
				vv, err := fromJSON(val, vj)
				if err != nil {
					return v, err
				}
				v.SetMapIndex(kv, vv)
			}
			return v, nil
		}
		a, ok := j.([]any)
		if !ok {
			return v, fmt.Errorf("%v for %s", j, sig)
		}
		v.Set(reflect.MakeSlice(t, len(a), len(a)))
		for i, e := range a {
			ev, err := fromJSON(elem, e)
			if err != nil {
				return v, err
			}
			v.Index(i).Set(ev)
		}
	case '(':
		fields := splitStruct(sig)
		a, ok := j.([]any)
		if !ok || len(a) != len(fields) {
			return v, fmt.Errorf("%v for %s", j, sig)
		}
		for i, f := range fields {
			fv, err := fromJSON(f, a[i])
			if err != nil {
				return v, err
			}
			v.Field(i).Set(fv)
		}
	default:
		return v, fmt.Errorf("signature %s", sig)
	}
	return v, nil
}

// goType returns the Go type godbus encodes as the single complete type
// sig (structs as Go structs with fields F0, F1, ...).
func goType(sig string) (reflect.Type, error) {
	switch sig[0] {
	case 'y':
		return reflect.TypeOf(byte(0)), nil
	case 'b':
		return reflect.TypeOf(false), nil
	case 'n':
		return reflect.TypeOf(int16(0)), nil
	case 'q':
		return reflect.TypeOf(uint16(0)), nil
	case 'i':
		return reflect.TypeOf(int32(0)), nil
	case 'u':
		return reflect.TypeOf(uint32(0)), nil
	case 'x':
		return reflect.TypeOf(int64(0)), nil
	case 't':
		return reflect.TypeOf(uint64(0)), nil
	case 'h':
		return reflect.TypeOf(dbus.UnixFDIndex(0)), nil
	case 'd':
		return reflect.TypeOf(float64(0)), nil
	case 's':
		return reflect.TypeOf(""), nil
	case 'o':
		return reflect.TypeOf(dbus.ObjectPath("")), nil
	case 'g':
		return reflect.TypeOf(dbus.Signature{}), nil
	case 'v':
		return reflect.TypeOf(dbus.Variant{}), nil
	case 'a':
		if sig[1] == '{' {
			k, v := splitDict(sig[1:])
			kt, err := goType(k)
			if err != nil {
				return nil, err
			}
			vt, err := goType(v)
			if err != nil {
				return nil, err
			}
			return reflect.MapOf(kt, vt), nil
		}
		et, err := goType(sig[1:])
		if err != nil {
			return nil, err
		}
		return reflect.SliceOf(et), nil
	case '(':
		var fields []reflect.StructField
		for i, f := range splitStruct(sig) {
			ft, err := goType(f)
			if err != nil {
				return nil, err
			}
			fields = append(fields, reflect.StructField{Name: "F" + strconv.Itoa(i), Type: ft})
		}
		return reflect.StructOf(fields), nil
	}
	return nil, fmt.Errorf("signature %s", sig)
}

// splitDict splits "{KV}" into the key and value signatures.
func splitDict(sig string) (k, v string) {
	inner := sig[1 : len(sig)-1]
	return inner[:1], inner[1:]
}

// splitStruct splits "(A B ...)" into its fields' signatures.
func splitStruct(sig string) []string {
	return busd.SplitSignature(sig[1 : len(sig)-1])
}

// CaptureUnitFiles are the unit files the capture (internal/capture)
// loads on a real systemd, by name, written to its runtime unit
// directory; fakebus's tests make the same units on the fake from them.
var CaptureUnitFiles = map[string]string{
	"capture-file.service":      "[Service]\nExecStart=/bin/sleep infinity\n",
	"capture-job.service":       "[Service]\nType=oneshot\nExecStart=/bin/sleep 600\n",
	"capture.target":            "[Unit]\nDescription=capture target\n",
	"capture-socket.socket":     "[Socket]\nListenStream=/run/capture-socket.sock\n",
	"capture-socket.service":    "[Service]\nExecStart=/bin/sleep infinity\n",
	"capture-timer.timer":       "[Timer]\nOnActiveSec=1d\n",
	"capture-timer.service":     "[Service]\nExecStart=/bin/sleep infinity\n",
	"capture-path.path":         "[Path]\nPathExists=/run/capture-path-trigger\n",
	"capture-path.service":      "[Service]\nExecStart=/bin/sleep infinity\n",
	"run-capture.mount":         "[Mount]\nWhat=tmpfs\nWhere=/run/capture\nType=tmpfs\n",
	"run-captureauto.automount": "[Automount]\nWhere=/run/captureauto\n",
	"run-captureauto.mount":     "[Mount]\nWhat=tmpfs\nWhere=/run/captureauto\nType=tmpfs\n",
	"run-captureswap.swap":      "[Swap]\nWhat=/run/captureswap\n",
}
