package fakebus_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/sdbus-go/sdbus"

	"github.com/godbus/dbus/v5"
	"github.com/sdbus-go/sdbus/fakebus"
)

// closedSoon fails t unless c's connection ends within 5s.
func closedSoon(t *testing.T, c *dbus.Conn) {
	t.Helper()
	select {
	case <-c.Context().Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the connection is still open 5s after the reply")
	}
}

// alive makes a call that no test arms a fault for.
func alive(r *raw) error {
	var id string
	return r.BusObject().Call("org.freedesktop.DBus.GetId", 0).Store(&id)
}

func TestDropAfterReply(t *testing.T) {
	for _, tc := range []struct {
		member string
		call   func(r *raw) error
	}{
		{"Hello", nil},
		{"AddMatch", func(r *raw) error { return r.AddMatchSignal(dbus.WithMatchMember("JobRemoved")) }},
		{"GetNameOwner", func(r *raw) error {
			var owner string
			return r.BusObject().Call("org.freedesktop.DBus.GetNameOwner", 0, systemd1).Store(&owner)
		}},
		{"Subscribe", func(r *raw) error { return r.manager("Subscribe", nil) }},
		{"GetUnit", func(r *raw) error {
			var p dbus.ObjectPath
			return r.manager("GetUnit", []any{"-.slice"}, &p)
		}},
		{"Unsubscribe", func(r *raw) error { // an error reply counts
			if err := r.manager("Unsubscribe", nil); errName(err) != "org.freedesktop.systemd1.NotSubscribed" {
				t.Errorf("Unsubscribe = %v, want NotSubscribed", err)
			}
			return nil
		}},
	} {
		t.Run(tc.member, func(t *testing.T) {
			s := fakebus.New(t)
			first := rawBus(t, s)
			s.DropAfterReply(tc.member, 2)
			for i := 0; i < 3; i++ {
				var r *raw
				if tc.member == "Hello" {
					r = rawBus(t, s) // Hello's reply arrives, then the connection ends
				} else {
					r = rawBus(t, s)
					if err := tc.call(r); err != nil {
						t.Fatalf("call %d: the reply did not arrive: %v", i, err)
					}
				}
				if i < 2 {
					closedSoon(t, r.Conn)
				} else if err := alive(r); err != nil {
					t.Fatalf("a third %s ended its connection too (%v); want only two", tc.member, err)
				}
			}
			if err := alive(first); err != nil {
				t.Errorf("a connection made before the fault was armed: %v", err)
			}
		})
	}
}

func TestFaultDropAfterJobRemoved(t *testing.T) {
	var mu sync.Mutex
	var out []string // what the fake sent to the client, in order
	var client string
	s := fakebus.New(t, fakebus.WithUnitFile(oneshotFile("drop.service")), fakebus.WithTrace(func(e fakebus.Event) {
		mu.Lock()
		defer mu.Unlock()
		// Only the manager's messages: the bus driver's reply to AddMatch
		// may be traced after client is set.
		sender, _ := e.Msg.Headers[dbus.FieldSender].Value().(string)
		if !e.In && e.Client == client && client != "" && sender != "org.freedesktop.DBus" {
			member, _ := e.Msg.Headers[dbus.FieldMember].Value().(string)
			out = append(out, e.Msg.Type.String()+" "+member)
		}
	}))
	if err := s.Script("drop.service", fakebus.Script{Faults: fakebus.FaultDropAfterJobRemoved}); err != nil {
		t.Fatal(err)
	}
	r := rawBus(t, s)
	r.match(t, dbus.WithMatchMember("JobRemoved"))
	mu.Lock()
	client = r.Names()[0]
	mu.Unlock()
	job := r.start(t, "drop.service")
	r.until(t, jobRemoved(job))
	closedSoon(t, r.Conn)
	mu.Lock()
	defer mu.Unlock()
	if diff := cmp.Diff([]string{"reply ", "signal JobRemoved"}, out); diff != "" {
		t.Errorf("messages to the caller (-want +got):\n%s", diff)
	}
}

func TestReexecuteReleasesNameFirst(t *testing.T) {
	for _, tc := range []struct {
		name    string
		version string
		reexec  func(s *fakebus.Server, r *raw, finish, forge uint32)
		// want lists the client's signals: "name old→new" for
		// NameOwnerChanged of org.freedesktop.systemd1, "removed ID
		// SENDER" for JobRemoved.
		want []string
	}{
		{"a forger and a job end in the gap", "", func(s *fakebus.Server, _ *raw, finish, forge uint32) {
			s.Reexecute(fakebus.Reexec{Finish: map[uint32]sdbus.JobResult{finish: sdbus.JobFailed}, Forge: []uint32{forge}})
		}, []string{"name old→", "removed forge forger", "removed finish new", "name →new"}},
		{"a job ends in the gap", "", func(s *fakebus.Server, _ *raw, finish, _ uint32) {
			s.Reexecute(fakebus.Reexec{Finish: map[uint32]sdbus.JobResult{finish: sdbus.JobFailed}})
		}, []string{"name old→", "removed finish new", "name →new"}},
		{"Manager.Reexecute on 262", "262.1-1", func(_ *fakebus.Server, r *raw, _, _ uint32) {
			_ = r.manager("Reexecute", nil)
		}, []string{"name old→", "name →new"}},
		{"Manager.Reexecute on 252", "", func(_ *fakebus.Server, r *raw, _, _ uint32) {
			_ = r.manager("Reexecute", nil)
		}, []string{"name old→", "name →new"}},
		{"Manager.Reexecute on 247", "247.3-7+deb11u5", func(_ *fakebus.Server, r *raw, _, _ uint32) {
			_ = r.manager("Reexecute", nil)
		}, []string{"name old→", "name →new"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := []fakebus.Option{fakebus.WithUnitFile(oneshotFile("finish.service")), fakebus.WithUnitFile(oneshotFile("forge.service"))}
			if tc.version != "" {
				opts = append(opts, fakebus.WithVersion(tc.version))
			}
			s := fakebus.New(t, opts...)
			for _, u := range []string{"finish.service", "forge.service"} {
				if err := s.Script(u, fakebus.Script{Delay: time.Hour}); err != nil {
					t.Fatal(err)
				}
			}
			r := rawBus(t, s)
			// No sender in the JobRemoved rule: the forger is seen too.
			if err := r.AddMatchSignal(dbus.WithMatchMember("JobRemoved")); err != nil {
				t.Fatal(err)
			}
			if err := r.AddMatchSignal(dbus.WithMatchMember("NameOwnerChanged"), dbus.WithMatchArg(0, systemd1)); err != nil {
				t.Fatal(err)
			}
			var old string
			if err := r.BusObject().Call("org.freedesktop.DBus.GetNameOwner", 0, systemd1).Store(&old); err != nil {
				t.Fatal(err)
			}
			finish, forge := r.start(t, "finish.service"), r.start(t, "forge.service")
			tc.reexec(s, r, jobID(finish), jobID(forge))
			sigs := r.until(t, func(sig *dbus.Signal) bool {
				return sig.Name == "org.freedesktop.DBus.NameOwnerChanged" && sig.Body[2] != ""
			})
			renewed := sigs[len(sigs)-1].Body[2].(string)
			name := func(n string) string {
				switch n {
				case old:
					return "old"
				case renewed:
					return "new"
				case "":
					return ""
				}
				return "forger"
			}
			jobName := map[uint32]string{jobID(finish): "finish", jobID(forge): "forge"}
			var got []string
			for _, sig := range sigs {
				switch sig.Name {
				case "org.freedesktop.DBus.NameOwnerChanged":
					got = append(got, "name "+name(sig.Body[1].(string))+"→"+name(sig.Body[2].(string)))
				case managerIface + ".JobRemoved":
					got = append(got, "removed "+jobName[sig.Body[0].(uint32)]+" "+name(sig.Sender))
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("signals (-want +got):\n%s", diff)
			}
			var owner string
			if err := r.BusObject().Call("org.freedesktop.DBus.GetNameOwner", 0, systemd1).Store(&owner); err != nil || owner != renewed {
				t.Errorf("GetNameOwner = %q, %v; want %s", owner, err, renewed)
			}
		})
	}
}

func TestWaitIdle(t *testing.T) {
	s := fakebus.New(t, fakebus.WithUnitFile(fakebus.UnitFile{Name: "slow.service", Properties: []sdbus.Property{
		sdbus.PropExecStart([]string{"/bin/true"}, false), sdbus.PropType(sdbus.ServiceOneshot), sdbus.PropRemainAfterExit(true)}}))
	if err := s.Script("slow.service", fakebus.Script{Delay: time.Second}); err != nil {
		t.Fatal(err)
	}
	c := s.Conn(t)
	ctx := context.Background()
	if err := s.WaitIdle(ctx); err != nil {
		t.Fatalf("WaitIdle with no job: %v", err)
	}
	if _, err := c.StartUnit(ctx, "slow.service", sdbus.ModeReplace); err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	if err := s.WaitIdle(short); err != context.DeadlineExceeded {
		t.Errorf("WaitIdle with the job queued 1s, 20ms deadline = %v, want %v", err, context.DeadlineExceeded)
	}
	if err := s.WaitIdle(ctx); err != nil {
		t.Fatal(err)
	}
	if n := s.Jobs(); n != 0 {
		t.Errorf("Jobs after WaitIdle = %d, want 0", n)
	}
	if u, _ := s.Unit("slow.service"); u.ActiveState != "active" {
		t.Errorf("slow.service after WaitIdle: %s, want active", u.ActiveState)
	}
}

func TestWaitIdleClosed(t *testing.T) {
	s := fakebus.New(t, fakebus.WithUnitFile(fakebus.UnitFile{Name: "stuck.service", Properties: []sdbus.Property{
		sdbus.PropExecStart([]string{"/bin/sleep", "infinity"}, false), sdbus.PropType(sdbus.ServiceOneshot)}}))
	c := s.Conn(t)
	if _, err := c.StartUnit(context.Background(), "stuck.service", sdbus.ModeReplace); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.WaitIdle(context.Background()) }()
	time.Sleep(10 * time.Millisecond)
	s.Close()
	if err := <-done; err == nil || err.Error() != "fakebus: server closed" {
		t.Errorf("WaitIdle across Close = %v, want fakebus: server closed", err)
	}
}

func TestRemoveUnitFile(t *testing.T) {
	s := fakebus.New(t)
	c := s.Conn(t)
	ctx := context.Background()
	if err := s.AddUnitFile(fakebus.UnitFile{Name: "gone.service", Aliases: []string{"alias.service"}}); err != nil {
		t.Fatal(err)
	}
	st := func(name string) string {
		v, err := c.UnitProperty(ctx, name, "org.freedesktop.systemd1.Unit", "LoadState")
		if err != nil {
			return err.Error()
		}
		return v.Value().(string)
	}
	for _, tt := range []struct {
		name       string
		remove     string
		wantRemove bool
		unit, want string
	}{
		{"before", "", false, "gone.service", "loaded"},
		{"removed", "gone.service", true, "gone.service", "not-found"},
		{"alias gone", "", false, "alias.service", "not-found"},
		{"again", "gone.service", false, "gone.service", "not-found"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if tt.remove != "" {
				if got := s.RemoveUnitFile(tt.remove); got != tt.wantRemove {
					t.Errorf("RemoveUnitFile(%s) = %v, want %v", tt.remove, got, tt.wantRemove)
				}
			}
			if got := st(tt.unit); got != tt.want {
				t.Errorf("LoadState(%s) = %s, want %s", tt.unit, got, tt.want)
			}
		})
	}
}
