package fakebus

// The script file: the JSON document that fakesystemd's --script reads
// and the control interface's ApplyScript takes (dbus_control.go), in one
// schema, docs/fakesystemd-script.schema.json: scripts, unit files and the
// reload duration. ParseScriptFile decodes and checks it, naming the JSON
// path of the first problem; Server.ApplyScriptFile applies it.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"reflect"
	"sort"
	"strings"
	"time"

	"github.com/sdbus-go/sdbus"
)

// scriptFile is the JSON document of a script file. Scripts and units are
// decoded element by element, so that errors name the element.
type scriptFile struct {
	Comment        string            `json:"comment"`
	Scripts        []json.RawMessage `json:"scripts"`
	Units          []json.RawMessage `json:"units"`
	ReloadDuration string            `json:"reload_duration"`
}

type scriptJSON struct {
	Comment    string   `json:"comment"`
	Pattern    string   `json:"pattern"`
	Result     string   `json:"result"`
	Results    []string `json:"results"`
	UnitResult string   `json:"unit_result"`
	ExitStatus int32    `json:"exit_status"`
	Delay      string   `json:"delay"`
	ReplyDelay string   `json:"reply_delay"`
	// Faults are decoded one by one, so that errors name the element.
	Faults []json.RawMessage `json:"faults"`
}

type unitJSON struct {
	Comment    string          `json:"comment"`
	Name       string          `json:"name"`
	Aliases    []string        `json:"aliases"`
	Masked     bool            `json:"masked"`
	Active     bool            `json:"active"`
	Properties json.RawMessage `json:"properties"`
}

// PatternScript is one entry of a script file's "scripts": a Script for
// Server.Script.
type PatternScript struct {
	Pattern string
	Script  Script
}

// ScriptFile is what a script file configures (ParseScriptFile).
type ScriptFile struct {
	Scripts        []PatternScript
	Units          []UnitFile
	ReloadDuration time.Duration
}

// faultNames maps the script file's fault names to the faults.
var faultNames = map[string]Fault{
	"job-removed-before-reply": FaultJobRemovedBeforeReply,
	"duplicate-job-removed":    FaultDuplicateJobRemoved,
	"forged-job-removed":       FaultForgedJobRemoved,
	"wrong-path-job-removed":   FaultWrongPathJobRemoved,
	"malformed-job-removed":    FaultMalformedJobRemoved,
	"drop-connection":          FaultDropConnection,
	"drop-after-job-removed":   FaultDropAfterJobRemoved,
	"bus-timeout":              FaultBusTimeout,
	"polkit-no-reply":          FaultPolkitNoReply,
}

// Names returns the script file's names of the faults in f, sorted.
func (f Fault) Names() []string {
	var out []string
	for name, x := range faultNames {
		if f&x != 0 {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// jobResults are the results a script may give jobs.
var jobResults = []sdbus.JobResult{
	sdbus.JobDone, sdbus.JobCanceled, sdbus.JobTimeout, sdbus.JobFailed, sdbus.JobDependency, sdbus.JobSkipped,
	sdbus.JobInvalid, sdbus.JobAssert, sdbus.JobUnsupported, sdbus.JobCollected, sdbus.JobOnce, sdbus.JobFrozen,
}

// unitResults are the values of the Result property of services and
// scopes (systemd's service_result_table and scope_result_table).
var unitResults = []string{
	"success", "protocol", "timeout", "exit-code", "signal", "core-dump", "watchdog",
	"start-limit-hit", "resources", "oom-kill", "exec-condition",
}

// ScriptFileError is an error in the element of a script file at Path.
type ScriptFileError struct {
	Path string // e.g. "scripts[1].faults[0]"; "" for the whole document
	Msg  string
}

func (e *ScriptFileError) Error() string {
	if e.Path == "" {
		return e.Msg
	}
	return e.Path + ": " + e.Msg
}

func errAt(path, format string, args ...any) error {
	return &ScriptFileError{path, fmt.Sprintf(format, args...)}
}

// ParseScriptFile decodes and checks a script file's contents (the
// format is docs/fakesystemd.md's, "The script file"). Its error is a
// *ScriptFileError naming the JSON path of the problem.
func ParseScriptFile(data []byte) (*ScriptFile, error) {
	var f scriptFile
	if err := decodeStrict(data, "", &f); err != nil {
		return nil, err
	}
	st := &ScriptFile{}
	var err error
	if st.ReloadDuration, err = parseDuration("reload_duration", f.ReloadDuration); err != nil {
		return nil, err
	}
	for i, raw := range f.Scripts {
		ps, err := parseScriptEntry(fmt.Sprintf("scripts[%d]", i), raw)
		if err != nil {
			return nil, err
		}
		st.Scripts = append(st.Scripts, ps)
	}
	seen := map[string]int{}
	for i, raw := range f.Units {
		p := fmt.Sprintf("units[%d]", i)
		u, err := parseUnit(p, raw)
		if err != nil {
			return nil, err
		}
		if j, dup := seen[u.Name]; dup {
			return nil, errAt(p+".name", "unit %q is already defined by units[%d]", u.Name, j)
		}
		seen[u.Name] = i
		st.Units = append(st.Units, u)
	}
	return st, nil
}

// decodeStrict decodes one JSON value into v, refusing unknown fields and
// trailing data, and words errors with the JSON path p.
func decodeStrict(data []byte, p string, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return jsonError(data, p, err)
	}
	rest := data[dec.InputOffset():]
	if trimmed := bytes.TrimLeft(rest, " \t\r\n"); len(trimmed) > 0 {
		line, col := position(data, int64(len(data)-len(trimmed)))
		return errAt(p, "line %d, column %d: unexpected data after the JSON object", line, col)
	}
	return nil
}

// jsonError words an encoding/json error with the path of the element
// being decoded.
func jsonError(data []byte, p string, err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.Is(err, io.EOF):
		return errAt(p, "empty document: want a JSON object")
	case errors.Is(err, io.ErrUnexpectedEOF):
		return errAt(p, "unexpected end of JSON input")
	case errors.As(err, &se):
		// Offset counts the offending byte.
		line, col := position(data, se.Offset-1)
		return errAt(p, "line %d, column %d: %s", line, col, strings.TrimPrefix(se.Error(), "json: "))
	case errors.As(err, &te):
		if te.Field != "" {
			p = joinPath(p, te.Field)
		}
		return errAt(p, "want %s, got %s", jsonKind(te.Type), article(te.Value))
	}
	return errAt(p, "%s", strings.TrimPrefix(err.Error(), "json: "))
}

func joinPath(p, field string) string {
	if p == "" {
		return field
	}
	return p + "." + field
}

// jsonKind names the JSON value a Go type is decoded from.
func jsonKind(t reflect.Type) string {
	if t == reflect.TypeOf(json.RawMessage{}) {
		return "a JSON value"
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.Int32:
		return "an integer from -2147483648 to 2147483647"
	}
	return t.String()
}

func article(jsonType string) string {
	switch jsonType {
	case "object", "array":
		return "an " + jsonType
	case "bool":
		return "a boolean"
	case "":
		return "something else"
	}
	return "a " + jsonType
}

// position turns a byte offset into a 1-based line and column.
func position(data []byte, off int64) (line, col int) {
	off = max(0, min(off, int64(len(data))))
	before := data[:off]
	line = 1 + bytes.Count(before, []byte("\n"))
	col = 1 + len(before) - (bytes.LastIndexByte(before, '\n') + 1)
	return line, col
}

func parseDuration(p, s string) (time.Duration, error) {
	if s == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, errAt(p, "invalid duration %q (want a Go duration such as \"200ms\" or \"1.5s\")", s)
	}
	if d < 0 {
		return 0, errAt(p, "negative duration %q", s)
	}
	return d, nil
}

func parseScriptEntry(p string, raw json.RawMessage) (PatternScript, error) {
	var j scriptJSON
	if err := decodeStrict(raw, p, &j); err != nil {
		return PatternScript{}, err
	}
	if j.Pattern == "" {
		return PatternScript{}, errAt(p+".pattern", "missing: want a unit name pattern such as \"run-*.scope\"")
	}
	if _, err := path.Match(j.Pattern, ""); err != nil {
		return PatternScript{}, errAt(p+".pattern", "invalid pattern %q: %v", j.Pattern, err)
	}
	var sc Script
	if j.Result != "" {
		r := sdbus.JobResult(j.Result)
		if !r.Known() {
			return PatternScript{}, errAt(p+".result", "unknown job result %q (known: %s)", j.Result, joinResults())
		}
		sc.Result = r
	}
	fails := sc.Result == sdbus.JobFailed || sc.Result == sdbus.JobTimeout
	for i, res := range j.Results {
		r := sdbus.JobResult(res)
		if r != "" && !r.Known() {
			return PatternScript{}, errAt(fmt.Sprintf("%s.results[%d]", p, i), "unknown job result %q (known: %s, or \"\" for none)", res, joinResults())
		}
		fails = fails || r == sdbus.JobFailed || r == sdbus.JobTimeout
		sc.Results = append(sc.Results, r)
	}
	if j.UnitResult != "" {
		if !fails {
			return PatternScript{}, errAt(p+".unit_result", "needs \"result\" or \"results\" with \"failed\" or \"timeout\"")
		}
		if !contains(unitResults, j.UnitResult) {
			return PatternScript{}, errAt(p+".unit_result", "unknown unit result %q (known: %s)", j.UnitResult, strings.Join(unitResults, ", "))
		}
		sc.UnitResult = j.UnitResult
	}
	sc.ExitStatus = j.ExitStatus
	if err := sc.checkExit(); err != nil {
		return PatternScript{}, errAt(p+".exit_status", "%v", err)
	}
	var err error
	if sc.Delay, err = parseDuration(p+".delay", j.Delay); err != nil {
		return PatternScript{}, err
	}
	if sc.ReplyDelay, err = parseDuration(p+".reply_delay", j.ReplyDelay); err != nil {
		return PatternScript{}, err
	}
	for i, raw := range j.Faults {
		fp := fmt.Sprintf("%s.faults[%d]", p, i)
		var name string
		if err := decodeStrict(raw, fp, &name); err != nil {
			return PatternScript{}, err
		}
		f, ok := faultNames[name]
		if !ok {
			return PatternScript{}, errAt(fp, "unknown fault %q (known: %s)", name, joinFaults())
		}
		sc.Faults |= f
	}
	return PatternScript{j.Pattern, sc}, nil
}

func parseUnit(p string, raw json.RawMessage) (UnitFile, error) {
	var j unitJSON
	if err := decodeStrict(raw, p, &j); err != nil {
		return UnitFile{}, err
	}
	if j.Name == "" {
		return UnitFile{}, errAt(p+".name", "missing: want a unit name such as \"app.service\"")
	}
	if err := sdbus.ValidateUnitName(j.Name); err != nil {
		return UnitFile{}, errAt(p+".name", "invalid unit name %q", j.Name)
	}
	for i, a := range j.Aliases {
		if err := sdbus.ValidateUnitName(a); err != nil {
			return UnitFile{}, errAt(fmt.Sprintf("%s.aliases[%d]", p, i), "invalid unit name %q", a)
		}
	}
	props, err := parseProperties(p+".properties", j.Properties)
	if err != nil {
		return UnitFile{}, err
	}
	if j.Active && j.Masked {
		return UnitFile{}, errAt(p+".active", "a masked unit cannot be active")
	}
	return UnitFile{Name: j.Name, Properties: props, Aliases: j.Aliases, Masked: j.Masked, Active: j.Active}, nil
}

// parseProperties reads the "properties" object in file order, refusing
// duplicate names, and parses each "TYPE VALUE".
func parseProperties(p string, raw json.RawMessage) ([]sdbus.Property, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, jsonError(raw, p, err)
	}
	if tok == nil {
		return nil, nil // null
	}
	if tok != json.Delim('{') {
		return nil, errAt(p, "want an object of \"Name\": \"TYPE VALUE\", got %s", tokenKind(tok))
	}
	var props []sdbus.Property
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, jsonError(raw, p, err)
		}
		name := tok.(string) // object keys are strings
		pp := p + "." + name
		if !validPropertyName(name) {
			return nil, errAt(p, "invalid property name %q", name)
		}
		if seen[name] {
			return nil, errAt(pp, "duplicate property")
		}
		seen[name] = true
		tok, err = dec.Token()
		if err != nil {
			return nil, jsonError(raw, pp, err)
		}
		text, ok := tok.(string)
		if !ok {
			return nil, errAt(pp, "want a string \"TYPE VALUE\" such as \"t 536870912\", got %s", tokenKind(tok))
		}
		v, err := parseTyped(text)
		if err != nil {
			return nil, errAt(pp, "%q: %v", text, err)
		}
		props = append(props, sdbus.Property{Name: name, Value: v})
	}
	return props, nil
}

// validPropertyName reports whether s is a D-Bus member name as systemd's
// property names are: letters, digits and underscores, not starting with a
// digit.
func validPropertyName(s string) bool {
	if s == "" || len(s) > 255 || (s[0] >= '0' && s[0] <= '9') {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

func tokenKind(tok json.Token) string {
	switch tok.(type) {
	case json.Delim:
		if tok == json.Delim('[') {
			return "an array"
		}
		return "an object"
	case bool:
		return "a boolean"
	case json.Number, float64:
		return "a number"
	case nil:
		return "null"
	}
	return "a string"
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func joinFaults() string {
	names := make([]string, 0, len(faultNames))
	for n := range faultNames {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

func joinResults() string {
	names := make([]string, len(jobResults))
	for i, r := range jobResults {
		names[i] = string(r)
	}
	return strings.Join(names, ", ")
}

// WithScriptFile configures the Server as f says from the start, as
// fakesystemd's --script does: its units as WithUnitFile gives them
// (Active starts them), its scripts as WithScript sets them and its
// ReloadDuration as SetReloadDuration. Reset applies it again. Start's
// error for a unit or a script names the unit's property or the
// script's rule, as ApplyScriptFile's does ("scripts[1]: ...").
func WithScriptFile(f *ScriptFile) Option {
	return func(c *config) {
		c.units = append(c.units, f.Units...)
		for _, ps := range f.Scripts {
			WithScript(ps.Pattern, ps.Script)(c)
		}
		c.reloadFor = f.ReloadDuration
	}
}

// ApplyScriptFile applies f to a running Server: its unit files as
// AddUnitFile adds them (Active is ignored: a unit file added later is
// not started), then its scripts, in order, as Script sets them, and a
// ReloadDuration other than 0 as SetReloadDuration. It stops at the first
// error, with what came before it applied; the error of a unit file or a
// script names its element, "units[1]: ..." or "scripts[0]: ...".
func (s *Server) ApplyScriptFile(f *ScriptFile) error {
	for i, u := range f.Units {
		if err := s.AddUnitFile(u); err != nil {
			return fmt.Errorf("units[%d]: %w", i, err)
		}
	}
	for i, ps := range f.Scripts {
		if err := s.Script(ps.Pattern, ps.Script); err != nil {
			return fmt.Errorf("scripts[%d]: %w", i, err)
		}
	}
	if f.ReloadDuration > 0 {
		s.SetReloadDuration(f.ReloadDuration)
	}
	return nil
}
