package sdbus_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus"
)

func ExampleConn_StartTransientUnit() {
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

	job, err := c.StartTransientUnit(ctx, "hello.service", sdbus.ModeReplace, []sdbus.Property{
		sdbus.PropDescription("say hello"),
		sdbus.PropType(sdbus.ServiceOneshot),
		sdbus.PropExecStart([]string{"/bin/true"}, false),
	})
	if err != nil {
		log.Fatal(err)
	}
	res, err := job.Wait(ctx)
	fmt.Println(job.Unit(), res, err)
	// Output: hello.service done <nil>
}

func ExampleJob_Wait() {
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

	job, err := c.StartTransientUnit(ctx, "fails.service", sdbus.ModeReplace, []sdbus.Property{
		sdbus.PropType(sdbus.ServiceOneshot),
		sdbus.PropExecStart([]string{"/bin/false"}, false),
	})
	if err != nil {
		log.Fatal(err)
	}
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	_, err = job.Wait(wctx)
	var je *sdbus.JobError
	if errors.As(err, &je) {
		fmt.Println(je.Unit, je.Result, errors.Is(err, sdbus.ErrJobFailed))
	}
	// Output: fails.service failed true
}

func ExampleConn_EnsureTransientUnit() {
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

	// A failed scope of the same name lingers from an earlier run...
	props := []sdbus.Property{sdbus.PropType(sdbus.ServiceOneshot), sdbus.PropExecStart([]string{"/bin/false"}, false)}
	if j, err := c.StartTransientUnit(ctx, "ctr-1.service", sdbus.ModeReplace, props); err == nil {
		_, _ = j.Wait(ctx)
	}
	// ... so it is reset and the unit created again, once.
	props = []sdbus.Property{sdbus.PropType(sdbus.ServiceOneshot), sdbus.PropExecStart([]string{"/bin/true"}, false)}
	out, err := c.EnsureTransientUnit(ctx, "ctr-1.service", props, sdbus.EnsureOptions{Exists: sdbus.ExistsResetAndRetry})
	fmt.Println(out, err)

	// Ignoring an existing unit while placing PIDs is refused.
	_, err = c.EnsureTransientUnit(ctx, "ctr-2.scope", []sdbus.Property{sdbus.PropPIDs(uint32(os.Getpid()))}, sdbus.EnsureOptions{Exists: sdbus.ExistsIgnore})
	fmt.Println(errors.Is(err, sdbus.ErrInvalidArgs))
	// Output:
	// recreated <nil>
	// true
}

func ExampleConn_EffectiveLimits() {
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

	quota := sdbus.PropCPUQuota(100000, 100000) // one CPU
	if _, err := c.EnsureTransientUnit(ctx, "pod.slice", []sdbus.Property{sdbus.PropMemoryMax(512 << 20), quota}, sdbus.EnsureOptions{}); err != nil {
		log.Fatal(err)
	}
	if _, err := c.EnsureTransientUnit(ctx, "ctr.scope", []sdbus.Property{sdbus.PropSlice("pod.slice"), sdbus.PropPIDs(uint32(os.Getpid()))}, sdbus.EnsureOptions{}); err != nil {
		log.Fatal(err)
	}
	own, _ := c.ScopeProperties(ctx, "ctr.scope")
	lim, err := c.EffectiveLimits(ctx, "ctr.scope")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("own MemoryMax:", own.MemoryMax)
	fmt.Println("effective MemoryMax:", lim.MemoryMax, "from", lim.MemoryMax.Source)
	fmt.Println("effective CPU quota:", lim.CPUQuotaPerSecUSec, "µs/s from", lim.CPUQuotaPerSecUSec.Source)
	// Output:
	// own MemoryMax: infinity
	// effective MemoryMax: 536870912 from pod.slice
	// effective CPU quota: 1000000 µs/s from pod.slice
}

func ExampleConn_WaitUnitState() {
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

	// A service that starts, then exits with status 1.
	job, err := c.StartTransientUnit(ctx, "check.service", sdbus.ModeReplace, []sdbus.Property{
		sdbus.PropExecStart([]string{"/bin/false"}, false),
	})
	if err != nil {
		log.Fatal(err)
	}
	// Until its start job runs the unit is inactive already: wait for the
	// job first (or use job.WaitUnitState).
	if _, err := job.Wait(ctx); err != nil {
		log.Fatal(err)
	}
	// A failed unit stays loaded, with its Result, until reset. One that
	// ended with success may be unloaded at once (CollectMode=inactive):
	// the state read then is LoadState not-found, ActiveState inactive,
	// and no Result.
	st, err := c.WaitUnitState(ctx, "check.service", func(s sdbus.UnitState) bool {
		return s.ActiveState == sdbus.StateInactive || s.ActiveState == sdbus.StateFailed
	})
	fmt.Println(st.ActiveState, st.Result, err)
	// Output: failed exit-code <nil>
}

func ExampleConn_Supports() {
	ctx := context.Background()
	s, err := fakebus.Start(fakebus.WithVersion("254.5-1"), fakebus.WithBackport("EffectiveMemoryMax")) // a fake systemd; a program calls sdbus.ConnectSystem(ctx) instead
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	c, err := s.Dial(ctx) // a *sdbus.Conn over an in-process socket pair
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()

	// A 254 that backported the effective limits: probing tells, the
	// version does not.
	// CPUWeightIdle is asked with a trial StartTransientUnit that never
	// creates anything.
	for _, f := range []sdbus.Feature{sdbus.FeatureEffectiveLimits, sdbus.FeatureDelegateSubgroup, sdbus.FeatureCPUWeightIdle} {
		ok, err := c.Supports(ctx, f)
		fmt.Println(f, f.Since(), ok, err)
	}
	// Output:
	// EffectiveLimits 256 true <nil>
	// DelegateSubgroup 254 true <nil>
	// CPUWeightIdle 250 true <nil>
}

func ExampleParseVersion() {
	for _, s := range []string{"252.38-1~deb12u1", "239 (239-41.el8_3.2)", "v245.4-1.fc32", `"257~rc2"`, "systemd"} {
		v, err := sdbus.ParseVersion(s)
		if err != nil {
			fmt.Println(errors.Is(err, sdbus.ErrInvalidArgs))
			continue
		}
		fmt.Println(v.Major, v.Minor, v.Pre, v.Distro, v.AtLeast(252))
	}
	// Output:
	// 252 38  1~deb12u1 true
	// 239 0  41.el8_3.2 false
	// 245 4  1.fc32 false
	// 257 0 rc2  true
	// true
}

func ExampleCPUQuotaPerSec() {
	// An OCI quota of 12.345 ms per 100 ms period: systemd keeps whole
	// percent, so the value is rounded up to 13%.
	perSec, err := sdbus.CPUQuotaPerSec(12345, 100000)
	fmt.Println(perSec, err)
	// Output: 130000 <nil>
}

func ExampleUnitPath() {
	fmt.Println(sdbus.UnitPath("dbus.service"))
	fmt.Println(sdbus.EscapeUnitPath("/var/lib/my data"))
	p, _ := sdbus.ExpandSlice("kubepods-besteffort-pod1.slice")
	fmt.Println(p)
	// Output:
	// /org/freedesktop/systemd1/unit/dbus_2eservice
	// var-lib-my\x20data
	// /kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod1.slice
}

func ExampleConn_Reconcile() {
	s, err := fakebus.Start()
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	c, err := s.Dial(ctx, sdbus.WithReconnect(sdbus.ReconnectPolicy{MinDelay: time.Millisecond}))
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	_ = s.Script("slow.slice", fakebus.Script{Delay: time.Hour})

	job, err := c.StartTransientUnit(ctx, "slow.slice", sdbus.ModeReplace, nil)
	if err != nil {
		log.Fatal(err)
	}
	s.DropConnections() // dbus-daemon restarts, say
	_, err = job.Wait(ctx)
	fmt.Println(errors.Is(err, sdbus.ErrDisconnected))

	// Once reconnected, find out what became of the unit.
	r, err := c.Reconcile(ctx, "slow.slice")
	fmt.Println(r.Loaded, r.Job != nil && r.Job.ID() == job.ID(), err)
	// Output:
	// true
	// true true <nil>
}

// Write a unit file, enable it, reload the manager, then restart the unit
// and wait for the restart to finish: the sequence of "install and run a
// service" tools.
func ExampleConn_EnableUnitFiles() {
	s, err := fakebus.Start()
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	c, err := s.Dial(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()

	dir, err := os.MkdirTemp("", "example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	file := filepath.Join(dir, "app.service")
	unit := "[Unit]\nDescription=an app\n\n[Service]\nType=oneshot\nRemainAfterExit=yes\nExecStart=/bin/true\n\n[Install]\nWantedBy=multi-user.target\n"
	if err := os.WriteFile(file, []byte(unit), 0o644); err != nil {
		log.Fatal(err)
	}

	// A path outside the unit path is linked, then enabled.
	hasInstall, changes, err := c.EnableUnitFiles(ctx, []string{file}, 0)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("install info:", hasInstall)
	for _, ch := range changes {
		rel, _ := filepath.Rel(s.UnitDir(), ch.Filename) // /etc/systemd/system on a real system
		fmt.Println(ch.Type, rel)
	}
	if err := c.Reload(ctx); err != nil {
		log.Fatal(err)
	}
	job, err := c.RestartUnit(ctx, "app.service", sdbus.ModeReplace)
	if err != nil {
		log.Fatal(err)
	}
	res, err := job.Wait(ctx)
	fmt.Println("restart:", res, err)
	state, err := c.GetUnitFileState(ctx, "app.service")
	fmt.Println("state:", state, err)
	// Output:
	// install info: true
	// symlink app.service
	// symlink multi-user.target.wants/app.service
	// restart: done <nil>
	// state: enabled <nil>
}

// go-systemd's NewWithContext, the system bus or else (as root) systemd's
// private socket, is ConnectSystem with a fallback:
//
//	c, err := sdbus.ConnectSystem(ctx, sdbus.WithFallback(sdbus.PrivateAddress, true),
//		sdbus.WithReconnect(sdbus.ReconnectPolicy{}))
//
// Here the "bus" address answers nothing, and the fake's private socket
// stands in for systemd's.
func ExampleWithFallback() {
	s, err := fakebus.Start()
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	private, err := s.PrivateAddress()
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	c, err := sdbus.Connect(ctx, "unix:path=/nonexistent/system_bus_socket", sdbus.WithFallback(private, true))
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	job, err := c.StartUnit(ctx, "-.slice", sdbus.ModeReplace)
	if err != nil {
		log.Fatal(err)
	}
	res, err := job.Wait(ctx)
	fmt.Println(res, err)
	// Output: done <nil>
}
