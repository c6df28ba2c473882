package fakebus_test

import (
	"io"
	"os"
	"testing"

	"github.com/godbus/dbus/v5"
	"github.com/google/go-cmp/cmp"
	"github.com/sdbus-go/sdbus/fakebus"
)

// TestStdioFileDescriptors: a transient service given file descriptors
// for its standard input, output and error (systemd-run --pipe) starts
// when the fake interprets its command, with StandardInput=,
// StandardOutput= and StandardError= "fd" as on systemd, and the fake
// keeps none of the descriptors (the client reads EOF at once: nothing
// was written, as true and false write nothing); for a program the fake
// would have to pretend to run, NotSupported says so.
func TestStdioFileDescriptors(t *testing.T) {
	type prop struct {
		Name  string
		Value dbus.Variant
	}
	type execCmd struct {
		Path          string
		Argv          []string
		IgnoreFailure bool
	}
	type aux struct {
		Name  string
		Props []prop
	}
	type result struct {
		Err                   string
		Stdin, Stdout, Stderr string
		Output                string
	}
	for _, tc := range []struct {
		name string
		argv []string
		// loaded: the unit is still loaded after the call (true's ends
		// and is collected at once).
		loaded bool
		want   result
	}{
		{"true", []string{"/bin/true"}, false, result{}},
		{"false", []string{"/bin/false"}, true, result{Stdin: "fd", Stdout: "fd", Stderr: "fd"}},
		{"sleep", []string{"/bin/sleep", "600"}, true, result{Stdin: "fd", Stdout: "fd", Stderr: "fd"}},
		{"a program the fake does not run", []string{"/bin/echo", "hi"}, false, result{
			Err: "org.freedesktop.DBus.Error.NotSupported: fakebus runs no programs: standard input, output or error file descriptors (systemd-run --pipe) only go with commands it interprets (true, false, sleep N, sh -c 'exit N'), not /bin/echo hi",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := fakebus.New(t)
			c := unixFDConn(t, s)
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			props := []prop{
				{"ExecStart", dbus.MakeVariant([]execCmd{{tc.argv[0], tc.argv, false}})},
				{"StandardInputFileDescriptor", dbus.MakeVariant(dbus.UnixFD(r.Fd()))},
				{"StandardOutputFileDescriptor", dbus.MakeVariant(dbus.UnixFD(w.Fd()))},
				{"StandardErrorFileDescriptor", dbus.MakeVariant(dbus.UnixFD(w.Fd()))},
			}
			var job dbus.ObjectPath
			callErr := c.Object(systemd1, managerPath).Call(managerIface+".StartTransientUnit", 0, "pipe.service", "fail", props, []aux{}).Store(&job)
			w.Close() // the fake's copies are the only writers left
			var got result
			if callErr != nil {
				got.Err = errName(callErr) + ": " + callErr.Error()
			} else if tc.loaded {
				u := c.Object(systemd1, "/org/freedesktop/systemd1/unit/pipe_2eservice")
				for _, p := range []struct {
					name string
					to   *string
				}{{"StandardInput", &got.Stdin}, {"StandardOutput", &got.Stdout}, {"StandardError", &got.Stderr}} {
					v, err := u.GetProperty("org.freedesktop.systemd1.Service." + p.name)
					if err != nil {
						t.Fatal(err)
					}
					*p.to, _ = v.Value().(string)
				}
			}
			out, err := io.ReadAll(r) // EOF once nobody holds the write end
			if err != nil {
				t.Fatal(err)
			}
			got.Output = string(out)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("StartTransientUnit(%q) with stdio fds (-want +got):\n%s", tc.argv, diff)
			}
		})
	}
}
