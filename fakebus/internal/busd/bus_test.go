package busd

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/godbus/dbus/v5"
	"github.com/google/go-cmp/cmp"
)

func TestHello(t *testing.T) {
	b, _ := newTestBus(t)
	if got := b.ServiceUniqueName(); got != ":1.1" {
		t.Errorf("ServiceUniqueName() = %q, want :1.1", got)
	}
	c1 := busClient(t, b)
	c2 := busClient(t, b)
	if diff := cmp.Diff([]string{":1.2", ":1.3"}, []string{c1.Names()[0], c2.Names()[0]}); diff != "" {
		t.Errorf("unique names (-want +got):\n%s", diff)
	}

	// NameAcquired is unicast right after the Hello reply; it is the first
	// signal a fresh connection gets.
	conn, err := dbus.NewConn(b.Pipe(BusMode))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ch := signals(conn, 10)
	if err := conn.Auth(nil); err != nil {
		t.Fatal(err)
	}
	if err := conn.Hello(); err != nil {
		t.Fatal(err)
	}
	s := nextDriverSignal(t, ch, "NameAcquired")
	if diff := cmp.Diff([]any{":1.4"}, s.Body); diff != "" {
		t.Errorf("NameAcquired body (-want +got):\n%s", diff)
	}
	if err := conn.Hello(); dbusErrorName(err) != errFailed {
		t.Errorf("second Hello: %v, want %s", err, errFailed)
	}
}

func TestFirstMessageMustBeHello(t *testing.T) {
	b, _ := newTestBus(t)
	conn, err := dbus.NewConn(b.Pipe(BusMode))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := conn.Auth(nil); err != nil {
		t.Fatal(err)
	}
	err = conn.BusObject().Call("org.freedesktop.DBus.ListNames", 0).Err
	if got := dbusErrorName(err); got != errAccessDenied {
		t.Errorf("call before Hello: %v, want %s", err, errAccessDenied)
	}
	waitDone(t, conn.Context().Done(), "the connection to be dropped")
}

func TestCallErrors(t *testing.T) {
	b, _ := newTestBus(t)
	c := busClient(t, b)
	tests := []struct {
		name, dest, method string
		flags              dbus.Flags
		wantErr            string
	}{
		{"service error", testService, testIface + ".Fail", 0, testErrorName},
		{"service unknown method", testService, testIface + ".Bogus", 0, errUnknownMethod},
		{"unknown well-known name", "org.example.Nobody", testIface + ".Echo", 0, errServiceUnknown},
		{"unknown well-known name, no auto start", "org.example.Nobody", testIface + ".Echo", dbus.FlagNoAutoStart, errNameHasNoOwner},
		{"unknown unique name", ":1.99", testIface + ".Echo", 0, errNameHasNoOwner},
		{"service Peer.Ping by unique name", ":1.1", "org.freedesktop.DBus.Peer.Ping", 0, ""},
		{"service Peer unknown", testService, "org.freedesktop.DBus.Peer.Bogus", 0, errUnknownMethod},
	}
	for _, tt := range tests {
		tt := tt
		t.Run(tt.name, func(t *testing.T) {
			err := c.Object(tt.dest, testPath).Call(tt.method, tt.flags).Err
			if got := dbusErrorName(err); got != tt.wantErr {
				t.Errorf("error %v (name %q), want %q", err, got, tt.wantErr)
			}
		})
	}
	var e dbus.Error
	err := c.Object(testService, testPath).Call(testIface+".Fail", 0).Err
	if de, ok := err.(dbus.Error); !ok {
		t.Errorf("error is %T, want dbus.Error", err)
	} else {
		e = de
	}
	if diff := cmp.Diff(dbus.Error{Name: testErrorName, Body: []any{"it failed"}}, e); diff != "" {
		t.Errorf("error (-want +got):\n%s", diff)
	}
}

func TestServiceCall(t *testing.T) {
	b, svc := newTestBus(t)
	c := busClient(t, b)
	var (
		name, dest string
		uid, pid   uint32
	)
	if err := c.Object(testService, testPath).Call(testIface+".WhoAmI", 0).Store(&name, &uid, &pid, &dest); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]any{c.Names()[0], uint32(os.Getuid()), uint32(os.Getpid()), testService}, []any{name, uid, pid, dest}); diff != "" {
		t.Errorf("WhoAmI (-want +got):\n%s", diff)
	}
	var s string
	if err := c.Object(":1.1", testPath).Call(testIface+".Later", 0).Store(&s); err != nil || s != "later" {
		t.Errorf("Later = %q, %v", s, err)
	}
	// Various D-Bus types round trip through Echo (which replies with the
	// decoded body).
	in := []any{uint32(7), dbus.ObjectPath("/a/b"), "s", map[string]dbus.Variant{"k": dbus.MakeVariant(int32(-1))}, []string{"a", "b"}, true, 1.5, []any{"v"}}
	call := c.Object(testService, testPath).Call(testIface+".Echo", 0, in...)
	if call.Err != nil {
		t.Fatal(call.Err)
	}
	want := append([]any(nil), in...)
	want[7] = []dbus.Variant{dbus.MakeVariant("v")} // []any is "av"
	if diff := cmp.Diff(want, call.Body, cmp.Comparer(func(a, b dbus.Variant) bool { return a.String() == b.String() })); diff != "" {
		t.Errorf("Echo (-want +got):\n%s", diff)
	}
	// Structs are replied as Go structs, and arrive as []any.
	call = c.Object(testService, testPath).Call(testIface+".Structs", 0)
	if call.Err != nil {
		t.Fatal(call.Err)
	}
	wantStructs := []any{[]any{"x", uint64(1)}, [][]any{{"a.service", dbus.ObjectPath("/u/a")}}}
	if diff := cmp.Diff(wantStructs, call.Body); diff != "" {
		t.Errorf("Structs (-want +got):\n%s", diff)
	}
	// NoReplyExpected calls reach the handler, and nothing comes back.
	calls := make(chan *Call, 1)
	svc.calls = calls // no call is in flight
	if call := c.Object(testService, testPath).Call(testIface+".Echo", dbus.FlagNoReplyExpected, "x"); call.Err != nil {
		t.Fatal(call.Err)
	}
	if got := <-calls; !got.NoReply() {
		t.Error("NoReply() = false")
	}
}

func TestMatchFiltering(t *testing.T) {
	b, _ := newTestBus(t)
	rules := map[string]string{
		"all":       "",
		"signals":   "type='signal'",
		"member A":  "type='signal',member='A'",
		"arg0 x":    "type='signal',arg0='x'",
		"path ns":   "type='signal',path_namespace='/org/test/sub'",
		"by sender": "type='signal',sender='" + testService + "',member='B'",
		"nothing":   "type='signal',interface='org.example.Nothing'",
	}
	chans := map[string]chan *dbus.Signal{}
	for name, rule := range rules {
		c := busClient(t, b)
		addMatch(t, c, rule)
		// A second rule: the End signal tells that nothing else is coming.
		addMatch(t, c, "type='signal',interface='org.test.Control',member='End'")
		chans[name] = signals(c, 100)
	}
	b.Emit("/org/test", testIface, "A", "x")
	b.Emit("/org/test/sub/1", testIface, "B", "y")
	b.Emit("/org/test/subway", testIface, "C", "x")
	b.Emit("/", "org.test.Control", "End")

	want := map[string][]string{
		"all":       {"A", "B", "C"},
		"signals":   {"A", "B", "C"},
		"member A":  {"A"},
		"arg0 x":    {"A", "C"},
		"path ns":   {"B"},
		"by sender": {"B"},
		"nothing":   nil,
	}
	for name, ch := range chans {
		var got []string
		for s := nextSignal(t, ch); s.Name != "org.test.Control.End"; s = nextSignal(t, ch) {
			got = append(got, s.Name[strings.LastIndex(s.Name, ".")+1:])
		}
		if diff := cmp.Diff(want[name], got); diff != "" {
			t.Errorf("%s (%q) got signals (-want +got):\n%s", name, rules[name], diff)
		}
	}
}

func TestRenewServiceNameAndForgery(t *testing.T) {
	b, _ := newTestBus(t)
	c, ch := serviceWatcher(t, b)

	b.Emit(testPath, testIface, "First")
	if s := nextSignal(t, ch); s.Name != testIface+".First" || s.Sender != ":1.1" {
		t.Errorf("got %s from %s, want First from :1.1", s.Name, s.Sender)
	}

	old, renewed := b.RenewServiceName()
	if old != ":1.1" || renewed != ":1.3" {
		t.Errorf("RenewServiceName() = %q, %q; want :1.1, :1.3", old, renewed)
	}
	var nocs [][]any
	for i := 0; i < 4; i++ {
		nocs = append(nocs, nextDriverSignal(t, ch, "NameOwnerChanged").Body)
	}
	wantNOCs := [][]any{
		{testService, ":1.1", ""},
		{":1.1", ":1.1", ""},
		{":1.3", "", ":1.3"},
		{testService, "", ":1.3"},
	}
	if diff := cmp.Diff(wantNOCs, nocs); diff != "" {
		t.Errorf("NameOwnerChanged (-want +got):\n%s", diff)
	}

	// A forged signal (another sender) is not matched by the sender rule,
	// even if it claims the well-known name itself; the rule without sender
	// matches it.
	b.EmitFrom(":1.1", testPath, testIface, "ForgedOld")
	b.EmitFrom(testService, testPath, testIface, "ForgedName")
	b.EmitFrom(":1.77", testPath, "org.test.Any", "Foreign")
	b.Emit(testPath, testIface, "Second")
	want := [][2]string{{"org.test.Any.Foreign", ":1.77"}, {testIface + ".Second", ":1.3"}}
	var got [][2]string
	for len(got) < len(want) {
		s := nextSignal(t, ch)
		got = append(got, [2]string{s.Name, s.Sender})
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("signals after renewal (-want +got):\n%s", diff)
	}
	var owner string
	if err := c.BusObject().Call("org.freedesktop.DBus.GetNameOwner", 0, testService).Store(&owner); err != nil || owner != ":1.3" {
		t.Errorf("GetNameOwner = %q, %v", owner, err)
	}
	// The old unique name is gone.
	if err := c.Object(":1.1", testPath).Call(testIface+".Echo", 0).Err; dbusErrorName(err) != errNameHasNoOwner {
		t.Errorf("call to old unique name: %v", err)
	}
}

func TestClientSignalsRelayed(t *testing.T) {
	b, _ := newTestBus(t)
	listener := busClient(t, b)
	forger := busClient(t, b)
	addMatch(t, listener, "type='signal',member='JobRemoved'")
	addMatch(t, forger, "type='signal',member='JobRemoved'")
	lch := signals(listener, 10)
	fch := signals(forger, 10)

	if err := forger.Emit("/org/freedesktop/systemd1", "org.freedesktop.systemd1.Manager.JobRemoved", uint32(1), dbus.ObjectPath("/job/1"), "x.service", "done"); err != nil {
		t.Fatal(err)
	}
	s := nextSignal(t, lch)
	if s.Sender != forger.Names()[0] || s.Name != "org.freedesktop.systemd1.Manager.JobRemoved" {
		t.Errorf("got %s from %s, want JobRemoved from %s", s.Name, s.Sender, forger.Names()[0])
	}
	// The sender does not get its own broadcast; a unicast signal reaches
	// only its destination, whatever the rules say.
	msg := &dbus.Message{Type: dbus.TypeSignal, Headers: map[dbus.HeaderField]dbus.Variant{
		dbus.FieldPath:        dbus.MakeVariant(dbus.ObjectPath("/x")),
		dbus.FieldInterface:   dbus.MakeVariant("org.example.Uni"),
		dbus.FieldMember:      dbus.MakeVariant("Cast"),
		dbus.FieldDestination: dbus.MakeVariant(forger.Names()[0]),
	}}
	if err := listener.Send(msg, nil).Err; err != nil {
		t.Fatal(err)
	}
	s = nextSignal(t, fch)
	if s.Name != "org.example.Uni.Cast" || s.Sender != listener.Names()[0] {
		t.Errorf("forger got %s from %s, want the unicast signal from %s", s.Name, s.Sender, listener.Names()[0])
	}
}

// TestOrdering checks that a service emitting a signal, replying and
// emitting another signal under its lock is observed in that order by every
// client, concurrently.
func TestOrdering(t *testing.T) {
	t.Run("pipe", func(t *testing.T) {
		b, _ := newTestBus(t)
		testOrdering(t, func() *dbus.Conn { return busClient(t, b) })
	})
	t.Run("socket", func(t *testing.T) {
		b, _ := newTestBus(t)
		sock := filepath.Join(t.TempDir(), "bus")
		if err := b.Listen(sock, BusMode); err != nil {
			t.Fatal(err)
		}
		testOrdering(t, func() *dbus.Conn { return socketClient(t, sock, true) })
	})
}

func testOrdering(t *testing.T, connect func() *dbus.Conn) {
	const clients, calls = 4, 1000
	var wg sync.WaitGroup
	errs := make(chan string, clients)
	for i := 0; i < clients; i++ {
		c := connect()
		me := c.Names()[0]
		addMatch(t, c, "type='signal',sender='"+testService+"',arg0='"+me+"'")
		ch := signals(c, 2*calls+10)
		wg.Add(1)
		go func() {
			defer wg.Done()
			replies := make(map[uint32]dbus.Sequence, calls)
			for j := 0; j < calls; j++ {
				call := c.Object(testService, testPath).Call(testIface+".Ordered", 0)
				var n uint32
				if err := call.Store(&n); err != nil {
					errs <- err.Error()
					return
				}
				replies[n] = call.ResponseSequence
			}
			before := map[uint32]dbus.Sequence{}
			after := map[uint32]dbus.Sequence{}
			for k := 0; k < 2*calls; k++ {
				s := <-ch
				if s.Sender == driverName {
					k--
					continue
				}
				n := s.Body[1].(uint32)
				if s.Name == testIface+".Before" {
					before[n] = s.Sequence
				} else {
					after[n] = s.Sequence
				}
			}
			for n, rs := range replies {
				if !(before[n] < rs && rs < after[n]) {
					errs <- me + ": out of order"
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

func TestPeerMode(t *testing.T) {
	b, svc := newTestBus(t)
	c := peerClient(t, b)
	ch := signals(c, 10)
	var name, dest string
	var uid, pid uint32
	if err := c.Object("", testPath).Call(testIface+".WhoAmI", 0).Store(&name, &uid, &pid, &dest); err != nil {
		t.Fatal(err)
	}
	if name != "" || dest != "" {
		t.Errorf("WhoAmI in PeerMode = %q, %q; want empty names", name, dest)
	}
	// Any destination goes to the service, even the driver's name.
	if err := c.Object(driverName, driverPath).Call(driverIface+".ListNames", 0).Err; dbusErrorName(err) != errUnknownMethod {
		t.Errorf("driver call in PeerMode: %v, want the service's UnknownMethod", err)
	}
	if err := c.Object("", "/").Call("org.freedesktop.DBus.Peer.Ping", 0).Err; err != nil {
		t.Errorf("Ping: %v", err)
	}
	var id string
	if err := c.Object("", "/").Call("org.freedesktop.DBus.Peer.GetMachineId", 0).Store(&id); err != nil || id != b.machineID {
		t.Errorf("GetMachineId = %q, %v", id, err)
	}
	// Client signals are dropped; service signals arrive without sender.
	if err := c.Emit("/", "org.example.Client.Sig"); err != nil {
		t.Fatal(err)
	}
	b.Emit(testPath, testIface, "Hi", "there")
	s := nextSignal(t, ch)
	if s.Sender != "" || s.Name != testIface+".Hi" {
		t.Errorf("got %s from %q, want Hi without sender", s.Name, s.Sender)
	}
	ps := b.Peers()
	if len(ps) != 1 || ps[0].Mode() != PeerMode || ps[0].UniqueName() != "" {
		t.Fatalf("Peers() = %v", ps)
	}
	c.Close()
	if p := <-svc.gone; p != ps[0] {
		t.Errorf("PeerGone(%p), want %p", p, ps[0])
	}
	waitDone(t, ps[0].Done(), "Peer.Done")
}

func TestEavesdrop(t *testing.T) {
	b, _ := newTestBus(t)
	spy := busClient(t, b)
	c := busClient(t, b)
	addMatch(t, spy, "eavesdrop='true',type='method_return'")
	ch := make(chan *dbus.Message, 10)
	spy.Eavesdrop(ch)
	if err := c.Object(testService, testPath).Call(testIface+".Echo", 0, "secret").Err; err != nil {
		t.Fatal(err)
	}
	m := <-ch
	if m.Type != dbus.TypeMethodReply || m.Body[0] != "secret" || m.Headers[dbus.FieldDestination].Value() != c.Names()[0] {
		t.Errorf("spy got %v", m)
	}
}

func TestPeersAndPeerGone(t *testing.T) {
	b, svc := newTestBus(t)
	c1 := busClient(t, b)
	c2 := busClient(t, b)
	watcher := busClient(t, b)
	addMatch(t, watcher, "type='signal',member='NameOwnerChanged'")
	ch := signals(watcher, 10)
	var names []string
	for _, p := range b.Peers() {
		names = append(names, p.UniqueName())
	}
	sort.Strings(names)
	if diff := cmp.Diff([]string{c1.Names()[0], c2.Names()[0], watcher.Names()[0]}, names); diff != "" {
		t.Errorf("Peers (-want +got):\n%s", diff)
	}
	gone := c1.Names()[0]
	c1.Close()
	if p := <-svc.gone; p.UniqueName() != gone {
		t.Errorf("PeerGone(%s), want %s", p.UniqueName(), gone)
	}
	if diff := cmp.Diff([]any{gone, gone, ""}, nextDriverSignal(t, ch, "NameOwnerChanged").Body); diff != "" {
		t.Errorf("NameOwnerChanged (-want +got):\n%s", diff)
	}
}

func TestListening(t *testing.T) {
	const other = "org.example.Other"
	tests := []struct {
		name  string
		rules []string
		peer  bool // a peer-to-peer client receives every signal
		want  map[string]bool
	}{
		{name: "nobody", want: map[string]bool{"A": false, "B": false}},
		{name: "all", rules: []string{""}, want: map[string]bool{"A": true, "B": true}},
		{name: "member A", rules: []string{"type='signal',member='A'"}, want: map[string]bool{"A": true, "B": false}},
		// Argument matches cannot be checked before the body exists.
		{name: "arg0", rules: []string{"type='signal',member='B',arg0='x'"}, want: map[string]bool{"A": false, "B": true}},
		{name: "other sender", rules: []string{"type='signal',sender='" + other + "'"}, want: map[string]bool{"A": false, "B": false}},
		{name: "method calls only", rules: []string{"type='method_call'"}, want: map[string]bool{"A": false, "B": false}},
		{name: "path", rules: []string{"type='signal',path='/elsewhere'"}, want: map[string]bool{"A": false, "B": false}},
		{name: "peer", peer: true, want: map[string]bool{"A": true, "B": true}},
	}
	for _, tt := range tests {
		tt := tt
		t.Run(tt.name, func(t *testing.T) {
			b, _ := newTestBus(t)
			c := busClient(t, b)
			for _, r := range tt.rules {
				addMatch(t, c, r)
			}
			if tt.peer {
				peerClient(t, b)
			}
			got := map[string]bool{}
			for member := range tt.want {
				got[member] = b.Listening(testPath, testIface, member)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Listening (-want +got):\n%s", diff)
			}
		})
	}
}

// TestReplyFromAnotherGoroutine: a reply sent from another goroutine
// while HandleCall, having called Handled, has not returned yet does not
// touch the connection's input, which the reader goroutine reads next
// (-race saw it before Handled existed). The calls are pipelined so that
// the next one is being read.
func TestReplyFromAnotherGoroutine(t *testing.T) {
	b, _ := newTestBus(t)
	c := busClient(t, b)
	obj := c.Object(testService, testPath)
	calls := make([]*dbus.Call, 200)
	for i := range calls {
		calls[i] = obj.Go(testIface+".Handoff", 0, nil)
	}
	for i, call := range calls {
		<-call.Done
		var s string
		if err := call.Store(&s); err != nil || s != "handed off" {
			t.Fatalf("call %d: %q, %v", i, s, err)
		}
	}
}
