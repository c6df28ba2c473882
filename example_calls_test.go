package sdbus_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus"
)

func ExampleConn_StartUnit() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := fakebus.Start(fakebus.WithUnitFile(fakebus.UnitFile{
		Name:       "web.service", // runs until it is stopped
		Properties: []sdbus.Property{sdbus.PropExecStart([]string{"/bin/sleep", "infinity"}, false)},
	})) // a fake systemd; a program calls sdbus.ConnectSystem(ctx) instead
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	c, err := s.Dial(ctx) // a *sdbus.Conn over an in-process socket pair
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()

	for _, step := range []struct {
		name string
		call func(context.Context, string, sdbus.JobMode) (*sdbus.Job, error)
	}{
		{"start", c.StartUnit},
		{"restart", c.RestartUnit},
		{"stop", c.StopUnit},
	} {
		job, err := step.call(ctx, "web.service", sdbus.ModeReplace)
		if err != nil {
			log.Fatal(err)
		}
		res, err := job.Wait(ctx) // a failed job is a *sdbus.JobError
		if err != nil {
			log.Fatal(err)
		}
		st, err := c.UnitStatus(ctx, "web.service")
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(step.name, res, st.ActiveState)
	}
	// Output:
	// start done active
	// restart done active
	// stop done inactive
}

func ExampleConn_ListUnits() {
	ctx := context.Background()
	s, err := fakebus.Start() // a fake systemd; a program calls sdbus.ConnectSystem(ctx) instead
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	c, err := s.Dial(ctx) // a *sdbus.Conn over an in-process socket pair
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()

	for _, name := range []string{"ex-a.slice", "ex-b.slice"} {
		if _, err := c.EnsureTransientUnit(ctx, name, nil, sdbus.EnsureOptions{}); err != nil {
			log.Fatal(err)
		}
	}
	units, err := c.ListUnits(ctx)
	if err != nil {
		log.Fatal(err)
	}
	for _, u := range units {
		if strings.HasPrefix(u.Name, "ex-") {
			fmt.Println(u.Name, u.LoadState, u.ActiveState, u.SubState)
		}
	}
	// Output:
	// ex-a.slice loaded active active
	// ex-b.slice loaded active active
}

func ExampleConn_ManagerProperties() {
	ctx := context.Background()
	s, err := fakebus.Start(fakebus.WithVersion("252.38-1~deb12u1")) // a fake systemd; a program calls sdbus.ConnectSystem(ctx) instead
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	c, err := s.Dial(ctx) // a *sdbus.Conn over an in-process socket pair
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()

	m, err := c.ManagerProperties(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(m.Version, m.SystemState, m.NFailedUnits)

	// Any other property, as a variant. The system manager's own cgroup is
	// "" (a user manager's is where rootless runtimes put their scopes).
	v, err := c.ManagerProperty(ctx, "ControlGroup")
	fmt.Printf("%q %v\n", v.Value(), err)
	// Output:
	// 252.38-1~deb12u1 running 0
	// "" <nil>
}

func ExampleConn_UnitProperties() {
	ctx := context.Background()
	s, err := fakebus.Start(fakebus.WithUnitFile(fakebus.UnitFile{
		Name:       "web.service", // runs until it is stopped
		Properties: []sdbus.Property{sdbus.PropExecStart([]string{"/bin/sleep", "infinity"}, false)},
	})) // a fake systemd; a program calls sdbus.ConnectSystem(ctx) instead
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	c, err := s.Dial(ctx) // a *sdbus.Conn over an in-process socket pair
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()

	job, err := c.StartUnit(ctx, "web.service", sdbus.ModeReplace)
	if err != nil {
		log.Fatal(err)
	}
	if _, err := job.Wait(ctx); err != nil {
		log.Fatal(err)
	}
	u, err := c.UnitProperties(ctx, "web.service")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(u.ID, u.ActiveState, u.SubState, u.UnitFileState, u.CanStop)

	// A unit that is not loaded is an error, not a set of defaults.
	_, err = c.UnitProperties(ctx, "nope.service")
	fmt.Println(errors.Is(err, sdbus.ErrNoSuchUnit))

	// The escape hatch returns what systemd answers, any property of any
	// interface.
	v, err := c.UnitProperty(ctx, "web.service", "Service", "NRestarts")
	fmt.Println(v.Value(), err)
	// Output:
	// web.service active running static true
	// true
	// 0 <nil>
}

func ExampleConn_ServiceProperties() {
	ctx := context.Background()
	s, err := fakebus.Start(fakebus.WithUnitFile(fakebus.UnitFile{
		Name: "check.service",
		Properties: []sdbus.Property{
			sdbus.PropType(sdbus.ServiceOneshot),
			sdbus.PropExecStart([]string{"/bin/sh", "-c", "exit 3"}, false),
		},
	})) // a fake systemd; a program calls sdbus.ConnectSystem(ctx) instead
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	c, err := s.Dial(ctx) // a *sdbus.Conn over an in-process socket pair
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()

	job, err := c.StartUnit(ctx, "check.service", sdbus.ModeReplace)
	if err != nil {
		log.Fatal(err)
	}
	_, err = job.Wait(ctx)
	fmt.Println(errors.Is(err, sdbus.ErrJobFailed))

	// An exit or a signal? ExecMainCode tells.
	sp, err := c.ServiceProperties(ctx, "check.service")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(sp.Result, sp.ExecMainCode, sp.ExecMainStatus)
	// Output:
	// true
	// exit-code exited 3
}

func ExampleConn_KillUnit() {
	ctx := context.Background()
	s, err := fakebus.Start(fakebus.WithUnitFile(fakebus.UnitFile{
		Name:       "web.service", // runs until it is stopped
		Properties: []sdbus.Property{sdbus.PropExecStart([]string{"/bin/sleep", "infinity"}, false)},
	})) // a fake systemd; a program calls sdbus.ConnectSystem(ctx) instead
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	c, err := s.Dial(ctx) // a *sdbus.Conn over an in-process socket pair
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()

	job, err := c.StartUnit(ctx, "web.service", sdbus.ModeReplace)
	if err != nil {
		log.Fatal(err)
	}
	if _, err := job.Wait(ctx); err != nil {
		log.Fatal(err)
	}
	if err := c.KillUnit(ctx, "web.service", sdbus.KillMain, syscall.SIGKILL); err != nil {
		log.Fatal(err)
	}
	sp, err := c.ServiceProperties(ctx, "web.service")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(sp.Result, sp.ExecMainCode, syscall.Signal(sp.ExecMainStatus))

	// No main process left to signal.
	err = c.KillUnit(ctx, "web.service", sdbus.KillMain, syscall.SIGTERM)
	fmt.Println(errors.Is(err, sdbus.ErrNoSuchProcess))
	// Output:
	// signal killed killed
	// true
}

func ExampleConn_ResetFailedUnit() {
	ctx := context.Background()
	s, err := fakebus.Start() // a fake systemd; a program calls sdbus.ConnectSystem(ctx) instead
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	c, err := s.Dial(ctx) // a *sdbus.Conn over an in-process socket pair
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()

	job, err := c.StartTransientUnit(ctx, "once.service", sdbus.ModeReplace, []sdbus.Property{
		sdbus.PropType(sdbus.ServiceOneshot),
		sdbus.PropExecStart([]string{"/bin/false"}, false),
	})
	if err != nil {
		log.Fatal(err)
	}
	_, _ = job.Wait(ctx)
	st, err := c.UnitStatus(ctx, "once.service")
	fmt.Println(st.ActiveState, err) // a failed transient unit keeps its name

	if err := c.ResetFailedUnit(ctx, "once.service"); err != nil {
		log.Fatal(err)
	}
	st, err = c.UnitStatus(ctx, "once.service")
	fmt.Println(st.LoadState, err) // now it is gone
	// Output:
	// failed <nil>
	// not-found <nil>
}

func ExampleConn_SetUnitProperties() {
	ctx := context.Background()
	s, err := fakebus.Start() // a fake systemd; a program calls sdbus.ConnectSystem(ctx) instead
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	c, err := s.Dial(ctx) // a *sdbus.Conn over an in-process socket pair
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()

	if _, err := c.EnsureTransientUnit(ctx, "tenant.slice", []sdbus.Property{sdbus.PropMemoryMax(512 << 20)}, sdbus.EnsureOptions{}); err != nil {
		log.Fatal(err)
	}
	// runtime true: until the next reboot. List properties such as
	// DeviceAllow append; PropDeviceAllow() with no rules clears them.
	props := []sdbus.Property{sdbus.PropMemoryMax(1 << 30), sdbus.PropCPUWeight(200)}
	if err := c.SetUnitProperties(ctx, "tenant.slice", true, props...); err != nil {
		log.Fatal(err)
	}
	sl, err := c.SliceProperties(ctx, "tenant.slice")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(props[0], sl.MemoryMax, sl.CPUWeight)

	// A bad value fails before anything is sent.
	err = c.SetUnitProperties(ctx, "tenant.slice", true, sdbus.PropTasksMax(0))
	fmt.Println(errors.Is(err, sdbus.ErrInvalidArgs))
	// Output:
	// MemoryMax=1073741824 1073741824 200
	// true
}

func ExampleConn_WatchUnit() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := fakebus.Start() // a fake systemd; a program calls sdbus.ConnectSystem(ctx) instead
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	c, err := s.Dial(ctx) // a *sdbus.Conn over an in-process socket pair
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()

	// Watch first, then start: no change is missed.
	states, err := c.WatchUnit(ctx, "nap.service")
	if err != nil {
		log.Fatal(err)
	}
	if _, err := c.StartTransientUnit(ctx, "nap.service", sdbus.ModeReplace, []sdbus.Property{
		sdbus.PropExecStart([]string{"/bin/sleep", "0.05"}, false),
	}); err != nil {
		log.Fatal(err)
	}
	sawActive := false
	for st := range states {
		if st.ActiveState == sdbus.StateActive {
			sawActive = true
		}
		if sawActive && st.ActiveState == sdbus.StateInactive {
			fmt.Println("active, then", st.ActiveState, st.Result)
			break
		}
	}
	cancel() // ends the watch; the channel is closed
	for range states {
	}
	// Output: active, then inactive success
}

// errors.Is matches systemd's errors by meaning: here
// org.freedesktop.systemd1.UnitExists, which a second scope of the same
// name gets. errors.As still finds the D-Bus error name.
func Example_unitExists() {
	ctx := context.Background()
	s, err := fakebus.Start() // a fake systemd; a program calls sdbus.ConnectSystem(ctx) instead
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	c, err := s.Dial(ctx) // a *sdbus.Conn over an in-process socket pair
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()

	props := []sdbus.Property{sdbus.PropPIDs(uint32(os.Getpid()))} // a process of one's own: the fake, like systemd, refuses a PID no process has
	if _, err := c.StartTransientUnit(ctx, "ctr-7.scope", sdbus.ModeReplace, props); err != nil {
		log.Fatal(err)
	}
	_, err = c.StartTransientUnit(ctx, "ctr-7.scope", sdbus.ModeReplace, props)
	fmt.Println(errors.Is(err, sdbus.ErrUnitExists))
	var e *sdbus.Error
	if errors.As(err, &e) {
		fmt.Println(e.Op, e.Unit, e.Name)
	}
	var de dbus.Error
	fmt.Println(errors.As(err, &de))
	// Output:
	// true
	// StartTransientUnit ctr-7.scope org.freedesktop.systemd1.UnitExists
	// true
}

// Property lists in go-systemd's shape (a struct with Name string and
// Value dbus.Variant, as go-systemd's dbus.Property, which callers often
// expose in their own APIs) convert in one call.
func ExampleFromDBusProperties() {
	type goSystemdProperty struct { // stands in for go-systemd's dbus.Property
		Name  string
		Value dbus.Variant
	}
	theirs := []goSystemdProperty{
		{Name: "Description", Value: dbus.MakeVariant("from go-systemd")},
		{Name: "MemoryMax", Value: dbus.MakeVariant(uint64(1 << 20))},
	}
	props := sdbus.FromDBusProperties(theirs)
	fmt.Println(props, sdbus.CheckProperties(props...))
	// Output: [Description=from go-systemd MemoryMax=1048576] <nil>
}

func ExampleProperty_String() {
	fmt.Println(sdbus.PropMemoryMax(512 << 20))
	fmt.Println(sdbus.PropMemoryMax(sdbus.Infinity))
	fmt.Println(sdbus.PropAllowedCPUs("0-3, 8,"))
	// Output:
	// MemoryMax=536870912
	// MemoryMax=infinity
	// AllowedCPUs=0-3,8
}

// runc's rounding: quota×1,000,000/period rounded down, then up to whole
// percent; a quota of 0 is no quota.
func ExampleCPUQuotaPerSec_runc() {
	for _, q := range [][2]uint64{{10000, 333333}, {12345, 100000}, {0, 100000}} {
		perSec, err := sdbus.CPUQuotaPerSec(q[0], q[1])
		fmt.Println(sdbus.Limit{Value: perSec, Unlimited: perSec == sdbus.Infinity}, err)
	}
	// Output:
	// 30000 <nil>
	// 130000 <nil>
	// infinity <nil>
}

// ParseCPUSet takes exactly what runc's RangeToBits takes.
func ExampleParseCPUSet() {
	for _, s := range []string{",0,1,", "    , 1   , 3  ,  5-7,\t", ""} {
		set, err := sdbus.ParseCPUSet(s)
		fmt.Printf("%q %q %v\n", s, set.String(), err != nil)
	}
	// Output:
	// ",0,1," "0-1" false
	// "    , 1   , 3  ,  5-7,\t" "1,3,5-7" false
	// "" "" true
}
