// Package capture asks a systemd (real, or fakebus playing one) for its
// D-Bus surface: it makes a unit of every type, a job and the object
// tree's inner nodes, and records each object's introspection data and
// Properties.GetAll answers as sdversions.Object values. The sandbox
// program (cmd/capture, run by scripts/capture-introspection) writes them
// to sdversions' data directory; cmd/fakediff runs the same steps on
// fakebus and compares.
package capture

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/godbus/dbus/v5/introspect"
	"github.com/sdbus-go/sdbus/fakebus/internal/sdversions"
)

const (
	dest         = "org.freedesktop.systemd1"
	managerPath  = dbus.ObjectPath("/org/freedesktop/systemd1")
	managerIface = "org.freedesktop.systemd1.Manager"
	propsIface   = "org.freedesktop.DBus.Properties"
)

// UnitFiles are the unit files the capture loads, by name: written to
// Options.UnitDir before the manager reloads (fakebus's tests make the
// same units on the fake from them).
var UnitFiles = sdversions.CaptureUnitFiles

// Unit is how the capture makes one unit object.
type Unit struct {
	// Kind is the object's kind (its files' name), Name the unit's.
	Kind, Name string
	// How: "transient" (StartTransientUnit with Props), "start"
	// (StartUnit of a unit file), "load" (LoadUnit only: never started).
	How   string
	Props []Property
	// ScopePID: the transient unit is a scope of a process of its own.
	ScopePID bool
}

// Property is one property given to StartTransientUnit.
type Property struct {
	Name  string
	Value dbus.Variant
}

type execCommand struct {
	Path          string
	Args          []string
	IgnoreFailure bool
}

// Units are the unit objects captured, one of each type systemd has (and
// a service that never ran, from a unit file).
var Units = []Unit{
	{Kind: "service", Name: "capture-service.service", How: "transient",
		Props: []Property{{"ExecStart", dbus.MakeVariant([]execCommand{{"/bin/sleep", []string{"/bin/sleep", "infinity"}, false}})}}},
	{Kind: "service-file", Name: "capture-file.service", How: "load"},
	{Kind: "scope", Name: "capture-scope.scope", How: "transient", ScopePID: true},
	{Kind: "slice", Name: "capture.slice", How: "transient"},
	{Kind: "target", Name: "capture.target", How: "start"},
	{Kind: "socket", Name: "capture-socket.socket", How: "start"},
	{Kind: "timer", Name: "capture-timer.timer", How: "start"},
	{Kind: "path", Name: "capture-path.path", How: "start"},
	{Kind: "mount", Name: "run-capture.mount", How: "start"},
	{Kind: "automount", Name: "run-captureauto.automount", How: "load"},
	{Kind: "swap", Name: "run-captureswap.swap", How: "load"},
	{Kind: "device", Name: "dev-capture.device", How: "load"},
}

// Nodes are the inner nodes of the object tree captured (introspection
// data only: their child nodes are what busctl tree walks).
var Nodes = map[string]dbus.ObjectPath{
	"node-root":        "/",
	"node-org":         "/org",
	"node-freedesktop": "/org/freedesktop",
	"node-unit":        "/org/freedesktop/systemd1/unit",
	"node-job":         "/org/freedesktop/systemd1/job",
}

// Options configure a capture.
type Options struct {
	// UnitDir is where the unit files are written ("" : not written; the
	// caller put them in place).
	UnitDir string
	// Probe lists, per interface, property names to try with Get where
	// the introspection data does not list them.
	Probe map[string][]string
	// JobWait is how long to wait for the job to be running before it is
	// captured (zero: 10 s; negative: not at all).
	JobWait time.Duration
	// Logf reports progress; nil: quiet.
	Logf func(format string, args ...any)
}

// Run captures everything from the systemd on conn.
func Run(ctx context.Context, conn *dbus.Conn, opt Options) (*sdversions.Capture, error) {
	r := &run{ctx: ctx, conn: conn, opt: opt}
	if r.opt.Logf == nil {
		r.opt.Logf = func(string, ...any) {}
	}
	defer func() {
		for _, p := range r.procs {
			_ = p.Process.Kill()
			_ = p.Wait()
		}
	}()
	return r.all()
}

type run struct {
	ctx  context.Context
	conn *dbus.Conn
	opt  Options
	// procs are the processes started for scopes, killed at the end.
	procs []*exec.Cmd
}

func (r *run) obj(p dbus.ObjectPath) dbus.BusObject { return r.conn.Object(dest, p) }

func (r *run) call(p dbus.ObjectPath, method string, args ...any) *dbus.Call {
	return r.obj(p).CallWithContext(r.ctx, method, 0, args...)
}

// get and getAll take the variants from the message body as decoded:
// godbus's Store turns the struct values inside them into arrays of
// variants.
func (r *run) get(p dbus.ObjectPath, iface, name string) (dbus.Variant, error) {
	c := r.call(p, propsIface+".Get", iface, name)
	if c.Err != nil {
		return dbus.Variant{}, c.Err
	}
	if len(c.Body) != 1 {
		return dbus.Variant{}, fmt.Errorf("get %s: %d values", name, len(c.Body))
	}
	v, ok := c.Body[0].(dbus.Variant)
	if !ok {
		return dbus.Variant{}, fmt.Errorf("get %s: %T", name, c.Body[0])
	}
	return v, nil
}

func (r *run) getAll(p dbus.ObjectPath, iface string) (map[string]dbus.Variant, error) {
	c := r.call(p, propsIface+".GetAll", iface)
	if c.Err != nil {
		return nil, c.Err
	}
	if len(c.Body) != 1 {
		return nil, fmt.Errorf("GetAll %q: %d values", iface, len(c.Body))
	}
	all, ok := c.Body[0].(map[string]dbus.Variant)
	if !ok {
		return nil, fmt.Errorf("GetAll %q: %T", iface, c.Body[0])
	}
	return all, nil
}

func (r *run) all() (*sdversions.Capture, error) {
	c := &sdversions.Capture{Objects: map[string]*sdversions.Object{}}
	v, err := r.get(managerPath, managerIface, "Version")
	if err != nil {
		return nil, fmt.Errorf("the Version property: %w", err)
	}
	c.Release, _ = v.Value().(string)
	r.opt.Logf("capturing systemd %s", c.Release)

	if r.opt.UnitDir != "" {
		for name, text := range UnitFiles {
			if err := os.WriteFile(filepath.Join(r.opt.UnitDir, name), []byte(text), 0o644); err != nil {
				return nil, err
			}
		}
	}
	if err := r.call(managerPath, managerIface+".Reload").Err; err != nil {
		return nil, fmt.Errorf("reload: %w", err)
	}

	for _, u := range Units {
		o := r.unit(u)
		c.Objects[o.Kind] = o
	}

	// The job, and the job node while it exists.
	job := &sdversions.Object{Kind: "job", Unit: "capture-job.service",
		Made: "start job of a Type=oneshot service whose ExecStart sleeps, running"}
	var jp dbus.ObjectPath
	if err := r.call(managerPath, managerIface+".StartUnit", job.Unit, "replace").Store(&jp); err != nil {
		job.Errors = append(job.Errors, "StartUnit: "+err.Error())
	} else {
		job.Path = jp
		r.waitJobRunning(jp, r.opt.JobWait)
		r.describe(job)
	}
	c.Objects["job"] = job
	for kind, p := range Nodes {
		o := &sdversions.Object{Kind: kind, Path: p}
		r.describe(o)
		c.Objects[kind] = o
	}
	if jp != "" {
		if err := r.call(jp, "org.freedesktop.systemd1.Job.Cancel").Err; err != nil {
			r.opt.Logf("cancel %s: %v", jp, err)
		}
	}

	m := &sdversions.Object{Kind: "manager", Path: managerPath}
	r.describe(m)
	c.Objects["manager"] = m
	return c, nil
}

// unit makes one unit as u says and captures its object.
func (r *run) unit(u Unit) *sdversions.Object {
	o := &sdversions.Object{Kind: u.Kind, Unit: u.Name}
	fail := func(what string, err error) *sdversions.Object {
		o.Errors = append(o.Errors, what+": "+err.Error())
		r.opt.Logf("%s: %s: %v", u.Name, what, err)
		return o
	}
	switch u.How {
	case "transient":
		props := []struct {
			Name  string
			Value dbus.Variant
		}{}
		for _, p := range u.Props {
			props = append(props, struct {
				Name  string
				Value dbus.Variant
			}{p.Name, p.Value})
		}
		if u.ScopePID {
			cmd := exec.Command("/bin/sleep", "infinity")
			if err := cmd.Start(); err != nil {
				return fail("start process", err)
			}
			r.procs = append(r.procs, cmd)
			props = append(props, struct {
				Name  string
				Value dbus.Variant
			}{"PIDs", dbus.MakeVariant([]uint32{uint32(cmd.Process.Pid)})})
		}
		aux := []struct {
			Name  string
			Props []struct {
				Name  string
				Value dbus.Variant
			}
		}{}
		var jp dbus.ObjectPath
		if err := r.call(managerPath, managerIface+".StartTransientUnit", u.Name, "replace", props, aux).Store(&jp); err != nil {
			return fail("StartTransientUnit", err)
		}
		o.Made = "transient (StartTransientUnit with " + propNames(u) + "), started"
	case "start":
		var jp dbus.ObjectPath
		if err := r.call(managerPath, managerIface+".StartUnit", u.Name, "replace").Store(&jp); err != nil {
			return fail("StartUnit", err)
		}
		o.Made = "from a unit file (" + strings.TrimSpace(strings.ReplaceAll(UnitFiles[u.Name], "\n", " ")) + "), started"
	case "load":
		o.Made = "loaded (LoadUnit), never started"
		if text, ok := UnitFiles[u.Name]; ok {
			o.Made = "from a unit file (" + strings.TrimSpace(strings.ReplaceAll(text, "\n", " ")) + "), loaded (LoadUnit), never started"
		}
	}
	var p dbus.ObjectPath
	if err := r.call(managerPath, managerIface+".LoadUnit", u.Name).Store(&p); err != nil {
		return fail("LoadUnit", err)
	}
	o.Path = p
	if u.How != "load" {
		r.waitSettled(p)
	}
	if state, err := r.get(p, "org.freedesktop.systemd1.Unit", "ActiveState"); err == nil {
		o.Made += ", " + fmt.Sprint(state.Value())
	}
	r.describe(o)
	return o
}

func propNames(u Unit) string {
	var names []string
	for _, p := range u.Props {
		names = append(names, p.Name)
	}
	if u.ScopePID {
		names = append(names, "PIDs")
	}
	if len(names) == 0 {
		return "no properties"
	}
	return strings.Join(names, ", ")
}

// waitSettled waits (up to 10 s) until the unit has no job.
func (r *run) waitSettled(p dbus.ObjectPath) {
	for i := 0; i < 100; i++ {
		v, err := r.get(p, "org.freedesktop.systemd1.Unit", "Job")
		if err != nil {
			return
		}
		if j, ok := v.Value().([]any); !ok || len(j) != 2 || j[0] == uint32(0) {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// waitJobRunning waits (up to d, 10 s for zero) until the job's state is
// running.
func (r *run) waitJobRunning(p dbus.ObjectPath, d time.Duration) {
	if d == 0 {
		d = 10 * time.Second
	}
	for i := time.Duration(0); i < d; i += 100 * time.Millisecond {
		v, err := r.get(p, "org.freedesktop.systemd1.Job", "State")
		if err != nil || v.Value() == "running" {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// describe fills o from its object: introspection data, GetAll of each
// interface, GetAll(""), and the probed Get-only properties.
func (r *run) describe(o *sdversions.Object) {
	var data string
	if err := r.call(o.Path, "org.freedesktop.DBus.Introspectable.Introspect").Store(&data); err != nil {
		o.Errors = append(o.Errors, "Introspect: "+err.Error())
		return
	}
	if strings.HasPrefix(o.Kind, "node-") {
		data = sortChildren(data)
	}
	o.XML = data
	o.Node = &introspect.Node{}
	if err := xml.Unmarshal([]byte(data), o.Node); err != nil {
		o.Errors = append(o.Errors, "introspection data: "+err.Error())
		return
	}
	for _, in := range o.Node.Interfaces {
		if len(in.Properties) == 0 {
			continue
		}
		all, err := r.getAll(o.Path, in.Name)
		if err != nil {
			o.Errors = append(o.Errors, "GetAll "+in.Name+": "+err.Error())
			continue
		}
		for _, name := range sortedKeys(all) {
			p, err := sdversions.NewProp(in.Name, name, all[name])
			if err != nil {
				o.Errors = append(o.Errors, err.Error())
				continue
			}
			settle(o.Kind, &p)
			o.Properties = append(o.Properties, p)
		}
		listed := map[string]bool{}
		for _, p := range in.Properties {
			listed[p.Name] = true
		}
		for _, name := range r.opt.Probe[in.Name] {
			if listed[name] || all[name] != (dbus.Variant{}) {
				continue
			}
			v, err := r.get(o.Path, in.Name, name)
			if err != nil {
				continue
			}
			p, err := sdversions.NewProp(in.Name, name, v)
			if err != nil {
				o.Errors = append(o.Errors, err.Error())
				continue
			}
			settle(o.Kind, &p)
			o.GetOnly = append(o.GetOnly, p)
		}
	}
	if len(o.Properties) == 0 {
		return
	}
	all, err := r.getAll(o.Path, "")
	if err != nil {
		o.Errors = append(o.Errors, `GetAll "": `+err.Error())
		return
	}
	o.GetAllEmpty = sortedKeys(all)
}

// sortChildren sorts the lines of the child <node> elements (systemd lists
// units and jobs in hash order).
func sortChildren(data string) string {
	lines := strings.SplitAfter(data, "\n")
	var kids []string
	first := -1
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "<node name=") {
			if first < 0 {
				first = i
			}
			kids = append(kids, l)
		}
	}
	if first < 0 || first+len(kids) > len(lines) {
		return data
	}
	for i := range kids {
		if !strings.HasPrefix(strings.TrimSpace(lines[first+i]), "<node name=") {
			return data // not one run of lines: leave as answered
		}
	}
	sort.Strings(kids)
	copy(lines[first:], kids)
	return strings.Join(lines, "")
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Write writes c to dir (data/MAJOR): release.json, and KIND.xml and
// KIND.json of every object.
func Write(c *sdversions.Capture, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := writeJSON(filepath.Join(dir, "release.json"), c); err != nil {
		return err
	}
	for kind, o := range c.Objects {
		if err := os.WriteFile(filepath.Join(dir, kind+".xml"), []byte(o.XML), 0o644); err != nil {
			return err
		}
		if err := writeObject(filepath.Join(dir, kind+".json"), o); err != nil {
			return err
		}
	}
	return nil
}

func writeJSON(name string, v any) error {
	b, err := json.MarshalIndent(v, "", "\t")
	if err != nil {
		return err
	}
	return os.WriteFile(name, append(b, '\n'), 0o644)
}

// writeObject writes o as JSON with one property (and the GetAll("")
// names) a line, so that a refresh's diff shows what changed.
func writeObject(name string, o *sdversions.Object) error {
	var b bytes.Buffer
	field := func(key string, v any, last bool) error {
		j, err := json.Marshal(v)
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "\t%q: %s", key, j)
		if !last {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
		return nil
	}
	list := func(key string, ps []sdversions.Prop, last bool) error {
		fmt.Fprintf(&b, "\t%q: [", key)
		for i, p := range ps {
			j, err := json.Marshal(p)
			if err != nil {
				return err
			}
			b.WriteString("\n\t\t")
			b.Write(j)
			if i < len(ps)-1 {
				b.WriteByte(',')
			}
		}
		if len(ps) > 0 {
			b.WriteString("\n\t")
		}
		b.WriteString("]")
		if !last {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
		return nil
	}
	b.WriteString("{\n")
	for _, err := range []error{
		field("kind", o.Kind, false),
		field("path", o.Path, false),
		field("unit", o.Unit, false),
		field("made", o.Made, false),
		field("errors", nonNil(o.Errors), false),
		list("properties", o.Properties, false),
		field("getAllEmpty", nonNil(o.GetAllEmpty), false),
		list("getOnly", o.GetOnly, true),
	} {
		if err != nil {
			return err
		}
	}
	b.WriteString("}\n")
	return os.WriteFile(name, b.Bytes(), 0o644)
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// ProbeNames returns, per interface, the property names any of the
// captures lists.
func ProbeNames(caps []*sdversions.Capture) map[string][]string {
	seen := map[string]map[string]bool{}
	for _, c := range caps {
		for _, o := range c.Objects {
			if o.Node == nil {
				continue
			}
			for _, in := range o.Node.Interfaces {
				for _, p := range in.Properties {
					if seen[in.Name] == nil {
						seen[in.Name] = map[string]bool{}
					}
					seen[in.Name][p.Name] = true
				}
			}
		}
	}
	out := map[string][]string{}
	for in, names := range seen {
		out[in] = sortedKeys(names)
	}
	return out
}
