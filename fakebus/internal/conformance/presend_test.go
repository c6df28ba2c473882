package conformance

import (
	"errors"
	"fmt"
	"strings"
	"syscall"
	"testing"

	"github.com/godbus/dbus/v5"
	"github.com/sdbus-go/sdbus"
)

// presendValue is one property value sent past sdbus's own checks, as
// StartTransientUnit of a unit of kind; accepted says from which release
// systemd takes it (0: every release; never: none).
type presendValue struct {
	kind     string // "slice", "service" or "scope"
	prop     sdbus.Property
	accepted int
	// from is the first release the value is sent to (0: every one).
	from int
}

const never = 1 << 20

func pv(kind, name string, v any, accepted int) presendValue {
	return presendValue{kind: kind, prop: sdbus.PropRaw(name, v), accepted: accepted}
}

type ioLimit struct {
	Device string
	Value  uint64
}

type devRule struct{ Specifier, Access string }

type exe struct {
	Path          string
	Argv          []string
	IgnoreFailure bool
}

// presendValues are the values at the edges of sdbus's pre-send checks
// (propcheck.go), as systemd 247, 252, 257 and 262 take or refuse them.
var presendValues = []presendValue{
	pv("slice", "CPUQuotaPeriodUSec", uint64(0), 0),
	pv("slice", "CPUQuotaPeriodUSec", uint64(500), 0),
	pv("slice", "CPUQuotaPeriodUSec", uint64(1000), 0),
	pv("slice", "CPUQuotaPeriodUSec", uint64(1000000), 0),
	pv("slice", "CPUQuotaPeriodUSec", uint64(2000000), 0),
	pv("slice", "CPUQuotaPeriodUSec", sdbus.Infinity, 0),
	pv("slice", "CPUQuotaPerSecUSec", uint64(0), never),
	pv("slice", "CPUQuotaPerSecUSec", uint64(1), 0),
	pv("slice", "CPUQuotaPerSecUSec", uint64(1)<<63, 0),
	pv("slice", "CPUQuotaPerSecUSec", sdbus.Infinity, 0),
	pv("slice", "TasksMax", uint64(0), never),
	pv("slice", "TasksMax", uint64(1), 0),
	pv("slice", "TasksMax", sdbus.Infinity, 0),
	pv("slice", "CPUWeight", uint64(0), 252),
	pv("slice", "CPUWeight", uint64(10000), 0),
	pv("slice", "CPUWeight", uint64(10001), never),
	pv("slice", "CPUWeight", sdbus.Infinity, 0),
	pv("slice", "IOWeight", uint64(0), never),
	pv("slice", "IOWeight", uint64(10000), 0),
	pv("slice", "IOWeight", uint64(10001), never),
	pv("slice", "IOWeight", sdbus.Infinity, 0),
	pv("slice", "IODeviceWeight", []ioLimit{}, 0),
	pv("slice", "IODeviceWeight", []ioLimit{{"/dev/null", 100}}, 0),
	pv("slice", "IODeviceWeight", []ioLimit{{"/dev/null", 0}}, never),
	pv("slice", "IODeviceWeight", []ioLimit{{"/dev/null", 10001}}, never),
	pv("slice", "IODeviceWeight", []ioLimit{{"dev/null", 100}}, 0),
	pv("slice", "IOReadBandwidthMax", []ioLimit{}, 0),
	pv("slice", "IOReadBandwidthMax", []ioLimit{{"/dev/null", 0}}, 0),
	pv("slice", "IOReadBandwidthMax", []ioLimit{{"dev/null", 1}}, 0),
	pv("slice", "DeviceAllow", []devRule{}, 0),
	pv("slice", "DeviceAllow", []devRule{{"/dev/null", "rwm"}}, 0),
	pv("slice", "DeviceAllow", []devRule{{"/dev/null", ""}}, 0),
	pv("slice", "DeviceAllow", []devRule{{"/dev/null", "x"}}, never),
	pv("slice", "DeviceAllow", []devRule{{"char-pts", "rw"}}, 0),
	pv("slice", "DeviceAllow", []devRule{{"char-", "r"}}, 0),
	pv("slice", "DeviceAllow", []devRule{{"foo", "r"}}, never),
	pv("slice", "DeviceAllow", []devRule{{"/dev/../null", "r"}}, never),
	pv("slice", "DevicePolicy", "closed", 0),
	pv("slice", "DevicePolicy", "bogus", never),
	pv("slice", "CollectMode", "bogus", never),
	pv("slice", "Wants", []string{}, 0),
	pv("slice", "After", []string{}, 0),
	pv("slice", "Wants", []string{"sdbus-conf-none.service"}, 0),
	pv("slice", "Wants", []string{"sdbus-conf-tmpl@.service"}, never),
	pv("slice", "Wants", []string{"not a unit"}, never),
	pv("service", "Type", "notify-reload", 253),
	pv("service", "Type", "bogus", never),
	pv("service", "ExecStart", []exe{{"true", []string{"true"}, false}}, 0),
	// systemd 247 takes an empty argv and then aborts (PID 1 dies on an
	// assertion when the service starts): run from 252 on only.
	{kind: "service", prop: sdbus.PropRaw("ExecStart", []exe{{"/bin/true", []string{}, false}}), accepted: never, from: 252},
	pv("service", "KillSignal", int32(0), never),
	pv("service", "KillSignal", int32(64), 0),
	pv("service", "KillSignal", int32(65), never),
	pv("service", "KillMode", "bogus", never),
	pv("service", "OOMPolicy", "bogus", never),
	pv("service", "Restart", "on-abnormal", 0),
	pv("scope", "PIDs", []uint32{}, never),
	// PID 0 is the caller's own process for systemd (252 and 257 move the
	// caller into the scope); not run here, since it would move the test.
	pv("scope", "Slice", "sdbus-conf-x.service", never),
	pv("scope", "Slice", "-.slice", 0),
	pv("scope", "DelegateControllers", []string{}, 0),
	pv("scope", "DelegateControllers", []string{"cpu"}, 0),
	pv("scope", "DelegateControllers", []string{"bogus"}, never),
	pv("scope", "DelegateSubgroup", "", 254),
	pv("scope", "DelegateSubgroup", "sub", 254),
	pv("scope", "DelegateSubgroup", ".", never),
	pv("scope", "DelegateSubgroup", "a/b", never),
	pv("scope", "DelegateSubgroup", "cgroup.procs", never),
}

// testPreSendChecks holds every check sdbus makes before sending
// (CheckProperties) against what the manager itself takes: each value is
// sent past sdbus, raw, in StartTransientUnit. A value the manager takes
// must pass sdbus's check; a value sdbus refuses, the manager must refuse
// too, with InvalidArgs. The table records which release takes what.
func testPreSendChecks(t *testing.T, e *env) {
	raw := e.rawBus(t)
	major := e.managerVersion.Major
	for _, v := range presendValues {
		if major < v.from {
			continue
		}
		name := e.unit("presend", v.kind)
		cleanup(t, e, name)
		var props []sdbus.Property
		switch v.kind {
		case "slice":
			props = sliceProps()
		case "service":
			props = []sdbus.Property{sdbus.PropDescription("sdbus conformance"), sdbus.PropRemainAfterExit(true)}
			if v.prop.Name != "ExecStart" {
				props = append(props, sdbus.PropExecStart([]string{"/bin/true"}, false))
			}
		case "scope":
			props = []sdbus.Property{sdbus.PropDescription("sdbus conformance"), sdbus.PropDefaultDependencies(false)}
			if v.prop.Name != "PIDs" {
				props = append(props, sdbus.PropPIDs(child(t)))
			}
			if strings.HasPrefix(v.prop.Name, "Delegate") {
				props = append(props, sdbus.PropDelegate(true))
			}
		}
		props = append(props, v.prop)
		wire := make([]struct {
			Name  string
			Value dbus.Variant
		}, len(props))
		for i, p := range props {
			wire[i].Name, wire[i].Value = p.Name, p.Value
		}
		var job dbus.ObjectPath
		got := managerCall(t, e, raw, "StartTransientUnit", []any{&job}, name, "replace", wire, []struct {
			Name  string
			Props []struct {
				Name  string
				Value dbus.Variant
			}
		}{})
		check := sdbus.CheckProperties(v.prop)
		what := fmt.Sprintf("%s %s", v.kind, v.prop)
		t.Logf("%s: systemd %s; sdbus %v", what, got, check)
		accepted := got == "ok"
		if want := major >= v.accepted; accepted != want {
			t.Errorf("%s: systemd %d answered %s, want accepted=%v", what, major, got, want)
		}
		switch {
		case check != nil && accepted:
			t.Errorf("%s: systemd takes it, sdbus refuses it: %v", what, check)
		case check != nil && errPrefix(got) == "org.freedesktop.DBus.Error.PropertyReadOnly":
			// The release does not know the property at all.
		case check != nil && errPrefix(got) != "org.freedesktop.DBus.Error.InvalidArgs":
			t.Errorf("%s: sdbus refuses it as invalid (%v), systemd with %s", what, check, got)
		}
	}
	testPreSendMethodArgs(t, e, raw)
	testUnitFileNameRefused(t, e)
}

// testUnitFileNameRefused: the unit-file name CPUQuota, sent as a
// property, is refused as unknown, and sdbus names the D-Bus property.
func testUnitFileNameRefused(t *testing.T, e *env) {
	name := e.unit("presend-cpuquota", "slice")
	cleanup(t, e, name)
	_, err := e.c.StartTransientUnit(e.ctx, name, sdbus.ModeReplace, append(sliceProps(), sdbus.PropRaw("CPUQuota", "50%")))
	const want = "Cannot set property CPUQuota, or unknown property. CPUQuota is a unit-file setting; its D-Bus property is CPUQuotaPerSecUSec (PropCPUQuota or PropCPUQuotaPerSec)."
	if !errors.Is(err, sdbus.ErrNotSupported) || !strings.Contains(fmt.Sprint(err), want) {
		t.Errorf("StartTransientUnit with CPUQuota = %v, want ErrNotSupported saying %q", err, want)
	}
}

// testPreSendMethodArgs holds sdbus's checks of KillUnit's and
// AttachProcessesToUnit's arguments against the manager's: an empty kill
// target and an empty PID list.
func testPreSendMethodArgs(t *testing.T, e *env, raw *dbus.Conn) {
	delegated := e.unit("presend-args", "scope")
	cleanup(t, e, delegated)
	wait(t, e, start(t, e, e.c, delegated, scope(child(t), sdbus.PropDelegate(true))), sdbus.JobDone)
	for _, tc := range []struct {
		what  string
		sdbus error
		call  func() string
		want  string // the manager's answer
	}{
		{"KillUnit with whom \"\"", e.c.KillUnit(e.ctx, delegated, "", syscall.SIGCONT),
			func() string { return managerCall(t, e, raw, "KillUnit", nil, delegated, "", int32(syscall.SIGCONT)) }, "ok"},
		{"KillUnit with signal 0", e.c.KillUnit(e.ctx, delegated, sdbus.KillAll, 0),
			func() string { return errPrefix(managerCall(t, e, raw, "KillUnit", nil, delegated, "all", int32(0))) },
			"org.freedesktop.DBus.Error.InvalidArgs"},
		{"AttachProcessesToUnit with no PIDs", e.c.AttachProcessesToUnit(e.ctx, delegated, ""),
			func() string {
				return managerCall(t, e, raw, "AttachProcessesToUnit", nil, delegated, "", []uint32{})
			}, "ok"},
	} {
		got := tc.call()
		t.Logf("%s: systemd %s; sdbus %v", tc.what, got, tc.sdbus)
		if got != tc.want {
			t.Errorf("%s: systemd %d answered %s, want %s", tc.what, e.managerVersion.Major, got, tc.want)
		}
		if tc.sdbus != nil && (got == "ok" || !errors.Is(tc.sdbus, sdbus.ErrInvalidArgs)) {
			t.Errorf("%s: sdbus refuses it (%v), systemd answers %s", tc.what, tc.sdbus, got)
		}
	}
}
