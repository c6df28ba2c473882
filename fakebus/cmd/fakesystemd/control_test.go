package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/godbus/dbus/v5"
	"github.com/google/go-cmp/cmp"
)

// TestControlAndCallLog: fakesystemd serves the control interface unless
// --no-control, and --call-log writes the calls systemd received as JSON
// lines.
func TestControlAndCallLog(t *testing.T) {
	for _, tt := range []struct {
		name      string
		flags     []string
		wantNames bool
	}{
		{"default", nil, true},
		{"no-control", []string{"--no-control"}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := socketDir(t)
			log := filepath.Join(t.TempDir(), "calls.jsonl")
			p, addrs := startProgram(t, 1, append([]string{"--socket", filepath.Join(dir, "bus"), "--print-address", "--call-log", log}, tt.flags...)...)
			c, err := dbus.Connect(addrs[0])
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			var id string
			if err := c.Object("org.freedesktop.systemd1", "/org/freedesktop/systemd1").Call("org.freedesktop.DBus.Peer.GetMachineId", 0).Store(&id); err != nil {
				t.Fatal(err)
			}
			var p0 dbus.ObjectPath
			_ = c.Object("org.freedesktop.systemd1", "/org/freedesktop/systemd1").Call("org.freedesktop.systemd1.Manager.GetUnit", 0, "x.service").Store(&p0)
			var calls string
			err = c.Object("io.github.sdbus_go.FakeSystemd", "/io/github/sdbus_go/FakeSystemd").
				Call("io.github.sdbus_go.FakeSystemd1.GetCalls", 0, "GetUnit", "").Store(&calls)
			if tt.wantNames {
				var got []struct {
					Member string   `json:"member"`
					Args   []string `json:"args"`
				}
				if err := json.Unmarshal([]byte(calls), &got); err != nil {
					t.Fatalf("GetCalls: %q, %v", calls, err)
				}
				if len(got) != 1 || got[0].Member != "GetUnit" || got[0].Args[0] != "x.service" {
					t.Errorf("GetCalls(GetUnit) = %s", calls)
				}
			} else if err == nil {
				t.Error("GetCalls answered with --no-control")
			}
			c.Close()
			if code, _ := p.stop(syscall.SIGTERM); code != 0 {
				t.Fatalf("exit %d: %s", code, p.stderr)
			}
			data, err := os.ReadFile(log)
			if err != nil {
				t.Fatal(err)
			}
			var members []string
			for _, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
				var k struct {
					Member string `json:"member"`
					Reply  *struct {
						Error string `json:"error"`
					} `json:"reply"`
				}
				if err := json.Unmarshal([]byte(line), &k); err != nil {
					t.Fatalf("--call-log line %q: %v", line, err)
				}
				members = append(members, k.Member+" "+k.Reply.Error)
			}
			if diff := cmp.Diff([]string{"GetMachineId ", "GetUnit org.freedesktop.systemd1.NoSuchUnit"}, members); diff != "" {
				t.Errorf("--call-log (-want +got):\n%s", diff)
			}
		})
	}
}

// TestControlReset: the control interface's Reset brings fakesystemd back
// to its state at start, --script applied again: its units and scripts
// are there, those added since are not, and the client stays connected.
func TestControlReset(t *testing.T) {
	dir := socketDir(t)
	script := writeFile(t, "script.json", `{"units": [{"name": "a.service", "properties": {"ExecStart": "a(sasb) [('/usr/bin/a', ['/usr/bin/a'], false)]"}}],
		"scripts": [{"pattern": "a.service", "results": ["failed"], "exit_status": 3}]}`)
	p, addrs := startProgram(t, 1, "--socket", filepath.Join(dir, "bus"), "--print-address", "--script", script)
	c, err := dbus.Connect(addrs[0])
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctl := func(method string, args ...any) *dbus.Call {
		return c.Object("io.github.sdbus_go.FakeSystemd", "/io/github/sdbus_go/FakeSystemd").Call("io.github.sdbus_go.FakeSystemd1."+method, 0, args...)
	}
	start := func(unit string) string {
		t.Helper()
		var job dbus.ObjectPath
		if err := c.Object("org.freedesktop.systemd1", "/org/freedesktop/systemd1").Call("org.freedesktop.systemd1.Manager.StartUnit", 0, unit, "replace").Store(&job); err != nil {
			return dbusErrName(err)
		}
		if err := ctl("WaitIdle", 5.0).Err; err != nil {
			t.Fatal(err)
		}
		var loaded, transient bool
		var load, active, sub, result string
		var id uint32
		var pids []uint32
		if err := ctl("Unit", unit).Store(&loaded, &load, &active, &sub, &result, &transient, &id, &pids); err != nil {
			t.Fatal(err)
		}
		return active + " " + result
	}
	if got := start("a.service"); got != "failed exit-code" {
		t.Errorf("a.service's first start: %s, want failed by the script", got)
	}
	if err := ctl("AddUnitFile", `{"name": "b.service", "properties": {"ExecStart": "a(sasb) [('/usr/bin/b', ['/usr/bin/b'], false)]"}}`).Err; err != nil {
		t.Fatal(err)
	}
	if got := start("b.service"); got != "active success" {
		t.Errorf("b.service: %s, want active", got)
	}
	if err := ctl("Reset").Err; err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ unit, want string }{
		{"a.service", "failed exit-code"}, // the script's first result again
		{"a.service", "active success"},
		{"b.service", "org.freedesktop.systemd1.NoSuchUnit"},
	} {
		if got := start(tt.unit); got != tt.want {
			t.Errorf("after Reset, start %s: %s, want %s", tt.unit, got, tt.want)
		}
	}
	c.Close()
	if code, _ := p.stop(syscall.SIGTERM); code != 0 {
		t.Fatalf("exit %d: %s", code, p.stderr)
	}
}

func dbusErrName(err error) string {
	if de, ok := err.(dbus.Error); ok {
		return de.Name
	}
	return err.Error()
}
