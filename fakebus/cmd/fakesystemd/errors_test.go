package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestErrors checks that bad command lines and bad script files fail
// before anything is served, with one line on stderr and the documented
// exit status.
func TestErrors(t *testing.T) {
	dir := socketDir(t)
	sock := filepath.Join(dir, "bus")
	const faults = "bus-timeout, drop-after-job-removed, drop-connection, duplicate-job-removed, forged-job-removed, job-removed-before-reply, malformed-job-removed, polkit-no-reply, wrong-path-job-removed"
	tests := []struct {
		name   string
		args   []string
		script string // written to a file named script.json, whose path is appended as --script
		code   int
		stderr string // "SCRIPT" is replaced by the script's path
	}{
		{name: "unknown flag", args: []string{"--socket", sock, "--bogus"}, code: 2,
			stderr: "fakesystemd: flag provided but not defined: -bogus (see fakesystemd -h)"},
		{name: "flag without value", args: []string{"--socket"}, code: 2,
			stderr: "fakesystemd: flag needs an argument: -socket (see fakesystemd -h)"},
		{name: "no socket", args: nil, code: 2,
			stderr: "fakesystemd: need --socket PATH, --private-socket PATH or both (see fakesystemd -h)"},
		{name: "no socket with other flags", args: []string{"--trace", "--version", "254"}, code: 2,
			stderr: "fakesystemd: need --socket PATH, --private-socket PATH or both (see fakesystemd -h)"},
		{name: "extra argument", args: []string{"--socket", sock, "serve"}, code: 2,
			stderr: `fakesystemd: unexpected argument "serve" (see fakesystemd -h)`},
		{name: "same socket twice", args: []string{"--socket", sock, "--private-socket", sock + "/"}, code: 2,
			stderr: "fakesystemd: --socket and --private-socket must be different paths (see fakesystemd -h)"},
		{name: "bad version", args: []string{"--socket", sock, "--version", "latest"}, code: 2,
			stderr: `fakesystemd: invalid --version "latest": want a systemd version such as "252.38-1~deb12u1" (see fakesystemd -h)`},
		{name: "quoted version", args: []string{"--socket", sock, "--version", "'252'"}, code: 2,
			stderr: `fakesystemd: invalid --version "'252'": want a systemd version such as "252.38-1~deb12u1" (see fakesystemd -h)`},
		{name: "limit without value", args: []string{"--socket", sock, "--limit", "max_message_size"}, code: 2,
			stderr: `fakesystemd: invalid value "max_message_size" for flag -limit: want NAME=VALUE (see fakesystemd -h)`},
		{name: "unknown limit", args: []string{"--socket", sock, "--limit", "max_names=3"}, code: 2,
			stderr: `fakesystemd: invalid value "max_names=3" for flag -limit: unknown limit "max_names" (known: decode_ratio, max_completed_connections, max_incoming_bytes, max_incoming_unix_fds, max_incomplete_connections, max_match_rules_per_connection, max_message_size, max_message_unix_fds, max_names_per_connection, max_outgoing_bytes, max_outgoing_unix_fds, max_replies_per_connection, max_total_incoming_bytes, max_total_outgoing_bytes, auth_timeout) (see fakesystemd -h)`},
		{name: "bad limit size", args: []string{"--socket", sock, "--limit", "max_message_size=1MB"}, code: 2,
			stderr: `fakesystemd: invalid value "max_message_size=1MB" for flag -limit: want a positive number (sizes may end in KiB, MiB or GiB), or none (see fakesystemd -h)`},
		{name: "bad auth timeout", args: []string{"--socket", sock, "--limit", "auth_timeout=5"}, code: 2,
			stderr: `fakesystemd: invalid value "auth_timeout=5" for flag -limit: want a duration such as 5s, or none (see fakesystemd -h)`},
		{name: "user not a uid", args: []string{"--socket", sock, "--user=alice"}, code: 2,
			stderr: `fakesystemd: invalid --user "alice": want --user alone (the caller's user manager) or --user=UID (see fakesystemd -h)`},
		{name: "user empty", args: []string{"--socket", sock, "--user="}, code: 2,
			stderr: `fakesystemd: invalid --user "": want --user alone (the caller's user manager) or --user=UID (see fakesystemd -h)`},
		{name: "user negative", args: []string{"--socket", sock, "--user=-1"}, code: 2,
			stderr: `fakesystemd: invalid --user "-1": want --user alone (the caller's user manager) or --user=UID (see fakesystemd -h)`},
		{name: "user (uid_t)-1", args: []string{"--socket", sock, "--user=4294967295"}, code: 2,
			stderr: `fakesystemd: invalid --user "4294967295": want --user alone (the caller's user manager) or --user=UID (see fakesystemd -h)`},
		{name: "user uid after a space", args: []string{"--socket", sock, "--user", "1000"}, code: 2,
			stderr: `fakesystemd: unexpected argument "1000": --user takes its uid after "=" (--user=UID) (see fakesystemd -h)`},
		{name: "empty backport", args: []string{"--socket", sock, "--backport", ""}, code: 2,
			stderr: `fakesystemd: invalid --backport "": want one property or method name (see fakesystemd -h)`},
		{name: "missing script", args: []string{"--socket", sock, "--script", filepath.Join(dir, "nope.json")}, code: 1,
			stderr: "fakesystemd: script: open " + filepath.Join(dir, "nope.json") + ": no such file or directory"},
		{name: "script is a directory", args: []string{"--socket", sock, "--script", dir}, code: 1,
			stderr: "fakesystemd: script: read " + dir + ": is a directory"},
		{name: "socket directory missing", args: []string{"--socket", filepath.Join(dir, "no", "bus")}, code: 1,
			stderr: "fakesystemd: --socket: listen unix " + filepath.Join(dir, "no", "bus") + ": bind: no such file or directory"},
		{name: "private socket directory missing", args: []string{"--socket", sock, "--private-socket", filepath.Join(dir, "no", "p")}, code: 1,
			stderr: "fakesystemd: --private-socket: listen unix " + filepath.Join(dir, "no", "p") + ": bind: no such file or directory"},

		{name: "empty script", script: "", code: 1,
			stderr: "fakesystemd: SCRIPT: empty document: want a JSON object"},
		{name: "invalid JSON", script: "{\n  \"scripts\": [,]\n}", code: 1,
			stderr: "fakesystemd: SCRIPT: line 2, column 15: invalid character ',' looking for beginning of value"},
		{name: "truncated JSON", script: `{"scripts": [`, code: 1,
			stderr: "fakesystemd: SCRIPT: unexpected end of JSON input"},
		{name: "not an object", script: `[]`, code: 1,
			stderr: "fakesystemd: SCRIPT: want an object, got an array"},
		{name: "trailing data", script: `{} {}`, code: 1,
			stderr: "fakesystemd: SCRIPT: line 1, column 4: unexpected data after the JSON object"},
		{name: "unknown top-level field", script: `{"script": []}`, code: 1,
			stderr: `fakesystemd: SCRIPT: unknown field "script"`},
		{name: "unknown script field", script: `{"scripts": [{"pattern": "a.service"}, {"pattern": "b.service", "fault": []}]}`, code: 1,
			stderr: `fakesystemd: SCRIPT: scripts[1]: unknown field "fault"`},
		{name: "unknown unit field", script: `{"units": [{"name": "a.service", "mask": true}]}`, code: 1,
			stderr: `fakesystemd: SCRIPT: units[0]: unknown field "mask"`},
		{name: "scripts not an array", script: `{"scripts": {}}`, code: 1,
			stderr: "fakesystemd: SCRIPT: scripts: want an array, got an object"},
		{name: "wrong field type", script: `{"scripts": [{"pattern": "a.service", "delay": 5}]}`, code: 1,
			stderr: "fakesystemd: SCRIPT: scripts[0].delay: want a string, got a number"},
		{name: "bad fault", script: `{"scripts": [{"pattern": "a.service"}, {"pattern": "b.service", "faults": ["dup"]}]}`, code: 1,
			stderr: `fakesystemd: SCRIPT: scripts[1].faults[0]: unknown fault "dup" (known: ` + faults + `)`},
		{name: "bad second fault", script: `{"scripts": [{"pattern": "b.service", "faults": ["drop-connection", "drop_connection"]}]}`, code: 1,
			stderr: `fakesystemd: SCRIPT: scripts[0].faults[1]: unknown fault "drop_connection" (known: ` + faults + `)`},
		{name: "fault not a string", script: `{"scripts": [{"pattern": "b.service", "faults": ["drop-connection", 1]}]}`, code: 1,
			stderr: `fakesystemd: SCRIPT: scripts[0].faults[1]: want a string, got a number`},
		{name: "bad duration", script: `{"scripts": [{"pattern": "a.service", "delay": "200"}]}`, code: 1,
			stderr: `fakesystemd: SCRIPT: scripts[0].delay: invalid duration "200" (want a Go duration such as "200ms" or "1.5s")`},
		{name: "negative duration", script: `{"scripts": [{"pattern": "a.service", "reply_delay": "-1s"}]}`, code: 1,
			stderr: `fakesystemd: SCRIPT: scripts[0].reply_delay: negative duration "-1s"`},
		{name: "bad reload duration", script: `{"reload_duration": "soon"}`, code: 1,
			stderr: `fakesystemd: SCRIPT: reload_duration: invalid duration "soon" (want a Go duration such as "200ms" or "1.5s")`},
		{name: "missing pattern", script: `{"scripts": [{"result": "failed"}]}`, code: 1,
			stderr: `fakesystemd: SCRIPT: scripts[0].pattern: missing: want a unit name pattern such as "run-*.scope"`},
		{name: "bad pattern", script: `{"scripts": [{"pattern": "run-[.scope"}]}`, code: 1,
			stderr: `fakesystemd: SCRIPT: scripts[0].pattern: invalid pattern "run-[.scope": syntax error in pattern`},
		{name: "bad result", script: `{"scripts": [{"pattern": "a.service", "result": "fail"}]}`, code: 1,
			stderr: `fakesystemd: SCRIPT: scripts[0].result: unknown job result "fail" (known: done, canceled, timeout, failed, dependency, skipped, invalid, assert, unsupported, collected, once, frozen)`},
		{name: "unit result without result", script: `{"scripts": [{"pattern": "a.service", "unit_result": "signal"}]}`, code: 1,
			stderr: `fakesystemd: SCRIPT: scripts[0].unit_result: needs "result" or "results" with "failed" or "timeout"`},
		{name: "bad results", script: `{"scripts": [{"pattern": "a.service", "results": ["failed", "ok"]}]}`, code: 1,
			stderr: `fakesystemd: SCRIPT: scripts[0].results[1]: unknown job result "ok" (known: done, canceled, timeout, failed, dependency, skipped, invalid, assert, unsupported, collected, once, frozen, or "" for none)`},
		{name: "bad unit result", script: `{"scripts": [{"pattern": "a.service", "result": "failed", "unit_result": "exit_code"}]}`, code: 1,
			stderr: `fakesystemd: SCRIPT: scripts[0].unit_result: unknown unit result "exit_code" (known: success, protocol, timeout, exit-code, signal, core-dump, watchdog, start-limit-hit, resources, oom-kill, exec-condition)`},
		{name: "masked and active", script: `{"units": [{"name": "a.service", "masked": true, "active": true}]}`, code: 1,
			stderr: `fakesystemd: SCRIPT: units[0].active: a masked unit cannot be active`},
		{name: "missing unit name", script: `{"units": [{"masked": true}]}`, code: 1,
			stderr: `fakesystemd: SCRIPT: units[0].name: missing: want a unit name such as "app.service"`},
		{name: "bad unit name", script: `{"units": [{"name": "app"}]}`, code: 1,
			stderr: `fakesystemd: SCRIPT: units[0].name: invalid unit name "app"`},
		{name: "duplicate unit", script: `{"units": [{"name": "a.service"}, {"name": "b.service"}, {"name": "a.service"}]}`, code: 1,
			stderr: `fakesystemd: SCRIPT: units[2].name: unit "a.service" is already defined by units[0]`},
		{name: "properties not an object", script: `{"units": [{"name": "a.service", "properties": ["Type"]}]}`, code: 1,
			stderr: `fakesystemd: SCRIPT: units[0].properties: want an object of "Name": "TYPE VALUE", got an array`},
		{name: "property not a string", script: `{"units": [{"name": "a.service", "properties": {"MemoryMax": 512}}]}`, code: 1,
			stderr: `fakesystemd: SCRIPT: units[0].properties.MemoryMax: want a string "TYPE VALUE" such as "t 536870912", got a number`},
		{name: "duplicate property", script: `{"units": [{"name": "a.service", "properties": {"Type": "s 'simple'", "Type": "s 'oneshot'"}}]}`, code: 1,
			stderr: `fakesystemd: SCRIPT: units[0].properties.Type: duplicate property`},
		{name: "unknown property", script: `{"units": [{"name": "b.service"}, {"name": "a.service", "properties": {"Bogus": "s 'x'"}}]}`, code: 1,
			stderr: `fakesystemd: SCRIPT: units[1].properties.Bogus: org.freedesktop.DBus.Error.PropertyReadOnly: Cannot set property Bogus, or unknown property.`},
		{name: "property of the wrong type", script: `{"units": [{"name": "a.service", "properties": {"MemoryMax": "s 'x'"}}]}`, code: 1,
			stderr: `fakesystemd: SCRIPT: units[0].properties.MemoryMax: property MemoryMax must have D-Bus type t, not s`},
		{name: "bad property name", script: `{"units": [{"name": "a.service", "properties": {"Memory-Max": "t 1"}}]}`, code: 1,
			stderr: `fakesystemd: SCRIPT: units[0].properties: invalid property name "Memory-Max"`},
		{name: "property without type", script: `{"units": [{"name": "a.service", "properties": {"MemoryMax": "536870912"}}]}`, code: 1,
			stderr: `fakesystemd: SCRIPT: units[0].properties.MemoryMax: "536870912": want "TYPE VALUE" (a D-Bus type, a space, GVariant text), e.g. "t 536870912"`},
		{name: "bad property value", script: `{"units": [{"name": "a.service", "properties": {"MemoryMax": "t lots"}}]}`, code: 1,
			stderr: `fakesystemd: SCRIPT: units[0].properties.MemoryMax: "t lots": column 3: want a uint64, got "lots"`},
		{name: "bad property type", script: `{"units": [{"name": "a.service", "properties": {"ExecStart": "a(sasb [('/bin/true', ['/bin/true'], false)]"}}]}`, code: 1,
			stderr: `fakesystemd: SCRIPT: units[0].properties.ExecStart: "a(sasb [('/bin/true', ['/bin/true'], false)]": invalid D-Bus type "a(sasb"`},
		{name: "bad struct value", script: `{"units": [{"name": "a.service", "properties": {"ExecStart": "a(sasb) [('/bin/true', '/bin/true', false)]"}}]}`, code: 1,
			stderr: `fakesystemd: SCRIPT: units[0].properties.ExecStart: "a(sasb) [('/bin/true', '/bin/true', false)]": column 24: want "[" to start an array, got "'/bin/true', false)]"`},
		{name: "script says done, ExecStart fails", script: `{"scripts": [{"pattern": "x.service"}, {"pattern": "app*", "result": "done"}],
			"units": [{"name": "app.service", "properties": {"Type": "s 'oneshot'", "ExecStart": "a(sasb) [('/bin/false', ['/bin/false'], false)]"}}]}`, code: 1,
			stderr: `fakesystemd: SCRIPT: scripts[1].result: "done" contradicts unit app.service: with ExecStart=/bin/false (Type=oneshot) its start job fails; give the unit a command the fake does not interpret, or drop the rule`},
		{name: "second step says failed, ExecStart succeeds", script: `{"scripts": [{"pattern": "app.service", "results": ["", "failed"]}],
			"units": [{"name": "app.service", "properties": {"ExecStart": "a(sasb) [('/bin/sh', ['/bin/sh', '-c', 'exit 0'], false)]"}}]}`, code: 1,
			stderr: `fakesystemd: SCRIPT: scripts[0].results[1]: "failed" contradicts unit app.service: with ExecStart=/bin/sh -c "exit 0" (Type=simple) its start job succeeds; give the unit a command the fake does not interpret, or drop the rule`},
		{name: "script says done, ExecStartPre fails", script: `{"scripts": [{"pattern": "app.service", "results": ["done"]}],
			"units": [{"name": "app.service", "properties": {"ExecStartPre": "a(sasb) [('/bin/false', ['/bin/false'], false)]", "ExecStart": "a(sasb) [('/usr/bin/app', ['/usr/bin/app'], false)]"}}]}`, code: 1,
			stderr: `fakesystemd: SCRIPT: scripts[0].results[0]: "done" contradicts unit app.service: with ExecStartPre=/bin/false (Type=simple) its start job fails; give the unit a command the fake does not interpret, or drop the rule`},
	}
	for _, tt := range tests {
		tt := tt
		t.Run(tt.name, func(t *testing.T) {
			args := tt.args
			want := tt.stderr
			if strings.Contains(tt.stderr, "SCRIPT") {
				path := writeFile(t, "script.json", tt.script)
				args = []string{"--socket", sock, "--script", path}
				want = strings.ReplaceAll(want, "SCRIPT", path)
			}
			var stdout, stderr strings.Builder
			code := realMain(context.Background(), args, &stdout, &stderr)
			if code != tt.code {
				t.Errorf("exit status %d, want %d", code, tt.code)
			}
			if diff := cmp.Diff(want+"\n", stderr.String()); diff != "" {
				t.Errorf("stderr (-want +got):\n%s", diff)
			}
			if stdout.Len() != 0 {
				t.Errorf("stdout: %q, want nothing", stdout.String())
			}
			if _, err := os.Lstat(sock); err == nil {
				t.Errorf("%s exists after a failure", sock)
			}
		})
	}
}

// TestErrorsFromProgram checks the exit status and output of the built
// program itself for a usage error and a script error.
func TestErrorsFromProgram(t *testing.T) {
	bad := writeFile(t, "bad.json", `{"scripts": [{"pattern": "x.service", "faults": ["dup"]}]}`)
	tests := []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"--bogus"}, 2, "fakesystemd: flag provided but not defined: -bogus (see fakesystemd -h)\n"},
		{[]string{"--socket", filepath.Join(t.TempDir(), "s"), "--script", bad}, 1,
			"fakesystemd: " + bad + `: scripts[0].faults[0]: unknown fault "dup" (known: bus-timeout, drop-after-job-removed, drop-connection, duplicate-job-removed, forged-job-removed, job-removed-before-reply, malformed-job-removed, polkit-no-reply, wrong-path-job-removed)` + "\n"},
	}
	for _, tt := range tests {
		cmd := programCmd(t, tt.args...)
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if code != tt.code || stdout.String() != "" {
			t.Errorf("%q: exit %d, stdout %q; want exit %d and no stdout", tt.args, code, stdout.String(), tt.code)
		}
		if diff := cmp.Diff(tt.stderr, stderr.String()); diff != "" {
			t.Errorf("%q: stderr (-want +got):\n%s", tt.args, diff)
		}
	}
}

func TestHelp(t *testing.T) {
	for _, arg := range []string{"-h", "--help"} {
		var stdout, stderr strings.Builder
		if code := realMain(context.Background(), []string{arg}, &stdout, &stderr); code != 0 {
			t.Errorf("%s: exit %d, want 0", arg, code)
		}
		if !strings.HasPrefix(stdout.String(), "usage: fakesystemd ") || stderr.Len() != 0 {
			t.Errorf("%s: stdout %q, stderr %q; want the usage on stdout", arg, stdout.String(), stderr.String())
		}
	}
}

func TestUnixAddress(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for in, want := range map[string]string{
		"/run/dbus/system_bus_socket": "unix:path=/run/dbus/system_bus_socket",
		"/tmp/a b,c=d;e%f":            "unix:path=/tmp/a%20b%2cc%3dd%3be%25f",
		"rel/sock":                    "unix:path=" + wd + "/rel/sock",
	} {
		if got := unixAddress(in); got != want {
			t.Errorf("unixAddress(%q) = %q, want %q", in, got, want)
		}
	}
}
