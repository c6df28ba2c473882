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
