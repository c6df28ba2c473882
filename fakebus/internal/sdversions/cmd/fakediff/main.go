// Command fakediff compares fakebus with the captured systemd releases
// (sdversions' data/): for each release it starts fakebus playing it,
// makes the same units and job the capture made on real systemd (package
// capture, the same steps), and prints per object kind how many of the
// release's methods, properties and signals the fake's introspection has
// with the same signature, how many of the names Properties.GetAll("")
// answered on systemd the fake's GetAll("") lacks (and its GetAll of the
// property's interface), and how many of the
// captured properties the fake's Get answers with the captured signature
// (and, of those whose value does not vary, or varies only in order, with
// the same value).
//
//	go run ./fakebus/internal/sdversions/cmd/fakediff [-v] [RELEASE...]
//
// -v lists the members and GetAll("") names the fake lacks and the values
// that differ. Run from the
// repository's root (it reads fakebus/internal/sdversions/data).
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/godbus/dbus/v5/introspect"
	"github.com/sdbus-go/sdbus/fakebus"
	"github.com/sdbus-go/sdbus/fakebus/internal/sdversions"
	"github.com/sdbus-go/sdbus/fakebus/internal/sdversions/internal/capture"
)

func main() {
	verbose := flag.Bool("v", false, "list what the fake lacks")
	dir := flag.String("data", "fakebus/internal/sdversions", "directory holding data/")
	flag.Parse()
	fsys := os.DirFS(*dir)
	rels := flag.Args()
	if len(rels) == 0 {
		var err error
		if rels, err = sdversions.CapturedReleases(fsys); err != nil {
			fail(err)
		}
	}
	for _, r := range rels {
		c, err := sdversions.LoadCapture(fsys, r)
		if err != nil {
			fail(err)
		}
		if err := compare(c, *verbose); err != nil {
			fail(err)
		}
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "fakediff:", err)
	os.Exit(1)
}

// count is matched/total.
type count struct{ ok, total int }

func (c count) String() string { return fmt.Sprintf("%d/%d", c.ok, c.total) }

func (c *count) add(d count) { c.ok += d.ok; c.total += d.total }

func compare(want *sdversions.Capture, verbose bool) error {
	srv, err := fakebus.Start(fakebus.WithVersion(want.Release))
	if err != nil {
		return err
	}
	defer srv.Close()
	// The capture's job must still exist when it looks: the fake keeps it
	// queued.
	if err := srv.Script("capture-job.service", fakebus.Script{Delay: time.Hour}); err != nil {
		return err
	}
	addr, err := srv.Address()
	if err != nil {
		return err
	}
	conn, err := dbus.Connect(addr)
	if err != nil {
		return err
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	got, err := capture.Run(ctx, conn, capture.Options{UnitDir: srv.RuntimeUnitDir(), JobWait: -1})
	if err != nil {
		return err
	}
	// capture.Run canceled its job once it had described it; the reads
	// below look at the live object, so they get the same job again.
	if j := got.Objects["job"]; j != nil && j.Path != "" {
		var jp dbus.ObjectPath
		call := conn.Object("org.freedesktop.systemd1", "/org/freedesktop/systemd1").CallWithContext(ctx,
			"org.freedesktop.systemd1.Manager.StartUnit", 0, j.Unit, "replace")
		if err := call.Store(&jp); err != nil {
			return fmt.Errorf("starting %s again: %w", j.Unit, err)
		}
		j.Path = jp
	}
	// Its scopes ended with their processes too: the same scopes again,
	// each of a process of its own.
	for _, u := range capture.Units {
		if !u.ScopePID {
			continue
		}
		cmd := exec.Command("/bin/sleep", "infinity")
		if err := cmd.Start(); err != nil {
			return err
		}
		defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
		props := []struct {
			Name  string
			Value dbus.Variant
		}{{"PIDs", dbus.MakeVariant([]uint32{uint32(cmd.Process.Pid)})}}
		aux := []struct {
			Name  string
			Props []struct {
				Name  string
				Value dbus.Variant
			}
		}{}
		call := conn.Object("org.freedesktop.systemd1", "/org/freedesktop/systemd1").CallWithContext(ctx,
			"org.freedesktop.systemd1.Manager.StartTransientUnit", 0, u.Name, "replace", props, aux)
		if call.Err != nil {
			return fmt.Errorf("making %s again: %w", u.Name, call.Err)
		}
	}
	fmt.Printf("fakebus playing %s (%s) against the capture of systemd %s\n", got.Release, want.Release, want.Release)
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "object\tmethods\tproperties\tsignals\tchild nodes\tGetAll(\"\") lacks\tGetAll(iface) lacks\tGet: signature\tGet: value\t")
	var sum [8]count
	var lacks []string
	for _, kind := range sortedKinds(want) {
		w, g := want.Objects[kind], got.Objects[kind]
		var m, p, s count
		for _, in := range w.Node.Interfaces {
			gin := fakeIface(g, in.Name)
			dm, ds, dp, miss := members(in, gin)
			m.add(dm)
			s.add(ds)
			p.add(dp)
			for _, x := range miss {
				lacks = append(lacks, kind+": "+x)
			}
		}
		ga := count{total: len(w.GetAllEmpty)}
		have := map[string]bool{}
		for _, n := range g.GetAllEmpty {
			have[n] = true
		}
		var gaMiss []string
		for _, n := range w.GetAllEmpty {
			if !have[n] {
				ga.ok++
				gaMiss = append(gaMiss, n)
			}
		}
		if len(gaMiss) > 0 {
			lacks = append(lacks, kind+": GetAll(\"\") lacks "+strings.Join(gaMiss, " "))
		}
		ch, chMiss := children(kind, w, g)
		if len(chMiss) > 0 {
			lacks = append(lacks, kind+": child nodes "+strings.Join(chMiss, " "))
		}
		gi := getAllIfaces(conn, g.Path, w)
		gs, gv, vMiss := gets(conn, g.Path, w, srv.RuntimeUnitDir())
		for _, x := range vMiss {
			lacks = append(lacks, kind+": value "+x)
		}
		for i, c := range []count{m, p, s, ch, ga, gi, gs, gv} {
			sum[i].add(c)
		}
		fmt.Fprintf(tw, "%s\t%v\t%v\t%v\t%v\t%v\t%v\t%v\t%v\t\n", kind, m, p, s, ch, ga, gi, gs, gv)
	}
	fmt.Fprintf(tw, "all\t%v\t%v\t%v\t%v\t%v\t%v\t%v\t%v\t\n", sum[0], sum[1], sum[2], sum[3], sum[4], sum[5], sum[6], sum[7])
	tw.Flush()

	// The same per D-Bus interface, each from the first object kind that
	// has it.
	fmt.Fprintln(tw, "interface\tmethods\tproperties\tsignals\t")
	seen := map[string]bool{}
	for _, kind := range interfaceOrder(want) {
		w, g := want.Objects[kind], got.Objects[kind]
		for _, in := range w.Node.Interfaces {
			if seen[in.Name] {
				continue
			}
			seen[in.Name] = true
			m, s, p, _ := members(in, fakeIface(g, in.Name))
			fmt.Fprintf(tw, "%s (%s)\t%v\t%v\t%v\t\n", in.Name, kind, m, p, s)
		}
	}
	tw.Flush()
	var errs []string
	for _, kind := range sortedKinds(got) {
		for _, e := range got.Objects[kind].Errors {
			errs = append(errs, kind+": "+e)
		}
	}
	if len(errs) > 0 {
		fmt.Printf("errors on the fake (%d): %s\n", len(errs), firstLines(errs, verbose))
	}
	if verbose {
		for _, l := range lacks {
			fmt.Println("  lacks", l)
		}
	}
	fmt.Println()
	return nil
}

func firstLines(l []string, all bool) string {
	if all || len(l) <= 3 {
		return "\n  " + strings.Join(l, "\n  ")
	}
	return "\n  " + strings.Join(l[:3], "\n  ") + "\n  ..."
}

// interfaceOrder is the order object kinds are looked at for the
// per-interface figures: the manager, the job, then the units.
func interfaceOrder(c *sdversions.Capture) []string {
	out := []string{"manager", "job", "service"}
	for _, k := range sortedKinds(c) {
		if k != "manager" && k != "job" && k != "service" && !strings.HasPrefix(k, "node-") {
			out = append(out, k)
		}
	}
	return out
}

// children counts the child nodes of w the fake's g lists: all of them
// for the manager and the inner nodes above it; for the unit node, the
// units the capture made; for the job node, one job (any).
func children(kind string, w, g *sdversions.Object) (count, []string) {
	have := map[string]bool{}
	if g != nil && g.Node != nil {
		for _, c := range g.Node.Children {
			have[c.Name] = true
		}
	}
	var n count
	var miss []string
	for _, c := range w.Node.Children {
		switch {
		case kind == "node-job":
			n.total = 1
			if len(have) > 0 {
				n.ok = 1
			} else {
				miss = []string{"(a job)"}
			}
			continue
		case kind == "node-unit" && !strings.HasPrefix(c.Name, "capture") && !strings.HasPrefix(c.Name, "run_2dcapture"):
			continue
		}
		n.total++
		if have[c.Name] {
			n.ok++
		} else {
			miss = append(miss, c.Name)
		}
	}
	return n, miss
}

func sortedKinds(c *sdversions.Capture) []string {
	var out []string
	for k := range c.Objects {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func fakeIface(o *sdversions.Object, name string) *introspect.Interface {
	if o == nil {
		return nil
	}
	return o.Interface(name)
}

// members counts the methods, signals and properties of interface w that
// g has with the same signature (methods and signals: argument types and
// directions; properties: type and access), and names the others.
func members(w introspect.Interface, g *introspect.Interface) (m, s, p count, miss []string) {
	gm, gs, gp := map[string]string{}, map[string]string{}, map[string]string{}
	if g != nil {
		for _, x := range g.Methods {
			gm[x.Name] = args(x.Args)
		}
		for _, x := range g.Signals {
			gs[x.Name] = args(x.Args)
		}
		for _, x := range g.Properties {
			gp[x.Name] = x.Type + " " + x.Access
		}
	}
	short := w.Name[strings.LastIndex(w.Name, ".")+1:]
	for _, x := range w.Methods {
		m.total++
		if v, ok := gm[x.Name]; ok && v == args(x.Args) {
			m.ok++
		} else {
			miss = append(miss, fmt.Sprintf("method %s.%s(%s)", short, x.Name, args(x.Args)))
		}
	}
	for _, x := range w.Signals {
		s.total++
		if v, ok := gs[x.Name]; ok && v == args(x.Args) {
			s.ok++
		} else {
			miss = append(miss, fmt.Sprintf("signal %s.%s(%s)", short, x.Name, args(x.Args)))
		}
	}
	for _, x := range w.Properties {
		p.total++
		if v, ok := gp[x.Name]; ok && v == x.Type+" "+x.Access {
			p.ok++
		} else {
			miss = append(miss, fmt.Sprintf("property %s.%s %s", short, x.Name, x.Type))
		}
	}
	return m, s, p, miss
}

func args(as []introspect.Arg) string {
	var b strings.Builder
	for i, a := range as {
		if i > 0 {
			b.WriteString(",")
		}
		dir := a.Direction
		if dir == "" {
			dir = "out" // signals
		}
		b.WriteString(dir + " " + a.Type)
	}
	return b.String()
}

// getAllIfaces counts the properties of w that the fake's GetAll of
// their interface leaves out.
func getAllIfaces(conn *dbus.Conn, path dbus.ObjectPath, w *sdversions.Object) count {
	if path == "" {
		path = w.Path
	}
	obj := conn.Object("org.freedesktop.systemd1", path)
	var n count
	got := map[string]map[string]dbus.Variant{}
	for _, p := range w.Properties {
		n.total++
		all, ok := got[p.Interface]
		if !ok {
			c := obj.Call("org.freedesktop.DBus.Properties.GetAll", 0, p.Interface)
			if c.Err == nil && len(c.Body) == 1 {
				all, _ = c.Body[0].(map[string]dbus.Variant)
			}
			got[p.Interface] = all
		}
		if _, ok := all[p.Name]; !ok {
			n.ok++
		}
	}
	return n
}

// gets reads every captured property of w (GetAll's and the Get-only
// ones) from the fake's object with Get: how many come with the captured
// signature, and how many of those that do not vary have the captured
// value, and those that differ ("name: fake's, want captured"). A path
// in the fake's runtime unit directory, unitDir, compares as the same
// path in systemd's, /run/systemd/system.
func gets(conn *dbus.Conn, path dbus.ObjectPath, w *sdversions.Object, unitDir string) (sig, val count, differ []string) {
	if path == "" {
		path = w.Path
	}
	obj := conn.Object("org.freedesktop.systemd1", path)
	for _, p := range append(append([]sdversions.Prop{}, w.Properties...), w.GetOnly...) {
		sig.total++
		if p.Varies == "" || p.Varies == "order" {
			val.total++
		}
		c := obj.Call("org.freedesktop.DBus.Properties.Get", 0, p.Interface, p.Name)
		if c.Err != nil || len(c.Body) != 1 {
			continue
		}
		v, ok := c.Body[0].(dbus.Variant)
		if !ok || v.Signature().String() != p.Type {
			continue
		}
		sig.ok++
		switch p.Varies {
		case "":
		case "order":
			// Recorded sorted (systemd answers in hash order).
			var l []string
			if err := v.Store(&l); err == nil {
				sort.Strings(l)
				v = dbus.MakeVariant(l)
			}
		default:
			continue
		}
		if s, ok := v.Value().(string); ok && strings.HasPrefix(s, unitDir+"/") {
			v = dbus.MakeVariant("/run/systemd/system" + strings.TrimPrefix(s, unitDir))
		}
		j, err := sdversions.ValueJSON(v)
		if err == nil && bytes.Equal(j, p.Value) {
			val.ok++
			continue
		}
		differ = append(differ, fmt.Sprintf("%s: %s, want %s", p.Name, j, p.Value))
	}
	return sig, val, differ
}
