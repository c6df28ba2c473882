package main

import (
	"fmt"
	"io"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/godbus/dbus/v5"
	"github.com/sdbus-go/sdbus/fakebus"
)

// maxBody is how much of a message body a trace line shows.
const maxBody = 300

// tracer writes one line per traced message. fakebus calls it from
// several goroutines.
type tracer struct {
	mu sync.Mutex
	w  io.Writer
}

func (t *tracer) event(e fakebus.Event) { t.write(traceLine(e)) }

func (t *tracer) write(line string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	_, _ = io.WriteString(t.w, line) // nowhere to report a failure
}

// notes writes the fake's notes: with --trace every note as a trace line,
// without it the script conflicts found as jobs ran as warnings.
type notes struct {
	t      *tracer
	trace  bool
	script string // the script file's name, for warnings
}

func (n *notes) note(x fakebus.Note) {
	switch {
	case n.trace:
		n.t.write(noteLine(x))
	case x.Kind == fakebus.NoteConflict:
		n.t.write("fakesystemd: warning: " + conflictText(n.script, x.Conflict, "the script wins") + "\n")
	}
}

// conflictText words a script conflict with the rule's path in the script
// file: script.json: scripts[0].results[1]: "failed" contradicts ...
func conflictText(script string, c *fakebus.ScriptConflict, advice string) string {
	return fmt.Sprintf("%s: scripts[%d].%s: %q contradicts unit %s: %s; %s",
		script, c.Rule.Index, c.Rule.Step, c.Result, c.Unit, c.Contradiction(), advice)
}

// noteLine formats a note as a trace line, newline included:
//
//	== script unit=U job=N job_type=T rule=scripts[N] pattern=P step=S result=R [delay=D] [reply_delay=D] [faults=F,...]
//	== conflict unit=U job=N job_type=T rule=scripts[N] pattern=P step=S result=R outcome=O command=C service_type=T
//	== settings unit=U from=F [stored=A,...] [ignored=Section.Key,...]
//	== limit client=C pid=N limit=L value=N max=N
func noteLine(x fakebus.Note) string {
	var b strings.Builder
	b.WriteString("== " + string(x.Kind))
	field := func(k, v string) { b.WriteString(" " + k + "=" + v) }
	quoted := func(k, v string) { field(k, strconv.Quote(v)) }
	rule := func(r fakebus.Rule, res string) {
		field("rule", fmt.Sprintf("scripts[%d]", r.Index))
		quoted("pattern", r.Pattern)
		field("step", orDash(r.Step))
		field("result", orDash(res))
	}
	if x.Kind == fakebus.NoteLimit {
		field("client", orDash(x.Client))
		field("pid", strconv.FormatUint(uint64(x.PID), 10))
		field("limit", string(x.Limit))
		field("value", strconv.FormatInt(x.Value, 10))
		field("max", strconv.FormatInt(x.Max, 10))
		return b.String() + "\n"
	}
	quoted("unit", x.Unit)
	switch x.Kind {
	case fakebus.NoteScript:
		field("job", strconv.FormatUint(uint64(x.Job), 10))
		field("job_type", x.JobType)
		rule(x.Rule, string(x.Result))
		if d := x.Script.Delay; d > 0 {
			field("delay", d.String())
		}
		if d := x.Script.ReplyDelay; d > 0 {
			field("reply_delay", d.String())
		}
		if f := x.Script.Faults.Names(); len(f) > 0 {
			field("faults", strings.Join(f, ","))
		}
	case fakebus.NoteConflict:
		c := x.Conflict
		field("job", strconv.FormatUint(uint64(c.Job), 10))
		field("job_type", c.JobType)
		rule(c.Rule, string(c.Result))
		field("outcome", string(c.Outcome))
		quoted("command", c.Command)
		field("service_type", c.ServiceType)
	case fakebus.NoteSettings:
		quoted("from", x.From)
		if len(x.Stored) > 0 {
			field("stored", nameList(x.Stored))
		}
		if len(x.Ignored) > 0 {
			field("ignored", nameList(x.Ignored))
		}
	}
	return b.String() + "\n"
}

// nameList joins names with commas, quoting any that is not made of
// letters, digits, '_', '-' and '.' only.
func nameList(names []string) string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = n
		if n == "" || strings.IndexFunc(n, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '.')
		}) >= 0 {
			out[i] = strconv.Quote(n)
		}
	}
	return strings.Join(out, ",")
}

// traceLine formats one event as a line, newline included:
//
//	DIR CLIENT KIND [NAME PATH] serial=N [reply_serial=N] [sender=S] [dest=D] (BODY)
func traceLine(e fakebus.Event) string {
	var b strings.Builder
	if e.In {
		b.WriteString("->")
	} else {
		b.WriteString("<-")
	}
	client := e.Client
	if client == "" {
		client = "-"
	}
	b.WriteString(" " + client + " ")
	m := e.Msg
	member := header(m, dbus.FieldMember)
	if iface := header(m, dbus.FieldInterface); iface != "" && member != "" {
		member = iface + "." + member
	}
	path := header(m, dbus.FieldPath)
	switch m.Type {
	case dbus.TypeMethodCall:
		b.WriteString("call " + orDash(member) + " " + orDash(path))
	case dbus.TypeMethodReply:
		b.WriteString("reply")
	case dbus.TypeError:
		b.WriteString("error " + orDash(header(m, dbus.FieldErrorName)))
	case dbus.TypeSignal:
		b.WriteString("signal " + orDash(member) + " " + orDash(path))
	default:
		fmt.Fprintf(&b, "type%d", m.Type)
	}
	fmt.Fprintf(&b, " serial=%d", e.Serial)
	if rs := header(m, dbus.FieldReplySerial); rs != "" {
		b.WriteString(" reply_serial=" + rs)
	}
	if s := header(m, dbus.FieldSender); s != "" && s != e.Client {
		b.WriteString(" sender=" + s)
	}
	if d := header(m, dbus.FieldDestination); d != "" && d != e.Client {
		b.WriteString(" dest=" + d)
	}
	b.WriteString(" " + formatBody(m.Body, maxBody) + "\n")
	return b.String()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// header returns a header field as text, "" when absent.
func header(m *dbus.Message, f dbus.HeaderField) string {
	v, ok := m.Headers[f]
	if !ok {
		return ""
	}
	switch x := v.Value().(type) {
	case string:
		return sanitize(x)
	case dbus.ObjectPath:
		return sanitize(string(x))
	case uint32:
		return strconv.FormatUint(uint64(x), 10)
	}
	return sanitize(fmt.Sprint(v.Value()))
}

// sanitize keeps a header on one line and free of spaces (header values
// are names and paths, which have neither).
func sanitize(s string) string {
	if strings.IndexFunc(s, func(r rune) bool { return r <= ' ' || r == 0x7f }) < 0 {
		return s
	}
	q := strconv.Quote(s)
	return strings.ReplaceAll(q, " ", `\x20`)
}

// formatBody renders a message body as a parenthesized list of values in
// the style of GVariant text, at most limit bytes; a longer one is cut and
// ends with "..." instead of ")".
func formatBody(body []any, limit int) string {
	f := valueFormatter{limit: limit}
	f.b.WriteByte('(')
	for i, v := range body {
		if i > 0 {
			f.b.WriteString(", ")
		}
		f.value(reflect.ValueOf(v))
	}
	f.b.WriteByte(')')
	return f.result()
}

// formatValue renders one value like formatBody.
func formatValue(v any, limit int) string {
	f := valueFormatter{limit: limit}
	f.value(reflect.ValueOf(v))
	return f.result()
}

type valueFormatter struct {
	b     strings.Builder
	limit int
}

func (f *valueFormatter) full() bool { return f.b.Len() > f.limit }

func (f *valueFormatter) result() string {
	s := f.b.String()
	if len(s) <= f.limit {
		return s
	}
	cut := f.limit
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "..."
}

var (
	variantType = reflect.TypeOf(dbus.Variant{})
	pathType    = reflect.TypeOf(dbus.ObjectPath(""))
	sigType     = reflect.TypeOf(dbus.Signature{})
)

// value renders v: strings, object paths and signatures quoted, variants
// as <value>, arrays as [a, b], dicts as {k: v} sorted by key, structs
// (Go structs, or []any as godbus decodes them) as (a, b).
func (f *valueFormatter) value(v reflect.Value) {
	if f.full() {
		return
	}
	if !v.IsValid() {
		f.b.WriteString("nil")
		return
	}
	for v.Kind() == reflect.Interface || v.Kind() == reflect.Pointer {
		if v.IsNil() {
			f.b.WriteString("nil")
			return
		}
		v = v.Elem()
	}
	switch v.Type() {
	case variantType:
		dv := v.Interface().(dbus.Variant)
		f.b.WriteByte('<')
		f.value(reflect.ValueOf(dv.Value()))
		f.b.WriteByte('>')
		return
	case sigType:
		f.b.WriteString(strconv.Quote(v.Interface().(dbus.Signature).String()))
		return
	case pathType:
		f.b.WriteString(strconv.Quote(v.String()))
		return
	}
	switch v.Kind() {
	case reflect.String:
		f.b.WriteString(strconv.Quote(v.String()))
	case reflect.Bool:
		f.b.WriteString(strconv.FormatBool(v.Bool()))
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		f.b.WriteString(strconv.FormatInt(v.Int(), 10))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		f.b.WriteString(strconv.FormatUint(v.Uint(), 10))
	case reflect.Float32, reflect.Float64:
		f.b.WriteString(strconv.FormatFloat(v.Float(), 'g', -1, 64))
	case reflect.Slice, reflect.Array:
		open, close := byte('['), byte(']')
		if v.Type().Elem().Kind() == reflect.Interface {
			open, close = '(', ')' // a struct as godbus decodes it
		}
		f.b.WriteByte(open)
		for i := 0; i < v.Len() && !f.full(); i++ {
			if i > 0 {
				f.b.WriteString(", ")
			}
			f.value(v.Index(i))
		}
		f.b.WriteByte(close)
	case reflect.Map:
		type kv struct{ k, v string }
		kvs := make([]kv, 0, v.Len())
		iter := v.MapRange()
		for iter.Next() {
			kvs = append(kvs, kv{formatValue(iter.Key().Interface(), f.limit), formatValue(iter.Value().Interface(), f.limit)})
		}
		sort.Slice(kvs, func(i, j int) bool { return kvs[i].k < kvs[j].k })
		f.b.WriteByte('{')
		for i, e := range kvs {
			if f.full() {
				break
			}
			if i > 0 {
				f.b.WriteString(", ")
			}
			f.b.WriteString(e.k + ": " + e.v)
		}
		f.b.WriteByte('}')
	case reflect.Struct:
		f.b.WriteByte('(')
		n := 0
		for i := 0; i < v.NumField() && !f.full(); i++ {
			if !v.Type().Field(i).IsExported() {
				continue
			}
			if n > 0 {
				f.b.WriteString(", ")
			}
			n++
			f.value(v.Field(i))
		}
		f.b.WriteByte(')')
	default:
		f.b.WriteString(sanitize(fmt.Sprint(v.Interface())))
	}
}
