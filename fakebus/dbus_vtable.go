package fakebus

// The fake's D-Bus surface as data, in the manner of sd-bus's vtables
// (sd_bus_vtable, src/libsystemd/sd-bus/bus-objects.c): one table per
// interface lists each method with its signatures and argument names, and
// each signal. The one dispatcher (HandleCall in dbus.go) finds the
// method in the table of the called object's interface, answers
// UnknownMethod where the played release lacks it (sdversions.Methods),
// checks the signature as sd-bus does (InvalidArgs, worded as sd-bus
// words it), then calls the handler; Introspect is generated from the
// same tables (dbus_introspect.go).

import (
	"strings"

	"github.com/godbus/dbus/v5"
	"github.com/sdbus-go/sdbus/fakebus/internal/busd"
	"github.com/sdbus-go/sdbus/fakebus/internal/sdversions"
)

// call is a method call as a handler sees it. Member, Body and Signature
// are the call's own, except on a unit's or a job's object: there a method
// of the Unit, a type or the Job interface (Start, Kill, Cancel, ...) is
// answered by the handler of the Manager method it stands for
// (StartUnit, KillUnit, CancelJob, ...), and Member, Body and Signature
// are that method's, with the unit's name or the job's ID put before the
// arguments (systemd's Manager methods look up the unit and call the
// unit object's method; the fake does it the other way round).
type call struct {
	*busd.Call
	Member    string
	Body      []any
	Signature dbus.Signature
	obj       *object // what c.Path names (dbus_object.go)
}

// handler answers a method call under the manager's lock: the reply body,
// or an error reply (a *callErr, else org.freedesktop.DBus.Error.Failed),
// or (nil, nil) when it has replied itself or will reply later.
type handler func(*manager, *call) ([]any, error)

// vmethod is one method of an interface (SD_BUS_METHOD_WITH_ARGS).
type vmethod struct {
	name     string
	in, out  string // signatures of the arguments and of the reply
	inNames  string // the arguments' names, comma-separated, for Introspect
	outNames string // the reply's names, comma-separated, for Introspect
	call     handler
}

// vsignal is one signal of an interface (SD_BUS_SIGNAL_WITH_ARGS).
type vsignal struct {
	name  string
	sig   string
	names string // comma-separated, for Introspect
}

// vtable is one D-Bus interface: its methods and signals. Its properties
// are declared by the played release (declaredLocked) and their values
// come from the model (dbus_properties.go).
type vtable struct {
	name    string
	methods []vmethod
	signals []vsignal
	byName  map[string]*vmethod // built by newVtable
	// stands maps a method of a unit's or a job's object to the Manager
	// method it stands for (newRoutedVtable).
	stands map[string]string
	fixed  map[string][]any // arguments after the name, by method
	// annotations maps a method to its one annotation, value true
	// (org.freedesktop.DBus.Method.NoReply, org.freedesktop.systemd1.Privileged).
	annotations map[string]string
}

func newVtable(name string, methods []vmethod, signals []vsignal) *vtable {
	t := &vtable{name: name, methods: methods, signals: signals, byName: make(map[string]*vmethod, len(methods))}
	for i := range t.methods {
		t.byName[t.methods[i].name] = &t.methods[i]
	}
	return t
}

// Method annotations (value true) that systemd's vtables carry.
const (
	noReply    = "org.freedesktop.DBus.Method.NoReply"
	privileged = "org.freedesktop.systemd1.Privileged"
	deprecated = "org.freedesktop.DBus.Deprecated"
)

// annotate sets t's method annotations and returns t.
func (t *vtable) annotate(a map[string]string) *vtable {
	t.annotations = a
	return t
}

// newRoutedVtable returns the table of an interface of unit or job objects
// whose methods stand for Manager methods (stands: the object's method to
// the Manager's): each is answered by the Manager method's handler, with
// the object's unit name or job ID first (see call), then the fixed
// arguments of the method, if any, and is offered where the played
// release offers the Manager method. The signatures and names in methods
// are the object method's own.
func newRoutedVtable(name string, stands map[string]string, fixed map[string][]any, methods []vmethod, signals []vsignal) *vtable {
	for i := range methods {
		target := managerVtable.byName[stands[methods[i].name]]
		extra := fixed[methods[i].name]
		methods[i].call = func(m *manager, c *call) ([]any, error) {
			var first any
			var sig string
			if c.obj.job != nil {
				first, sig = c.obj.job.id, "u"
			} else {
				first, sig = c.obj.unit.name, "s"
			}
			body := append(make([]any, 0, 1+len(extra)+len(c.Body)), first)
			for _, a := range extra {
				body = append(body, a)
				sig += dbus.SignatureOf(a).String()
			}
			c.Member = target.name
			c.Body = append(body, c.Body...)
			c.Signature = dbus.ParseSignatureMust(sig + c.Signature.String())
			return target.call(m, c)
		}
	}
	t := newVtable(name, methods, signals)
	t.stands, t.fixed = stands, fixed
	return t
}

// declaredLocked returns the members of interface iface of an object of a
// captured kind ("manager", "job", "service-file", "socket", ...) as the
// played release declares them, in systemd's order (its vtable's, which
// sd-bus follows in Introspect and GetAll): each property's name,
// signature, access (read, readwrite) and annotations
// (org.freedesktop.DBus.Property.EmitsChangedSignal const, invalidates or
// false, as systemd declares each; org.freedesktop.systemd1.Privileged on
// the writable ones). They are the rows of the captured release nearest
// the played one (sdversions.CapturedObject, Object.Members): which of
// them the played release has is the release table's (sdversions.Has,
// hasFor), the values are the model's (objectPropsLocked).
func (m *manager) declaredLocked(kind, iface string) []sdversions.Member {
	if m.measuredFor != m.release {
		m.measured, m.declared, m.measuredFor = nil, nil, m.release
	}
	key := kind + " " + iface
	if d, ok := m.declared[key]; ok {
		return d
	}
	var d []sdversions.Member
	if kind == "logcontrol" {
		if iface == logControlIface {
			d = logControlMembers
		}
	} else if o, err := sdversions.CapturedObject(m.release, kind); err == nil {
		d = o.Members(iface)
	}
	if m.declared == nil {
		m.declared = map[string][]sdversions.Member{}
	}
	m.declared[key] = d
	return d
}

// ifaceOrderLocked returns the interfaces of an object of a captured
// kind in the order the played release registers them (sd-bus's order of
// the object's vtables: Introspect lists them so, GetAll("") answers
// them so; 262 puts Unit before a unit's type's interface, earlier
// releases after it).
func (m *manager) ifaceOrderLocked(kind string) []string {
	m.declaredLocked(kind, "") // resets the cache for another release
	key := kind + " interfaces"
	if d, ok := m.declared[key]; ok {
		out := make([]string, len(d))
		for i := range d {
			out[i] = d[i].Name
		}
		return out
	}
	var d []sdversions.Member
	if o, err := sdversions.CapturedObject(m.release, kind); err == nil {
		for _, n := range o.InterfaceNames() {
			d = append(d, sdversions.Member{Kind: "interface", Name: n})
		}
	}
	m.declared[key] = d
	return m.ifaceOrderLocked(kind)
}

// declaredProp returns the declaration of property name among members.
func declaredProp(members []sdversions.Member, name string) (sdversions.Member, bool) {
	for _, d := range members {
		if d.Kind == "property" && d.Name == name {
			return d, true
		}
	}
	return sdversions.Member{}, false
}

// offersLocked reports whether the played release has method vm of
// interface t: Manager methods (and the methods that stand for them) as
// sdversions.Methods says, the others always.
func (m *manager) offersLocked(t *vtable, vm *vmethod) bool {
	name := t.gate(vm)
	if _, gated := sdversions.Methods[name]; !gated {
		return true
	}
	return m.has(name) || m.hiddenMethod(name)
}

// gate returns the Manager method whose presence in a release decides
// whether the release has method vm of interface t: vm itself on the
// Manager, the Manager method it stands for on a unit's or a job's
// object; "" for the methods of the other interfaces, which every
// release has.
func (t *vtable) gate(vm *vmethod) string {
	if s, ok := t.stands[vm.name]; ok {
		return s
	}
	if t == managerVtable {
		return vm.name
	}
	return ""
}

// checkSignature is sd-bus's check of a call's arguments against the
// method's in-signature (method_callbacks_run).
func checkSignature(c *busd.Call, vm *vmethod) error {
	if got := c.Signature.String(); got != vm.in {
		return errInvalidArgs("Invalid arguments '%s' to call %s.%s(), expecting '%s'.", got, c.Interface, c.Member, vm.in)
	}
	return nil
}

// names splits a comma-separated list of argument names.
func names(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}
