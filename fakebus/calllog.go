package fakebus

// The call log: every method call the manager received, with its answer,
// as data (WithCallLog): in memory, the last calls up to a bound, for
// Server.Calls and the control interface's GetCalls; and as JSON lines
// written to a writer. The JSON form of D-Bus values is jsonValue's.

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path"
	"reflect"
	"strconv"
	"sync"
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus/internal/busd"
)

// DefaultCallLogSize is how many calls the call log keeps in memory
// unless WithCallLog says otherwise: the oldest go first.
const DefaultCallLogSize = 10000

// ConnKind is the kind of connection a call came on.
type ConnKind uint8

const (
	// ConnBus is a connection to the bus (Address, Conn, Dial, RawConn).
	ConnBus ConnKind = iota
	// ConnPrivate is a peer-to-peer connection, systemd's private socket
	// (PrivateAddress, PrivateConn, DialPrivate).
	ConnPrivate
)

// String returns "bus" or "private", as the call log's JSON names it.
func (k ConnKind) String() string {
	switch k {
	case ConnBus:
		return "bus"
	case ConnPrivate:
		return "private"
	}
	return fmt.Sprintf("ConnKind(%d)", uint8(k))
}

// MarshalJSON writes the kind's name.
func (k ConnKind) MarshalJSON() ([]byte, error) { return json.Marshal(k.String()) }

// LoggedCall is a method call the manager received (org.freedesktop.systemd1
// on the bus, or anything on the private socket), and its answer. Calls
// to the bus driver (Hello, AddMatch, ...) and to the control interface
// are not logged.
type LoggedCall struct {
	// Seq numbers the calls from 1, in the order they were received; it
	// goes on across ClearCalls.
	Seq  uint64
	Time time.Time // when the call was received
	Conn ConnKind
	// Sender is the caller's unique name, "" on a private connection.
	Sender string
	// PID and UID are the caller's, as the bus knows them (SO_PEERCRED
	// on a socket; on an in-memory Pipe the uid the client claimed and
	// the fake's own PID).
	PID, UID  uint32
	Path      dbus.ObjectPath
	Interface string // "" when the call named none
	Member    string
	Signature string
	Args      []any // as decoded: structs as []any, arrays typed slices, dicts typed maps
	// Reply is the answer, nil while there is none (or never was: a call
	// whose caller left first, one the fake never answers).
	Reply *LoggedReply
}

// LoggedReply is the answer to a LoggedCall: a method return, or an error
// (from the manager, or from the bus: NoReply at a daemon-reexec or a
// bus timeout).
type LoggedReply struct {
	Time time.Time
	// Error is the error's name, "" for a method return.
	Error     string
	Signature string
	Args      []any // an error's are its message
}

// CallFilter selects logged calls; its zero value selects every call.
type CallFilter struct {
	// Member, if set, is the method's name (StartUnit).
	Member string
	// Unit, if set, is a unit name or a pattern (path.Match syntax,
	// "app-*.service"): a call is selected if its object path is a unit's
	// whose name matches, or one of its arguments is a string (s) or an
	// array of strings (as) with an element that matches. A job's object
	// path does not name its unit.
	Unit string
}

// WithCallLog logs the calls the manager receives (LoggedCall): the last
// max in memory (Server.Calls, ClearCalls; DefaultCallLogSize when max
// <= 0), and each one as a line of JSON to w (if not nil) once it is
// answered, or when the Server closes for one that never was (then with
// "reply": null). The JSON is LoggedCall.MarshalJSON's. w is written from
// the goroutines that read and write connections, under a lock of the
// log's own. An answer is logged before its caller can read it: a client
// that asks for the calls once it has an answer finds it there.
// WithControl logs calls too, with max DefaultCallLogSize, unless
// WithCallLog says otherwise.
func WithCallLog(max int, w io.Writer) Option {
	return func(c *config) {
		if max <= 0 {
			max = DefaultCallLogSize
		}
		c.callLog, c.callLogTo = max, w
	}
}

// callKey is a call by its connection and serial.
type callKey struct {
	peer   *busd.Peer
	serial uint32
}

// callLog is the log of WithCallLog.
type callLog struct {
	max     int
	w       io.Writer
	service func() string // the manager's current unique name

	// mu guards every field below, and writes to w.
	mu    sync.Mutex
	seq   uint64
	ring  []*LoggedCall // the last max calls, oldest at start
	start int
	// pending are the calls not answered yet, at most max: when one more
	// comes, the oldest is given up on (written with no reply).
	pending map[callKey]*LoggedCall
}

func newCallLog(max int, w io.Writer, service func() string) *callLog {
	return &callLog{max: max, w: w, service: service, pending: map[callKey]*LoggedCall{}}
}

// event logs a call the bus received for the manager, or the answer to
// one (busd.Config.Trace).
func (l *callLog) event(e busd.Event) {
	m := e.Msg
	switch {
	case e.Dir == busd.In && m.Type == dbus.TypeMethodCall && l.forManager(e):
		l.received(e)
	case e.Dir == busd.Out && (m.Type == dbus.TypeMethodReply || m.Type == dbus.TypeError):
		l.answered(e)
	}
}

// forManager reports whether a call goes to the manager: every call on a
// private connection, the calls to systemd's names on the bus.
func (l *callLog) forManager(e busd.Event) bool {
	if e.Peer.Mode() == busd.PeerMode {
		return true
	}
	dest, _ := e.Msg.Headers[dbus.FieldDestination].Value().(string)
	return dest == "org.freedesktop.systemd1" || dest != "" && dest == l.service()
}

func (l *callLog) received(e busd.Event) {
	m := e.Msg
	c := &LoggedCall{Time: time.Now(), Sender: e.Peer.UniqueName(), PID: e.Peer.PID(), UID: e.Peer.UID(), Args: m.Body}
	if e.Peer.Mode() == busd.PeerMode {
		c.Conn = ConnPrivate
	}
	c.Path, _ = m.Headers[dbus.FieldPath].Value().(dbus.ObjectPath)
	c.Interface, _ = m.Headers[dbus.FieldInterface].Value().(string)
	c.Member, _ = m.Headers[dbus.FieldMember].Value().(string)
	if s, ok := m.Headers[dbus.FieldSignature].Value().(dbus.Signature); ok {
		c.Signature = s.String()
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seq++
	c.Seq = l.seq
	if m.Flags&dbus.FlagNoReplyExpected != 0 {
		l.writeLocked(c)
	} else {
		if len(l.pending) >= l.max {
			l.giveUpOldestLocked()
		}
		l.pending[callKey{e.Peer, e.Serial}] = c
	}
	if len(l.ring) < l.max {
		l.ring = append(l.ring, c)
		return
	}
	l.ring[l.start] = c
	l.start = (l.start + 1) % l.max
}

// giveUpOldestLocked forgets the oldest call waiting for its answer, and
// writes it without one.
func (l *callLog) giveUpOldestLocked() {
	var oldest callKey
	var c *LoggedCall
	for k, p := range l.pending {
		if c == nil || p.Seq < c.Seq {
			oldest, c = k, p
		}
	}
	delete(l.pending, oldest)
	l.writeLocked(c)
}

func (l *callLog) answered(e busd.Event) {
	m := e.Msg
	serial, ok := m.Headers[dbus.FieldReplySerial].Value().(uint32)
	if !ok {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	k := callKey{e.Peer, serial}
	c := l.pending[k]
	if c == nil {
		return
	}
	delete(l.pending, k)
	r := &LoggedReply{Time: time.Now(), Args: m.Body}
	r.Error, _ = m.Headers[dbus.FieldErrorName].Value().(string)
	if s, ok := m.Headers[dbus.FieldSignature].Value().(dbus.Signature); ok {
		r.Signature = s.String()
	}
	c.Reply = r
	l.writeLocked(c)
}

// writeLocked writes c to w, as a line of JSON.
func (l *callLog) writeLocked(c *LoggedCall) {
	if l.w == nil {
		return
	}
	line, err := json.Marshal(c)
	if err != nil {
		line, _ = json.Marshal(map[string]any{"seq": c.Seq, "error": err.Error()})
	}
	_, _ = l.w.Write(append(line, '\n')) // nowhere to report a failure
}

// close writes the calls never answered, in order.
func (l *callLog) close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for len(l.pending) > 0 {
		l.giveUpOldestLocked()
	}
}

// calls returns copies of the logged calls f selects, oldest first.
func (l *callLog) calls(f CallFilter) []LoggedCall {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []LoggedCall
	for i := range l.ring {
		c := l.ring[(l.start+i)%len(l.ring)]
		if f.selects(c) {
			cp := *c
			if c.Reply != nil {
				r := *c.Reply
				cp.Reply = &r
			}
			out = append(out, cp)
		}
	}
	return out
}

// clear forgets the calls kept in memory. The answers of those not
// answered yet are still written to w.
func (l *callLog) clear() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.ring, l.start = nil, 0
}

// selects reports whether f selects c.
func (f CallFilter) selects(c *LoggedCall) bool {
	if f.Member != "" && c.Member != f.Member {
		return false
	}
	if f.Unit == "" {
		return true
	}
	match := func(s string) bool {
		ok, _ := path.Match(f.Unit, s)
		return ok
	}
	if name, err := sdbus.UnitNameFromPath(c.Path); err == nil && match(name) {
		return true
	}
	for _, a := range c.Args {
		switch a := a.(type) {
		case string:
			if match(a) {
				return true
			}
		case []string:
			for _, s := range a {
				if match(s) {
					return true
				}
			}
		}
	}
	return false
}

// Calls returns the logged calls that f selects, oldest first
// (WithCallLog; none without it).
func (s *Server) Calls(f CallFilter) []LoggedCall {
	if s.calls == nil {
		return nil
	}
	return s.calls.calls(f)
}

// ClearCalls forgets the calls logged in memory (WithCallLog); Seq goes
// on, and the JSON lines of calls not answered yet are still written.
func (s *Server) ClearCalls() {
	if s.calls != nil {
		s.calls.clear()
	}
}

// MarshalJSON writes c as the call log's JSON object (docs/fakesystemd.md,
// "The call log"):
//
//	{"seq": 3, "time": "2025-01-02T15:04:05.123456789Z", "connection": "bus",
//	 "sender": ":1.5", "pid": 4242, "uid": 0,
//	 "path": "/org/freedesktop/systemd1", "interface": "org.freedesktop.systemd1.Manager",
//	 "member": "StartUnit", "signature": "ss", "args": ["app.service", "replace"],
//	 "reply": {"time": "...", "error": "", "signature": "o", "args": ["/org/freedesktop/systemd1/job/7"]}}
//
// with the arguments in jsonValue's form, "reply": null while there is
// no answer, and an error's name in "error" with its message in "args".
func (c LoggedCall) MarshalJSON() ([]byte, error) {
	type reply struct {
		Time      time.Time `json:"time"`
		Error     string    `json:"error"`
		Signature string    `json:"signature"`
		Args      []any     `json:"args"`
	}
	type call struct {
		Seq       uint64          `json:"seq"`
		Time      time.Time       `json:"time"`
		Conn      ConnKind        `json:"connection"`
		Sender    string          `json:"sender"`
		PID       uint32          `json:"pid"`
		UID       uint32          `json:"uid"`
		Path      dbus.ObjectPath `json:"path"`
		Interface string          `json:"interface"`
		Member    string          `json:"member"`
		Signature string          `json:"signature"`
		Args      []any           `json:"args"`
		Reply     *reply          `json:"reply"`
	}
	out := call{Seq: c.Seq, Time: c.Time, Conn: c.Conn, Sender: c.Sender, PID: c.PID, UID: c.UID, Path: c.Path,
		Interface: c.Interface, Member: c.Member, Signature: c.Signature}
	var err error
	if out.Args, err = jsonValues(c.Signature, c.Args); err != nil {
		return nil, fmt.Errorf("call %d: %w", c.Seq, err)
	}
	if r := c.Reply; r != nil {
		out.Reply = &reply{Time: r.Time, Error: r.Error, Signature: r.Signature}
		if out.Reply.Args, err = jsonValues(r.Signature, r.Args); err != nil {
			return nil, fmt.Errorf("reply to call %d: %w", c.Seq, err)
		}
	}
	return json.Marshal(out)
}

// jsonValues maps a message body of signature sig to JSON (jsonValue),
// never nil.
func jsonValues(sig string, body []any) ([]any, error) {
	types := busd.SplitSignature(sig)
	if len(types) != len(body) {
		return nil, fmt.Errorf("signature %q for %d values", sig, len(body))
	}
	out := make([]any, len(body))
	for i, v := range body {
		j, err := jsonValue(types[i], reflect.ValueOf(v))
		if err != nil {
			return nil, err
		}
		out[i] = j
	}
	return out, nil
}

// jsonValue maps a D-Bus value of type sig to a value encoding/json
// writes, directed by sig, so that the JSON of a value depends on its
// D-Bus type only:
//
//	b                      true or false
//	y n q i u x t h        a number, exact (t and x may pass 2^53)
//	d                      a number; "NaN", "Infinity", "-Infinity" as strings
//	s o g                  a string
//	v                      {"type": SIGNATURE, "value": VALUE}
//	aT (ay too)            an array
//	a{KV}                  an object, keys as text (numbers in decimal)
//	(T...)                 an array of its fields
func jsonValue(sig string, v reflect.Value) (any, error) {
	for v.IsValid() && (v.Kind() == reflect.Interface || v.Kind() == reflect.Pointer) && !v.IsNil() {
		v = v.Elem()
	}
	if !v.IsValid() {
		return nil, fmt.Errorf("no value for type %s", sig)
	}
	bad := func() (any, error) { return nil, fmt.Errorf("%s value for D-Bus type %s", v.Type(), sig) }
	switch sig[0] {
	case 'b':
		if v.Kind() != reflect.Bool {
			return bad()
		}
		return v.Bool(), nil
	case 'y', 'q', 'u', 't', 'n', 'i', 'x', 'h':
		switch {
		case v.CanUint():
			return json.Number(strconv.FormatUint(v.Uint(), 10)), nil
		case v.CanInt():
			return json.Number(strconv.FormatInt(v.Int(), 10)), nil
		}
		return bad()
	case 'd':
		if !v.CanFloat() {
			return bad()
		}
		f := v.Float()
		switch {
		case math.IsNaN(f):
			return "NaN", nil
		case math.IsInf(f, 1):
			return "Infinity", nil
		case math.IsInf(f, -1):
			return "-Infinity", nil
		}
		return f, nil
	case 's', 'o':
		if v.Kind() != reflect.String {
			return bad()
		}
		return v.String(), nil
	case 'g':
		if s, ok := v.Interface().(dbus.Signature); ok {
			return s.String(), nil
		}
		if v.Kind() == reflect.String {
			return v.String(), nil
		}
		return bad()
	case 'v':
		dv, ok := v.Interface().(dbus.Variant)
		if !ok {
			return bad()
		}
		inner := dv.Signature().String()
		val, err := jsonValue(inner, reflect.ValueOf(dv.Value()))
		if err != nil {
			return nil, err
		}
		return map[string]any{"type": inner, "value": val}, nil
	case '(':
		fields := busd.SplitSignature(sig[1 : len(sig)-1])
		var get func(int) reflect.Value
		switch {
		case v.Kind() == reflect.Slice && v.Len() == len(fields):
			get = v.Index
		case v.Kind() == reflect.Struct:
			var exported []int
			for i := 0; i < v.NumField(); i++ {
				if v.Type().Field(i).IsExported() {
					exported = append(exported, i)
				}
			}
			if len(exported) != len(fields) {
				return bad()
			}
			get = func(i int) reflect.Value { return v.Field(exported[i]) }
		default:
			return bad()
		}
		out := make([]any, len(fields))
		for i, f := range fields {
			j, err := jsonValue(f, get(i))
			if err != nil {
				return nil, err
			}
			out[i] = j
		}
		return out, nil
	case 'a':
		if sig[1] == '{' {
			return jsonDict(sig, v)
		}
		if v.Kind() != reflect.Slice && v.Kind() != reflect.Array {
			return bad()
		}
		out := make([]any, v.Len())
		for i := range out {
			j, err := jsonValue(sig[1:], v.Index(i))
			if err != nil {
				return nil, err
			}
			out[i] = j
		}
		return out, nil
	}
	return bad()
}

// jsonDict maps a dict a{KV} to a JSON object.
func jsonDict(sig string, v reflect.Value) (any, error) {
	kv := busd.SplitSignature(sig[2 : len(sig)-1])
	out := map[string]any{}
	add := func(k, val reflect.Value) error {
		key, err := jsonValue(kv[0], k)
		if err != nil {
			return err
		}
		j, err := jsonValue(kv[1], val)
		if err != nil {
			return err
		}
		out[fmt.Sprint(key)] = j
		return nil
	}
	switch v.Kind() {
	case reflect.Map:
		it := v.MapRange()
		for it.Next() {
			if err := add(it.Key(), it.Value()); err != nil {
				return nil, err
			}
		}
	case reflect.Slice:
		// An ordered dict (busd.PropDict): entries of Key and Value.
		for i := 0; i < v.Len(); i++ {
			e := v.Index(i)
			for e.Kind() == reflect.Interface || e.Kind() == reflect.Pointer {
				e = e.Elem()
			}
			if e.Kind() != reflect.Struct || e.NumField() < 2 {
				return nil, fmt.Errorf("%s value for D-Bus type %s", v.Type(), sig)
			}
			if err := add(e.Field(0), e.Field(1)); err != nil {
				return nil, err
			}
		}
	default:
		return nil, fmt.Errorf("%s value for D-Bus type %s", v.Type(), sig)
	}
	return out, nil
}
