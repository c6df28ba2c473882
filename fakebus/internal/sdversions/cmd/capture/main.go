// Command capture records the D-Bus surface of the systemd it runs under
// (the system bus): see package capture. scripts/capture-introspection
// runs it inside the sandbox, once per release; it writes
// OUT/release.json and OUT/KIND.{xml,json}.
//
//	capture -out DIR [-package VERSION] [-probe DATA] [-unitdir DIR]
//
// -probe DATA names a directory holding data/MAJOR/ captures: the property
// names they list are tried with Get where this release does not list
// them (sdversions.Object.GetOnly).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/sdbus-go/sdbus/fakebus/internal/sdversions"
	"github.com/sdbus-go/sdbus/fakebus/internal/sdversions/internal/capture"
)

func main() {
	out := flag.String("out", "", "directory to write the capture to")
	pkg := flag.String("package", "", "the systemd package version (recorded as is)")
	probe := flag.String("probe", "", "directory holding data/MAJOR/ captures whose property names to probe")
	unitDir := flag.String("unitdir", "/run/systemd/system", "directory to write the unit files to")
	flag.Parse()
	if *out == "" {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(*out, *pkg, *probe, *unitDir); err != nil {
		fmt.Fprintln(os.Stderr, "capture:", err)
		os.Exit(1)
	}
}

func run(out, pkg, probe, unitDir string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	conn, err := dbus.ConnectSystemBus()
	if err != nil {
		return err
	}
	defer conn.Close()
	opt := capture.Options{UnitDir: unitDir, Logf: func(f string, a ...any) { fmt.Fprintf(os.Stderr, "capture: "+f+"\n", a...) }}
	if probe != "" {
		fsys := os.DirFS(probe)
		rels, err := sdversions.CapturedReleases(fsys)
		if err != nil {
			return err
		}
		var caps []*sdversions.Capture
		for _, r := range rels {
			c, err := sdversions.LoadCapture(fsys, r)
			if err != nil {
				return err
			}
			caps = append(caps, c)
		}
		opt.Probe = capture.ProbeNames(caps)
	}
	c, err := capture.Run(ctx, conn, opt)
	if err != nil {
		return err
	}
	c.Package = pkg
	for kind, o := range c.Objects {
		for _, e := range o.Errors {
			fmt.Fprintf(os.Stderr, "capture: %s: %s\n", kind, e)
		}
	}
	return capture.Write(c, out)
}
