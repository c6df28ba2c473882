package fakebus_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/godbus/dbus/v5"
	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus"
)

func ExampleServer() {
	s, err := fakebus.Start(fakebus.WithVersion("255.4-1ubuntu8"))
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	c, err := s.Dial(ctx) // a real *sdbus.Conn over an in-process socket pair
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()

	job, err := c.StartTransientUnit(ctx, "web.slice", sdbus.ModeReplace, []sdbus.Property{sdbus.PropMemoryMax(1 << 30)})
	if err != nil {
		log.Fatal(err)
	}
	res, _ := job.Wait(ctx)
	v, _ := c.Version(ctx)
	info, _ := s.Unit("web.slice")
	fmt.Println(res, v.Major, info.ActiveState)
	// Output: done 255 active
}

func ExampleServer_Script() {
	s, err := fakebus.Start()
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	// Every scope of the "run-" family fails, as if OOM-killed, and its
	// JobRemoved is sent twice and forged by another client on the way.
	if err := s.Script("run-*.scope", fakebus.Script{
		Result:     sdbus.JobFailed,
		UnitResult: "oom-kill",
		Faults:     fakebus.FaultDuplicateJobRemoved | fakebus.FaultForgedJobRemoved,
	}); err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	c, err := s.Dial(ctx)
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	job, err := c.StartTransientUnit(ctx, "run-1.scope", sdbus.ModeReplace, []sdbus.Property{sdbus.PropPIDs(uint32(os.Getpid()))})
	if err != nil {
		log.Fatal(err)
	}
	res, err := job.Wait(ctx)
	sp, _ := c.ScopeProperties(ctx, "run-1.scope")
	fmt.Println(res, sp.Result, err != nil)
	// Output: failed oom-kill true
}

// Any D-Bus client can use the fake through its socket; here godbus.
func ExampleServer_Address() {
	s, err := fakebus.Start()
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	addr, err := s.Address()
	if err != nil {
		log.Fatal(err)
	}
	conn, err := dbus.Connect(addr)
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()
	var v dbus.Variant
	err = conn.Object("org.freedesktop.systemd1", "/org/freedesktop/systemd1").
		Call("org.freedesktop.DBus.Properties.Get", 0, "org.freedesktop.systemd1.Manager", "Version").Store(&v)
	fmt.Println(v, err)
	// Output: "252.38-1~deb12u1" <nil>
}
