package sdbus_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus"
)

const installable = `[Unit]
Description=sdbus unit-file test

[Service]
Type=oneshot
RemainAfterExit=yes
ExecStart=/bin/true

[Install]
WantedBy=multi-user.target
RequiredBy=basic.target
Alias=app-alias.service
`

// writeUnit writes a unit file into a new directory outside the fake's
// unit directories and returns its path.
func writeUnit(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func sortedChanges(ch []sdbus.UnitFileChange) []sdbus.UnitFileChange {
	out := append([]sdbus.UnitFileChange(nil), ch...)
	sort.Slice(out, func(i, j int) bool {
		if out[i].Filename != out[j].Filename {
			return out[i].Filename < out[j].Filename
		}
		return out[i].Type > out[j].Type // unlink before symlink
	})
	return out
}

// TestUnitFileLifecycle walks a unit file through link, enable, disable,
// mask and unmask on fakebus, checking each change list and state.
func TestUnitFileLifecycle(t *testing.T) {
	leakCheck(t)
	ctx := testCtx(t)
	s := fakebus.New(t)
	c := s.Conn(t)
	file := writeUnit(t, "app.service", installable)
	etc := s.UnitDir()
	run := s.RuntimeUnitDir()
	in := func(dir, rel string) string { return filepath.Join(dir, rel) }
	sym := func(name, dest string) sdbus.UnitFileChange {
		return sdbus.UnitFileChange{Type: sdbus.UnitFileSymlink, Filename: name, Destination: dest}
	}
	unl := func(name string) sdbus.UnitFileChange {
		return sdbus.UnitFileChange{Type: sdbus.UnitFileUnlink, Filename: name}
	}
	enabled := []sdbus.UnitFileChange{
		sym(in(etc, "app-alias.service"), file),
		sym(in(etc, "basic.target.requires/app.service"), file),
		sym(in(etc, "multi-user.target.wants/app.service"), file),
	}

	type step struct {
		name    string
		call    func() (bool, []sdbus.UnitFileChange, error)
		info    bool
		changes []sdbus.UnitFileChange
		err     error
		state   sdbus.UnitFileState // after the step; "" for no unit file
	}
	noInfo := func(f func() ([]sdbus.UnitFileChange, error)) func() (bool, []sdbus.UnitFileChange, error) {
		return func() (bool, []sdbus.UnitFileChange, error) { ch, err := f(); return false, ch, err }
	}
	names := []string{"app.service"}
	steps := []step{
		{name: "enable before link", err: sdbus.ErrNoSuchUnit,
			call: func() (bool, []sdbus.UnitFileChange, error) { return c.EnableUnitFiles(ctx, names, 0) }},
		{name: "link", state: sdbus.UnitFileLinked,
			call:    noInfo(func() ([]sdbus.UnitFileChange, error) { return c.LinkUnitFiles(ctx, []string{file}, 0) }),
			changes: []sdbus.UnitFileChange{sym(in(etc, "app.service"), file)}},
		{name: "link again", state: sdbus.UnitFileLinked, changes: []sdbus.UnitFileChange{},
			call: noInfo(func() ([]sdbus.UnitFileChange, error) { return c.LinkUnitFiles(ctx, []string{file}, 0) })},
		{name: "enable", state: sdbus.UnitFileEnabled, info: true, changes: enabled,
			call: func() (bool, []sdbus.UnitFileChange, error) { return c.EnableUnitFiles(ctx, names, 0) }},
		{name: "enable again", state: sdbus.UnitFileEnabled, info: true, changes: []sdbus.UnitFileChange{},
			call: func() (bool, []sdbus.UnitFileChange, error) { return c.EnableUnitFiles(ctx, names, 0) }},
		{name: "reenable", state: sdbus.UnitFileEnabled, info: true,
			call: func() (bool, []sdbus.UnitFileChange, error) { return c.ReenableUnitFiles(ctx, []string{file}, 0) },
			changes: []sdbus.UnitFileChange{
				unl(in(etc, "app-alias.service")), sym(in(etc, "app-alias.service"), file),
				unl(in(etc, "app.service")), sym(in(etc, "app.service"), file),
				unl(in(etc, "basic.target.requires/app.service")), sym(in(etc, "basic.target.requires/app.service"), file),
				unl(in(etc, "multi-user.target.wants/app.service")), sym(in(etc, "multi-user.target.wants/app.service"), file),
			}},
		{name: "disable", state: "",
			call: noInfo(func() ([]sdbus.UnitFileChange, error) { return c.DisableUnitFiles(ctx, names, 0) }),
			changes: []sdbus.UnitFileChange{
				unl(in(etc, "app-alias.service")), unl(in(etc, "app.service")), unl(in(etc, "basic.target.requires/app.service")),
				unl(in(etc, "multi-user.target.wants/app.service")),
			}},
		{name: "enable by path, runtime", state: sdbus.UnitFileEnabledRuntime, info: true,
			call: func() (bool, []sdbus.UnitFileChange, error) {
				return c.EnableUnitFiles(ctx, []string{file}, sdbus.UnitFileRuntime)
			},
			changes: []sdbus.UnitFileChange{
				sym(in(run, "app-alias.service"), file), sym(in(run, "app.service"), file),
				sym(in(run, "basic.target.requires/app.service"), file),
				sym(in(run, "multi-user.target.wants/app.service"), file),
			}},
		{name: "disable runtime", state: "",
			call: noInfo(func() ([]sdbus.UnitFileChange, error) {
				return c.DisableUnitFiles(ctx, names, sdbus.UnitFileRuntime)
			}),
			changes: []sdbus.UnitFileChange{
				unl(in(run, "app-alias.service")), unl(in(run, "app.service")),
				unl(in(run, "basic.target.requires/app.service")), unl(in(run, "multi-user.target.wants/app.service")),
			}},
		{name: "disable without a file", err: sdbus.ErrNoSuchUnit,
			call: noInfo(func() ([]sdbus.UnitFileChange, error) { return c.DisableUnitFiles(ctx, names, 0) })},
		{name: "link for the mask", state: sdbus.UnitFileLinked,
			call:    noInfo(func() ([]sdbus.UnitFileChange, error) { return c.LinkUnitFiles(ctx, []string{file}, 0) }),
			changes: []sdbus.UnitFileChange{sym(in(etc, "app.service"), file)}},
		{name: "mask over the link", state: sdbus.UnitFileLinked, err: sdbus.ErrUnitExists,
			call: noInfo(func() ([]sdbus.UnitFileChange, error) { return c.MaskUnitFiles(ctx, names, 0) })},
		{name: "mask with force", state: sdbus.UnitFileMasked,
			call: noInfo(func() ([]sdbus.UnitFileChange, error) { return c.MaskUnitFiles(ctx, names, sdbus.UnitFileForce) }),
			changes: []sdbus.UnitFileChange{
				unl(in(etc, "app.service")), sym(in(etc, "app.service"), "/dev/null"),
			}},
		{name: "enable masked", state: sdbus.UnitFileMasked, err: sdbus.ErrUnitMasked,
			call: func() (bool, []sdbus.UnitFileChange, error) { return c.EnableUnitFiles(ctx, names, 0) }},
		{name: "unmask", state: "",
			call:    noInfo(func() ([]sdbus.UnitFileChange, error) { return c.UnmaskUnitFiles(ctx, names, 0) }),
			changes: []sdbus.UnitFileChange{unl(in(etc, "app.service"))}},
		{name: "unmask again", state: "", changes: []sdbus.UnitFileChange{},
			call: noInfo(func() ([]sdbus.UnitFileChange, error) { return c.UnmaskUnitFiles(ctx, names, 0) })},
		{name: "mask runtime without a file", state: sdbus.UnitFileMaskedRuntime,
			call: noInfo(func() ([]sdbus.UnitFileChange, error) {
				return c.MaskUnitFiles(ctx, names, sdbus.UnitFileRuntime)
			}),
			changes: []sdbus.UnitFileChange{sym(in(run, "app.service"), "/dev/null")}},
		{name: "unmask runtime", state: "",
			call: noInfo(func() ([]sdbus.UnitFileChange, error) {
				return c.UnmaskUnitFiles(ctx, names, sdbus.UnitFileRuntime)
			}),
			changes: []sdbus.UnitFileChange{unl(in(run, "app.service"))}},
		{name: "preset", state: sdbus.UnitFileEnabled, info: true,
			call:    func() (bool, []sdbus.UnitFileChange, error) { return c.PresetUnitFiles(ctx, []string{file}, 0) },
			changes: append([]sdbus.UnitFileChange{sym(in(etc, "app.service"), file)}, enabled...)},
	}
	for _, st := range steps {
		ok := t.Run(st.name, func(t *testing.T) {
			info, changes, err := st.call()
			if !errors.Is(err, st.err) || (err == nil) != (st.err == nil) {
				t.Fatalf("err = %v, want %v", err, st.err)
			}
			if err == nil {
				if info != st.info {
					t.Errorf("carries install info = %v, want %v", info, st.info)
				}
				if diff := cmp.Diff(sortedChanges(st.changes), sortedChanges(changes)); diff != "" {
					t.Errorf("changes (-want +got):\n%s", diff)
				}
			}
			state, err := c.GetUnitFileState(ctx, "app.service")
			switch {
			case st.state == "" && !errors.Is(err, sdbus.ErrNoSuchUnit):
				t.Errorf("GetUnitFileState = %q, %v; want ErrNoSuchUnit", state, err)
			case st.state != "" && (err != nil || state != st.state):
				t.Errorf("GetUnitFileState = %q, %v; want %q", state, err, st.state)
			}
		})
		if !ok {
			break
		}
	}

	t.Run("list", func(t *testing.T) {
		all, err := c.ListUnitFiles(ctx)
		if err != nil {
			t.Fatal(err)
		}
		want := []sdbus.UnitFileStatus{
			{Path: in(etc, "app-alias.service"), State: sdbus.UnitFileAlias},
			{Path: in(etc, "app.service"), State: sdbus.UnitFileEnabled},
		}
		// The vendor unit files every system has (the standard targets,
		// static) are not the test's.
		all = slices.DeleteFunc(all, func(f sdbus.UnitFileStatus) bool { return strings.HasPrefix(f.Path, "/usr/lib/systemd/system/") })
		if diff := cmp.Diff(want, all); diff != "" {
			t.Errorf("ListUnitFiles (-want +got):\n%s", diff)
		}
		some, err := c.ListUnitFilesByPatterns(ctx, []sdbus.UnitFileState{sdbus.UnitFileEnabled}, []string{"app*"})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want[1:], some); diff != "" {
			t.Errorf("ListUnitFilesByPatterns (-want +got):\n%s", diff)
		}
	})
}

// TestUnitFileLoading: units load from the unit directories, a masked one
// cannot start, daemon-reload picks up an edited file and unloads a unit
// whose file is gone, and an inactive unit loaded from a file is
// collected.
func TestUnitFileLoading(t *testing.T) {
	leakCheck(t)
	ctx := testCtx(t)
	s := fakebus.New(t)
	c := s.Conn(t)
	file := writeUnit(t, "app.service", installable)
	if _, _, err := c.EnableUnitFiles(ctx, []string{file}, 0); err != nil {
		t.Fatal(err)
	}
	startWait := func(name string) {
		t.Helper()
		j, err := c.StartUnit(ctx, name, sdbus.ModeReplace)
		if err != nil {
			t.Fatal(err)
		}
		if res, err := j.Wait(ctx); err != nil || res != sdbus.JobDone {
			t.Fatalf("start %s: %v, %v", name, res, err)
		}
	}
	startWait("app-alias.service")
	st, err := c.UnitStatus(ctx, "app.service")
	if err != nil || st.ActiveState != sdbus.StateActive || st.Description != "sdbus unit-file test" {
		t.Fatalf("UnitStatus = %+v, %v; want the active unit from the file", st, err)
	}

	if err := os.WriteFile(file, []byte("[Unit]\nDescription=edited\n[Service]\nType=oneshot\nRemainAfterExit=yes\nExecStart=/bin/true\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if st, _ := c.UnitStatus(ctx, "app.service"); st.Description != "sdbus unit-file test" {
		t.Errorf("Description before daemon-reload = %q, want the old one", st.Description)
	}
	if err := c.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	if st, _ := c.UnitStatus(ctx, "app.service"); st.Description != "edited" {
		t.Errorf("Description after daemon-reload = %q, want edited", st.Description)
	}

	j, err := c.StopUnit(ctx, "app.service", sdbus.ModeReplace)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := j.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.GetUnit(ctx, "app.service"); !errors.Is(err, sdbus.ErrNoSuchUnit) {
		t.Errorf("GetUnit after stop: %v; want ErrNoSuchUnit (collected)", err)
	}

	if _, err := c.DisableUnitFiles(ctx, []string{"app.service"}, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := c.MaskUnitFiles(ctx, []string{"app.service"}, sdbus.UnitFileRuntime); err != nil {
		t.Fatal(err)
	}
	if _, err := c.StartUnit(ctx, "app.service", sdbus.ModeReplace); !errors.Is(err, sdbus.ErrUnitMasked) {
		t.Errorf("StartUnit of a masked unit: %v; want ErrUnitMasked", err)
	}
	if _, err := c.UnmaskUnitFiles(ctx, []string{"app.service"}, sdbus.UnitFileRuntime); err != nil {
		t.Fatal(err)
	}
	if err := c.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.StartUnit(ctx, "app.service", sdbus.ModeReplace); !errors.Is(err, sdbus.ErrNoSuchUnit) {
		t.Errorf("StartUnit after the file went away: %v; want ErrNoSuchUnit", err)
	}
}

// TestUnitFileArgumentsRejected: arguments systemd would refuse are
// refused before anything is sent.
func TestUnitFileArgumentsRejected(t *testing.T) {
	ctx := testCtx(t)
	c := fakebus.New(t).Conn(t)
	cases := []struct {
		name string
		call func() error
	}{
		{"no files", func() error { _, _, err := c.EnableUnitFiles(ctx, nil, 0); return err }},
		{"relative path", func() error { _, _, err := c.EnableUnitFiles(ctx, []string{"dir/app.service"}, 0); return err }},
		{"unclean path", func() error { _, _, err := c.EnableUnitFiles(ctx, []string{"/a/../app.service"}, 0); return err }},
		{"bad name in path", func() error { _, _, err := c.EnableUnitFiles(ctx, []string{"/a/app"}, 0); return err }},
		{"unknown flag", func() error { _, _, err := c.EnableUnitFiles(ctx, []string{"a.service"}, 1<<5); return err }},
		{"link by name", func() error { _, err := c.LinkUnitFiles(ctx, []string{"app.service"}, 0); return err }},
		{"disable by path", func() error { _, err := c.DisableUnitFiles(ctx, []string{"/a/app.service"}, 0); return err }},
		{"disable with force", func() error {
			_, err := c.DisableUnitFiles(ctx, []string{"app.service"}, sdbus.UnitFileForce)
			return err
		}},
		{"unmask with force", func() error {
			_, err := c.UnmaskUnitFiles(ctx, []string{"app.service"}, sdbus.UnitFileForce)
			return err
		}},
		{"mask bad name", func() error { _, err := c.MaskUnitFiles(ctx, []string{"app"}, 0); return err }},
		{"state of a path", func() error { _, err := c.GetUnitFileState(ctx, "/a/app.service"); return err }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call()
			var e *sdbus.Error
			if !errors.Is(err, sdbus.ErrInvalidArgs) || !errors.As(err, &e) || e.Name != "" {
				t.Errorf("err = %#v; want a local error matching ErrInvalidArgs", err)
			}
		})
	}
}

// TestUnitFileCallsNotReplayed: the unit-file reads are retried after a
// lost reply; the changes are not, because their change lists would be
// lost (see unitfiles.go).
func TestUnitFileCallsNotReplayed(t *testing.T) {
	cases := []struct {
		method string
		replay bool
	}{
		{"GetUnitFileState", true}, {"ListUnitFiles", true}, {"ListUnitFilesByPatterns", true},
		{"EnableUnitFiles", false}, {"DisableUnitFiles", false}, {"ReenableUnitFiles", false},
		{"LinkUnitFiles", false}, {"MaskUnitFiles", false}, {"UnmaskUnitFiles", false},
		{"PresetUnitFiles", false},
	}
	for _, tc := range cases {
		t.Run(tc.method, func(t *testing.T) {
			if got := sdbus.IdempotentMethod(tc.method); got != tc.replay {
				t.Errorf("replayed = %v, want %v", got, tc.replay)
			}
		})
	}
}
