package busd

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/godbus/dbus/v5"
	"github.com/google/go-cmp/cmp"
)

// The refusals below are dbus-daemon 1.14.10's, measured on a private
// dbus-daemon with the system bus's default limits (a configuration
// with no <limit>), driven by godbus as root and by dbus-send as uid
// 65534.

// callErr returns the D-Bus error of err ("" and nil for none).
func callErr(err error) dbus.Error {
	var e dbus.Error
	if de, ok := err.(dbus.Error); ok {
		e = de
	} else if err != nil {
		e = dbus.Error{Name: "not a D-Bus error", Body: []any{err.Error()}}
	}
	return e
}

// TestPerConnectionLimits: the 513th match rule, the 512th name (the
// unique name is the first) and a monitor with 513 rules are refused
// with LimitsExceeded and dbus-daemon's text; the connection stays, and
// a rule removed makes room for another.
func TestPerConnectionLimits(t *testing.T) {
	rulesText := func(c *dbus.Conn) string {
		return "Connection \"" + c.Names()[0] + "\" is not allowed to add more match rules " +
			"(increase limits in configuration file if required; max_match_rules_per_connection=512)"
	}
	namesText := func(c *dbus.Conn) string {
		return "Connection \"" + c.Names()[0] + "\" is not allowed to own more services " +
			"(increase limits in configuration file if required; max_names_per_connection=512)"
	}
	requestName := func(c *dbus.Conn, name string) error {
		return c.BusObject().Call(driverIface+".RequestName", 0, name, uint32(0)).Err
	}
	for _, tt := range []struct {
		name string
		// fill takes c to its limit; then over does one more, which is
		// refused with want(c).
		fill func(t *testing.T, c *dbus.Conn)
		over func(c *dbus.Conn) error
		want func(c *dbus.Conn) dbus.Error
	}{
		{
			name: "match rules",
			fill: func(t *testing.T, c *dbus.Conn) {
				for i := 0; i < DefaultMaxMatchRules; i++ {
					addMatch(t, c, fmt.Sprintf("type='signal',member='M%d'", i))
				}
			},
			over: func(c *dbus.Conn) error {
				return c.BusObject().Call(driverIface+".AddMatch", 0, "type='signal',member='Over'").Err
			},
			want: func(c *dbus.Conn) dbus.Error {
				return dbus.Error{Name: errLimitsExceeded, Body: []any{rulesText(c)}}
			},
		},
		{
			name: "invalid match rule over the limit",
			fill: func(t *testing.T, c *dbus.Conn) {
				for i := 0; i < DefaultMaxMatchRules; i++ {
					addMatch(t, c, fmt.Sprintf("type='signal',member='M%d'", i))
				}
			},
			over: func(c *dbus.Conn) error {
				return c.BusObject().Call(driverIface+".AddMatch", 0, "type='nonsense'").Err
			},
			want: func(c *dbus.Conn) dbus.Error {
				return dbus.Error{Name: errLimitsExceeded, Body: []any{rulesText(c)}}
			},
		},
		{
			name: "names",
			fill: func(t *testing.T, c *dbus.Conn) {
				for i := 1; i < DefaultMaxNames; i++ {
					if err := requestName(c, fmt.Sprintf("org.test.N%d", i)); err != nil {
						t.Fatalf("RequestName %d: %v", i, err)
					}
				}
			},
			over: func(c *dbus.Conn) error { return requestName(c, "org.test.Over") },
			want: func(c *dbus.Conn) dbus.Error {
				return dbus.Error{Name: errLimitsExceeded, Body: []any{namesText(c)}}
			},
		},
		{
			name: "a name already owned, at the limit",
			fill: func(t *testing.T, c *dbus.Conn) {
				for i := 1; i < DefaultMaxNames; i++ {
					if err := requestName(c, fmt.Sprintf("org.test.N%d", i)); err != nil {
						t.Fatalf("RequestName %d: %v", i, err)
					}
				}
			},
			over: func(c *dbus.Conn) error { return requestName(c, "org.test.N1") },
			want: func(c *dbus.Conn) dbus.Error {
				return dbus.Error{Name: errLimitsExceeded, Body: []any{namesText(c)}}
			},
		},
		{
			name: "an invalid name at the limit",
			fill: func(t *testing.T, c *dbus.Conn) {
				for i := 1; i < DefaultMaxNames; i++ {
					if err := requestName(c, fmt.Sprintf("org.test.N%d", i)); err != nil {
						t.Fatalf("RequestName %d: %v", i, err)
					}
				}
			},
			over: func(c *dbus.Conn) error { return requestName(c, "bad..name") },
			want: func(*dbus.Conn) dbus.Error {
				return dbus.Error{Name: errInvalidArgs, Body: []any{`Requested bus name "bad..name" is not valid`}}
			},
		},
		{
			// dbus-daemon does not limit a monitor's rules; busd does.
			name: "monitor rules",
			fill: func(*testing.T, *dbus.Conn) {},
			over: func(c *dbus.Conn) error {
				rules := make([]string, DefaultMaxMatchRules+1)
				for i := range rules {
					rules[i] = fmt.Sprintf("type='signal',member='M%d'", i)
				}
				return c.BusObject().Call("org.freedesktop.DBus.Monitoring.BecomeMonitor", 0, rules, uint32(0)).Err
			},
			want: func(c *dbus.Conn) dbus.Error {
				return dbus.Error{Name: errLimitsExceeded, Body: []any{rulesText(c)}}
			},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b, _ := newTestBus(t)
			c := busClient(t, b)
			tt.fill(t, c)
			if diff := cmp.Diff(tt.want(c), callErr(tt.over(c))); diff != "" {
				t.Errorf("refusal (-want +got):\n%s", diff)
			}
			// Still connected.
			var got string
			if err := c.Object(testService, testPath).Call(testIface+".Echo", 0, "still here").Store(&got); err != nil {
				t.Fatalf("after the refusal: %v", err)
			}
		})
	}
}

// TestMatchRuleRoomAfterRemove: at the limit, RemoveMatch makes room for
// one more rule, as on dbus-daemon.
func TestMatchRuleRoomAfterRemove(t *testing.T) {
	b, _ := newTestBus(t)
	c := busClient(t, b)
	for i := 0; i < DefaultMaxMatchRules; i++ {
		addMatch(t, c, fmt.Sprintf("type='signal',member='M%d'", i))
	}
	if err := c.BusObject().Call(driverIface+".RemoveMatch", 0, "type='signal',member='M0'").Err; err != nil {
		t.Fatal(err)
	}
	addMatch(t, c, "type='signal',member='M0'")
}

// TestBecomeMonitorPrivileged: as dbus-daemon, only root and the bus's
// own user may become a monitor; anybody else gets AccessDenied with
// dbus-daemon's text and stays an ordinary client. A Pipe client is the
// uid it claims in AUTH EXTERNAL, this process's own by default. (godbus
// cannot claim a uid: its AUTH EXTERNAL sends no data.)
func TestBecomeMonitorPrivileged(t *testing.T) {
	const nobody = 65534
	if os.Geteuid() == nobody {
		t.Skip("the test runs as the uid it uses for an unprivileged client")
	}
	for _, tt := range []struct {
		name  string
		claim string // uid claimed in AUTH EXTERNAL ("" for none)
		want  func(unique string) error
	}{
		{name: "the bus's own uid"},
		{name: "uid 0", claim: "0"},
		{name: "the bus's own uid, claimed", claim: strconv.Itoa(os.Geteuid())},
		{
			name:  "another uid",
			claim: strconv.Itoa(nobody),
			want: func(unique string) error {
				pid := os.Getpid()
				return dbus.Error{Name: errAccessDenied, Body: []any{fmt.Sprintf(
					"rejected attempt to call BecomeMonitor by connection %s (uid=%d pid=%d comm=%q) with uid %d",
					unique, nobody, pid, commandOf(uint32(pid)), nobody)}}
			},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b, _ := newTestBus(t)
			rc := newStateClient(t, b)
			rc.claim = tt.claim
			buf, serial := rc.call(t, nil, driverName, driverIface, "Hello", false)
			hello, err := rc.exchange(buf, serial, true)
			if err != nil {
				t.Fatalf("Hello: %v", err)
			}
			unique, _ := hello.Body[0].(string)
			var want error
			if tt.want != nil {
				want = tt.want(unique)
			}
			buf, serial = rc.call(t, nil, driverName, "org.freedesktop.DBus.Monitoring", "BecomeMonitor", false, []string{}, uint32(0))
			err = rc.send(buf, serial, false)
			if diff := cmp.Diff(callErr(want), callErr(err)); diff != "" {
				t.Errorf("BecomeMonitor (-want +got):\n%s", diff)
			}
			if want == nil {
				return
			}
			buf, serial = rc.call(t, nil, driverName, peerIface, "Ping", false)
			if err := rc.send(buf, serial, false); err != nil {
				t.Errorf("after the refusal: %v", err)
			}
		})
	}
}

// TestDepartedCallerCallsDropped: the calls a client leaves with,
// unanswered, leave the pending table with it (before the fix, 8 clients
// leaving 128 calls each pinned 1,024 calls and their bodies); the
// service sees them Dropped and its late answer goes nowhere.
func TestDepartedCallerCallsDropped(t *testing.T) {
	b, svc := newTestBus(t)
	const calls = 16
	c := busClient(t, b)
	var pending []*dbus.Call
	for i := 0; i < calls; i++ {
		pending = append(pending, c.Object(testService, testPath).Go(testIface+".Hang", 0, nil))
	}
	// An answered call after them: they have all reached the service.
	if err := c.Object(testService, testPath).Call(testIface+".Echo", 0, "x").Err; err != nil {
		t.Fatal(err)
	}
	if got := b.PendingCalls(); got != calls {
		t.Fatalf("PendingCalls = %d with the client connected, want %d", got, calls)
	}
	c.Close()
	p := <-svc.gone
	waitDone(t, p.Done(), "the client's end")
	if got := b.PendingCalls(); got != 0 {
		t.Errorf("PendingCalls = %d after the client left, want 0", got)
	}
	svc.mu.Lock()
	hung := svc.hung
	svc.mu.Unlock()
	var dropped int
	for _, sc := range hung {
		if sc.Dropped() {
			dropped++
		}
		sc.Reply() // too late: a no-op
	}
	if diff := cmp.Diff(calls, dropped); diff != "" {
		t.Errorf("calls Dropped (-want +got):\n%s", diff)
	}
	if got := p.pendingReplies.Load(); got != 0 {
		t.Errorf("the departed client still counts %d pending replies", got)
	}
	_ = pending
}

// TestPendingCallsKeepNoBody: the calls a connection has waiting, up to
// Limits.MaxPendingReplies, hold nothing of their bodies in the bus (the
// service here keeps nothing either), whether the client stays or leaves
// (before the fix, 8 clients × 128 calls of 64 KiB pinned 64 MiB).
func TestPendingCallsKeepNoBody(t *testing.T) {
	for _, leave := range []bool{false, true} {
		t.Run(fmt.Sprintf("leave=%v", leave), func(t *testing.T) {
			b, svc := newTestBus(t)
			var tmpl stateClient
			ignore, _ := tmpl.call(t, nil, testService, testIface, "Ignore", false, strings.Repeat("b", 64<<10))
			before := heapInUse()
			for i := 0; i < 8; i++ {
				rc := newStateClient(t, b)
				buf, _ := rc.call(t, nil, driverName, driverIface, "Hello", false)
				for j := 0; j < DefaultMaxPendingReplies; j++ {
					buf = append(buf, ignore...)
				}
				buf, serial := rc.call(t, buf, driverName, peerIface, "Ping", false)
				if err := rc.send(buf, serial, true); err != nil {
					t.Fatal(err)
				}
				rc.release()
				if leave {
					rc.c.Close()
					waitDone(t, (<-svc.gone).Done(), "a client's end")
				}
			}
			want := 8 * DefaultMaxPendingReplies
			if leave {
				want = 0
			}
			if got := b.PendingCalls(); got != want {
				t.Errorf("PendingCalls = %d, want %d", got, want)
			}
			grew := heapInUse() - before
			if limit := int64(4 << 20); grew > limit {
				t.Errorf("the heap grew by %.1f MiB with %d calls pending, want under %d MiB", float64(grew)/(1<<20), want, limit>>20)
			}
		})
	}
}
