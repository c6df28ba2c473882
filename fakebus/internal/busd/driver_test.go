package busd

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/google/go-cmp/cmp"
)

func TestDriver(t *testing.T) {
	b, _ := newTestBus(t)
	c := busClient(t, b)
	other := busClient(t, b)
	me, them := c.Names()[0], other.Names()[0]
	uid, pid := uint32(os.Getuid()), uint32(os.Getpid())

	tests := []struct {
		name    string
		method  string // on org.freedesktop.DBus unless it contains an interface
		args    []any
		want    []any
		wantErr string
	}{
		{"GetNameOwner service", "GetNameOwner", []any{testService}, []any{":1.1"}, ""},
		{"GetNameOwner unique", "GetNameOwner", []any{them}, []any{them}, ""},
		{"GetNameOwner driver", "GetNameOwner", []any{driverName}, []any{driverName}, ""},
		{"GetNameOwner none", "GetNameOwner", []any{"org.example.Nobody"}, nil, errNameHasNoOwner},
		{"GetNameOwner gone unique", "GetNameOwner", []any{":1.99"}, nil, errNameHasNoOwner},
		{"NameHasOwner service", "NameHasOwner", []any{testService}, []any{true}, ""},
		{"NameHasOwner none", "NameHasOwner", []any{"org.example.Nobody"}, []any{false}, ""},
		{"ListNames", "ListNames", nil, []any{[]string{":1.1", me, them, driverName, testService}}, ""},
		{"ListActivatableNames", "ListActivatableNames", nil, []any{[]string{driverName, testService}}, ""},
		{"GetId", "GetId", nil, []any{b.guid}, ""},
		{"GetConnectionUnixUser", "GetConnectionUnixUser", []any{them}, []any{uid}, ""},
		{"GetConnectionUnixUser service", "GetConnectionUnixUser", []any{testService}, []any{uid}, ""},
		{"GetConnectionUnixUser none", "GetConnectionUnixUser", []any{"org.example.Nobody"}, nil, errNameHasNoOwner},
		{"GetConnectionUnixProcessID", "GetConnectionUnixProcessID", []any{me}, []any{pid}, ""},
		{"GetConnectionCredentials", "GetConnectionCredentials", []any{me},
			[]any{map[string]dbus.Variant{"UnixUserID": dbus.MakeVariant(uid), "ProcessID": dbus.MakeVariant(pid)}}, ""},
		{"StartServiceByName running", "StartServiceByName", []any{testService, uint32(0)}, []any{uint32(2)}, ""},
		{"StartServiceByName unknown", "StartServiceByName", []any{"org.example.Nobody", uint32(0)}, nil, errServiceUnknown},
		{"AddMatch invalid", "AddMatch", []any{"type='bogus'"}, nil, errMatchRuleInvalid},
		{"RemoveMatch absent", "RemoveMatch", []any{"type='signal'"}, nil, errMatchRuleNotFound},
		{"RemoveMatch invalid", "RemoveMatch", []any{"type="}, nil, errMatchRuleInvalid},
		{"wrong args", "GetNameOwner", []any{uint32(1)}, nil, errInvalidArgs},
		{"unknown method", "Bogus", nil, nil, errUnknownMethod},
		{"RequestName service name", "RequestName", []any{testService, uint32(0)}, []any{uint32(3)}, ""},
		{"RequestName unique", "RequestName", []any{":1.7", uint32(0)}, nil, errInvalidArgs},
		{"RequestName driver", "RequestName", []any{driverName, uint32(0)}, nil, errInvalidArgs},
		{"RequestName invalid", "RequestName", []any{"nodots", uint32(0)}, nil, errInvalidArgs},
		{"ReleaseName service name", "ReleaseName", []any{testService}, []any{uint32(3)}, ""},
		{"ReleaseName nobody", "ReleaseName", []any{"org.example.Nobody"}, []any{uint32(2)}, ""},
		{"Ping", "org.freedesktop.DBus.Peer.Ping", nil, nil, ""},
		{"GetMachineId", "org.freedesktop.DBus.Peer.GetMachineId", nil, []any{b.machineID}, ""},
		{"Properties.Get", "org.freedesktop.DBus.Properties.Get", []any{driverIface, "Features"}, []any{dbus.MakeVariant([]string{})}, ""},
		{"Properties.Get unknown", "org.freedesktop.DBus.Properties.Get", []any{driverIface, "Bogus"}, nil, errUnknownProperty},
		{"unknown interface", "org.example.Bogus.Foo", nil, nil, errUnknownInterface},
	}
	for _, tt := range tests {
		tt := tt
		t.Run(tt.name, func(t *testing.T) {
			method := tt.method
			if !strings.Contains(method, ".") {
				method = driverIface + "." + method
			}
			call := c.BusObject().Call(method, 0, tt.args...)
			if got := dbusErrorName(call.Err); got != tt.wantErr {
				t.Fatalf("%s: error %v, want %q", method, call.Err, tt.wantErr)
			}
			if tt.wantErr != "" {
				return
			}
			if diff := cmp.Diff(tt.want, call.Body, cmp.Comparer(func(a, b dbus.Variant) bool { return a.String() == b.String() })); diff != "" {
				t.Errorf("%s body (-want +got):\n%s", method, diff)
			}
		})
	}

	var xml string
	if err := c.BusObject().Call("org.freedesktop.DBus.Introspectable.Introspect", 0).Store(&xml); err != nil || !strings.Contains(xml, `<method name="AddMatch">`) {
		t.Errorf("Introspect: %v, %q", err, xml)
	}
}

func TestRequestName(t *testing.T) {
	b, _ := newTestBus(t)
	a := busClient(t, b)
	c := busClient(t, b)
	watcher := busClient(t, b)
	addMatch(t, watcher, "type='signal',sender='org.freedesktop.DBus',member='NameOwnerChanged',arg0='org.example.Name'")
	noc := signals(watcher, 100)
	aSignals := signals(a, 100)

	request := func(conn *dbus.Conn, flags dbus.RequestNameFlags) dbus.RequestNameReply {
		t.Helper()
		r, err := conn.RequestName("org.example.Name", flags)
		if err != nil {
			t.Fatalf("RequestName: %v", err)
		}
		return r
	}
	expectNOC := func(want ...any) {
		t.Helper()
		s := nextDriverSignal(t, noc, "NameOwnerChanged")
		if diff := cmp.Diff(want, s.Body); diff != "" {
			t.Errorf("NameOwnerChanged (-want +got):\n%s", diff)
		}
	}
	an, cn := a.Names()[0], c.Names()[0]

	if r := request(a, dbus.NameFlagAllowReplacement); r != dbus.RequestNameReplyPrimaryOwner {
		t.Errorf("first RequestName = %v, want primary owner", r)
	}
	expectNOC("org.example.Name", "", an)
	nextNameSignal(t, aSignals, "NameAcquired", "org.example.Name")
	if r := request(a, 0); r != dbus.RequestNameReplyAlreadyOwner {
		t.Errorf("owner's RequestName = %v, want already owner", r)
	}
	// The owner's flags were just reset (no ALLOW_REPLACEMENT)...
	if r := request(c, dbus.NameFlagReplaceExisting); r != dbus.RequestNameReplyExists {
		t.Errorf("RequestName without replacement allowed = %v, want exists", r)
	}
	// ...so allow it again, and replace.
	request(a, dbus.NameFlagAllowReplacement)
	if r := request(c, dbus.NameFlagReplaceExisting); r != dbus.RequestNameReplyPrimaryOwner {
		t.Errorf("replacing RequestName = %v, want primary owner", r)
	}
	expectNOC("org.example.Name", an, cn)
	nextNameSignal(t, aSignals, "NameLost", "org.example.Name")
	var owner string
	if err := a.BusObject().Call("org.freedesktop.DBus.GetNameOwner", 0, "org.example.Name").Store(&owner); err != nil || owner != cn {
		t.Errorf("GetNameOwner = %q, %v; want %s", owner, err, cn)
	}
	if r, err := a.ReleaseName("org.example.Name"); err != nil || r != dbus.ReleaseNameReplyNotOwner {
		t.Errorf("non-owner ReleaseName = %v, %v", r, err)
	}

	// Calls to a client-owned name are forwarded to the owner.
	if err := c.Export(echoObject{}, "/obj", "org.example.Echo"); err != nil {
		t.Fatal(err)
	}
	var got string
	if err := a.Object("org.example.Name", "/obj").Call("org.example.Echo.Echo", 0, "hi").Store(&got); err != nil || got != "hi from "+an {
		t.Errorf("call to client-owned name: %q, %v", got, err)
	}

	// When the owner disconnects, the name goes away, then its unique name.
	c.Close()
	expectNOC("org.example.Name", cn, "")
	if err := a.BusObject().Call("org.freedesktop.DBus.GetNameOwner", 0, "org.example.Name").Err; dbusErrorName(err) != errNameHasNoOwner {
		t.Errorf("GetNameOwner after owner left: %v", err)
	}
}

// echoObject is exported by a client in TestRequestName.
type echoObject struct{}

func (echoObject) Echo(sender dbus.Sender, s string) (string, *dbus.Error) {
	return s + " from " + string(sender), nil
}

func TestBecomeMonitor(t *testing.T) {
	b, _ := newTestBus(t)
	mon := busClient(t, b)
	c := busClient(t, b)
	monName := mon.Names()[0]
	if _, err := mon.RequestName("org.example.Mon", 0); err != nil {
		t.Fatal(err)
	}
	err := mon.BusObject().Call("org.freedesktop.DBus.Monitoring.BecomeMonitor", 0, []string{"type='signal'", "type='method_call'"}, uint32(0)).Err
	if err != nil {
		t.Fatal(err)
	}
	ch := make(chan *dbus.Message, 10)
	mon.Eavesdrop(ch)
	// The monitor lost its names.
	for _, name := range []string{monName, "org.example.Mon"} {
		if err := c.BusObject().Call("org.freedesktop.DBus.GetNameOwner", 0, name).Err; dbusErrorName(err) != errNameHasNoOwner {
			t.Errorf("GetNameOwner(%s) = %v, want NameHasNoOwner", name, err)
		}
	}
	// It sees calls to the service, not their replies (no rule for them).
	if err := c.Object(testService, testPath).Call(testIface+".Echo", 0, "x").Err; err != nil {
		t.Fatal(err)
	}
	b.Emit(testPath, testIface, "Sig")
	var got, all []string
	for len(got) < 4 {
		var m *dbus.Message
		select {
		case m = <-ch:
		case <-time.After(10 * time.Second):
			t.Fatalf("the monitor saw %v (all: %v); want 4 messages", got, all)
		}
		all = append(all, fmt.Sprint(m.Type, " ", m.Headers[dbus.FieldSender].Value(), " ", m.Headers[dbus.FieldMember].Value(), m.Body))
		if m.Headers[dbus.FieldSender].Value() == driverName {
			continue // NameLost for its names
		}
		member, _ := m.Headers[dbus.FieldMember].Value().(string)
		got = append(got, m.Type.String()+" "+member)
	}
	want := []string{"method call GetNameOwner", "method call GetNameOwner", "method call Echo", "signal Sig"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("monitor saw (-want +got):\n%s", diff)
	}
	// A monitor that sends anything is dropped.
	mon.Eavesdrop(nil)
	_ = mon.Emit("/", "org.example.I.Bad")
	waitDone(t, mon.Context().Done(), "the monitor to be dropped")
}

// A monitor sees a reply before anything its recipient makes happen next
// (dbus-daemon captures a message for its monitors before it delivers
// it): here a signal the test emits once its call returned.
func TestMonitorSeesReplyFirst(t *testing.T) {
	b, _ := newTestBus(t)
	mon := busClient(t, b)
	c := busClient(t, b)
	err := mon.BusObject().Call("org.freedesktop.DBus.Monitoring.BecomeMonitor", 0,
		[]string{"type='signal',path='" + string(testPath) + "'", "type='method_return'"}, uint32(0)).Err
	if err != nil {
		t.Fatal(err)
	}
	ch := make(chan *dbus.Message, 1000)
	mon.Eavesdrop(ch)
	const rounds = 200
	for i := 0; i < rounds; i++ {
		if err := c.Object(testService, testPath).Call(testIface+".Echo", 0, "x").Err; err != nil {
			t.Fatal(err)
		}
		b.Emit(testPath, testIface, "Sig")
	}
	var got []string
	for len(got) < 2*rounds {
		select {
		case m := <-ch:
			if m.Headers[dbus.FieldSender].Value() == driverName {
				continue // the bus driver's (NameLost of the monitor's name)
			}
			got = append(got, m.Type.String())
		case <-time.After(10 * time.Second):
			t.Fatalf("the monitor saw %d messages, want %d", len(got), 2*rounds)
		}
	}
	for i := 0; i < rounds; i++ {
		if got[2*i] != "reply" || got[2*i+1] != "signal" {
			t.Fatalf("round %d: the monitor saw %q then %q; want the reply, then the signal", i, got[2*i], got[2*i+1])
		}
	}
}
