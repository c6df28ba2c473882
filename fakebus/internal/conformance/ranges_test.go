package conformance

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/google/go-cmp/cmp"
	"github.com/sdbus-go/sdbus/fakebus/internal/sdversions"
)

// testMemoryLimitRanges: StartTransientUnit of a slice with each memory
// limit at 0, 1 and infinity: MemoryHigh= and MemoryMax= cannot be 0
// (InvalidArgs "Value specified in MemoryMax is out of range", the same
// on 247, 252, 257 and 262), the others can. (The percentage variants,
// MemoryMaxScale and the like, are not modelled by the fake.)
func testMemoryLimitRanges(t *testing.T, e *env) {
	raw := e.rawBus(t)
	var want, got []string
	for _, prop := range []string{"MemoryMin", "MemoryLow", "MemoryHigh", "MemoryMax", "MemorySwapMax"} {
		for _, v := range []uint64{0, 1, math.MaxUint64} {
			unit := e.unit("range", "slice")
			cleanup(t, e, unit)
			var job dbus.ObjectPath
			r := managerCall(t, e, raw, "StartTransientUnit", []any{&job}, unit, "fail",
				[]propValue{{prop, dbus.MakeVariant(v)}}, []auxUnit{})
			got = append(got, fmt.Sprintf("%s=%d: %s", prop, v, strings.ReplaceAll(r, unit, "UNIT")))
			w := "ok"
			if v == 0 && (prop == "MemoryHigh" || prop == "MemoryMax") {
				w = "org.freedesktop.DBus.Error.InvalidArgs: Value specified in " + prop + " is out of range"
			}
			want = append(want, fmt.Sprintf("%s=%d: %s", prop, v, w))
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("StartTransientUnit with memory limits (-want +got):\n%s", diff)
	}
}

// testTransientSettingChecks: StartTransientUnit with one setting at a
// time is refused or taken as systemd does (each found by the
// differential tester, fakebus/internal/difftest, and measured on 247,
// 252, 257 and 262): a value of the wrong D-Bus type, systemd's texts for
// enumerations, ranges and names, the environment block, the load checks
// of a unit without its commands or processes, a refused manual start,
// and the settings 262 ignores or newly takes.
func testTransientSettingChecks(t *testing.T, e *env) {
	raw := e.rawBus(t)
	invalid := func(text string) string { return "org.freedesktop.DBus.Error.InvalidArgs: " + text }
	wrongType, einval := "System.Error.ENXIO: No such device or address", invalid("Invalid argument")
	if sdversions.Behaves(e.release, sdversions.SetPropertiesErrnoWrapped) {
		wrongType = "System.Error.ENXIO: Failed to set unit properties: Unexpected message contents"
		einval = invalid("Failed to set unit properties: Invalid argument")
	}
	ignoredV1 := sdversions.Behaves(e.release, sdversions.CgroupV1SettingsIgnored)
	ifElse := func(cond bool, a, b string) string {
		if cond {
			return a
		}
		return b
	}
	noPIDs := "org.freedesktop.DBus.Error.FileNotFound: Unit UNIT failed to load properly: No such file or directory."
	if sdversions.Behaves(e.release, sdversions.LoadErrorAdvice) {
		noPIDs = "org.freedesktop.DBus.Error.FileNotFound: Unit UNIT failed to load properly, please adjust/correct and reload service manager: No such file or directory"
	}
	badSetting := "org.freedesktop.systemd1.BadUnitSetting: Unit UNIT has a bad unit file setting."
	sleep := propValue{"ExecStart", dbus.MakeVariant([]execCmd{{"/bin/sleep", []string{"/bin/sleep", "400"}, false}})}
	for _, tc := range []struct {
		kind  string // service (with ExecStart=/bin/sleep 400 unless bare), scope, slice, socket
		bare  bool   // without the settings its kind needs
		prop  string
		value any
		want  string
	}{
		{kind: "service", prop: "Description", value: uint32(7), want: wrongType},
		{kind: "slice", prop: "MemoryMax", value: "x", want: wrongType},
		{kind: "service", prop: "CollectMode", value: "bogus", want: invalid("Invalid CollectMode setting: bogus")},
		{kind: "service", prop: "Restart", value: "", want: invalid("Invalid Restart setting: ")},
		{kind: "service", prop: "StandardOutput", value: "file:/dev/null", want: invalid("Invalid StandardOutput setting: file:/dev/null")},
		{kind: "service", prop: "KillSignal", value: int32(65), want: invalid("Invalid KillSignal setting: 65")},
		{kind: "slice", prop: "TasksMax", value: uint64(0), want: invalid("Value specified in TasksMax is out of range")},
		{kind: "slice", prop: "IOWeight", value: uint64(10001), want: invalid("Value specified in IOWeight is out of range")},
		{kind: "slice", prop: "CPUQuotaPerSecUSec", value: uint64(0), want: invalid("CPUQuotaPerSecUSec= value out of range")},
		{kind: "slice", prop: "DevicePolicy", value: "bogus", want: einval},
		{kind: "slice", prop: "ManagedOOMSwap", value: "bogus", want: einval},
		{kind: "service", prop: "Slice", value: "bogus", want: invalid("Invalid unit name 'bogus'")},
		{kind: "service", prop: "Slice", value: "init.scope", want: invalid("Unit name 'init.scope' is not a slice")},
		{kind: "service", prop: "Environment", value: []string{"A=1", "A=2"}, want: invalid("Invalid environment block.")},
		{kind: "service", prop: "Environment", value: []string{"A"}, want: invalid("Invalid environment block.")},
		{kind: "service", prop: "Nice", value: int32(20), want: invalid("Invalid Nice value: 20")},
		{kind: "service", prop: "OOMScoreAdjust", value: int32(-1001), want: invalid("OOM score adjust value out of range")},
		{kind: "service", prop: "User", value: "4294967295", want: invalid("Invalid User setting: 4294967295")},
		{kind: "service", prop: "WorkingDirectory", value: "relative", want: invalid("WorkingDirectory= expects an absolute path or '~'")},
		{kind: "slice", prop: "MemoryMaxScale", value: uint32(1), want: invalid("Value specified in MemoryMaxScale is out of range")},
		{kind: "slice", prop: "MemoryMaxScale", value: uint32(math.MaxUint32 / 2), want: "ok"},
		{kind: "slice", prop: "TasksMaxScale", value: uint32(math.MaxUint32), want: invalid("Value specified in TasksMaxScale is out of range")},
		{kind: "slice", prop: "TasksMaxScale", value: uint32(7), want: "ok"},
		{kind: "slice", prop: "RefuseManualStart", value: true,
			want: "org.freedesktop.systemd1.OnlyByDependency: Operation refused, unit UNIT may be requested by dependency only (it is configured to refuse manual start/stop)."},
		{kind: "slice", prop: "CPUShares", value: uint64(1), want: ifElse(ignoredV1, "ok", invalid("Value specified in CPUShares is out of range"))},
		{kind: "slice", prop: "BlockIOWeight", value: "x", want: ifElse(ignoredV1, "ok", wrongType)},
		{kind: "slice", prop: "MemoryLimit", value: uint64(0), want: ifElse(ignoredV1, "ok", invalid("Value specified in MemoryLimit is out of range"))},
		{kind: "slice", prop: "JobTimeoutUSec", value: uint64(90000000), want: ifElse(sdversions.Behaves(e.release, sdversions.TransientJobTimeout), "ok",
			"org.freedesktop.DBus.Error.PropertyReadOnly: Cannot set property JobTimeoutUSec, or unknown property.")},
		{kind: "service", bare: true, prop: "Description", value: "no ExecStart", want: badSetting},
		{kind: "socket", bare: true, prop: "Description", value: "no Listen", want: badSetting},
		{kind: "scope", bare: true, prop: "Description", value: "no PIDs", want: noPIDs},
	} {
		unit := e.unit("setting", tc.kind)
		props := []propValue{{tc.prop, dbus.MakeVariant(tc.value)}}
		if tc.kind == "service" && !tc.bare {
			props = append(props, sleep)
		}
		var job dbus.ObjectPath
		r := managerCall(t, e, raw, "StartTransientUnit", []any{&job}, unit, "replace", props, []auxUnit{})
		if r == "ok" {
			cleanup(t, e, unit)
		}
		if got := strings.ReplaceAll(r, unit, "UNIT"); got != tc.want {
			t.Errorf("StartTransientUnit of a %s with %s=%#v: got %q, want %q", tc.kind, tc.prop, tc.value, got, tc.want)
		}
	}
}

// testExecFailures: a service whose main process cannot start fails as
// systemd's does, with the exit status of exec_child (measured on 247 to
// 262 by the differential tester): an unknown user 217, an unknown group
// 216, a missing working directory 200, a program that does not exist
// 203, LimitNOFILE=0 203 (127 on 247), and the name of the failed unit
// stays taken (UnitExists); RuntimeMaxUSec= ends a running service with result timeout (its
// main process killed by SIGTERM); a Type=notify service whose program
// never notifies stays activating.
func testExecFailures(t *testing.T, e *env) {
	raw := e.rawBus(t)
	sleep := func(argv ...string) propValue {
		if len(argv) == 0 {
			argv = []string{"/bin/sleep", "400"}
		}
		return propValue{"ExecStart", dbus.MakeVariant([]execCmd{{argv[0], argv, false}})}
	}
	str := func(name, v string) propValue { return propValue{name, dbus.MakeVariant(v)} }
	noFiles := "failed/failed exit-code 1/127"
	if sdversions.Behaves(e.release, sdversions.NoFilesExecStatus203) {
		noFiles = "failed/failed exit-code 1/203"
	}
	for _, tc := range []struct {
		name  string
		props []propValue
		want  string // state, result, ExecMainCode/ExecMainStatus once settled
	}{
		{"unknown user", []propValue{sleep(), str("User", "sdbus-no-such-user")}, "failed/failed exit-code 1/217"},
		{"unknown group", []propValue{sleep(), str("Group", "sdbus-no-such-group")}, "failed/failed exit-code 1/216"},
		{"missing directory", []propValue{sleep(), str("WorkingDirectory", "/sdbus-no-such-dir")}, "failed/failed exit-code 1/200"},
		{"missing program", []propValue{sleep("/sdbus-no-such-program")}, "failed/failed exit-code 1/203"},
		{"no files", []propValue{sleep(), {"LimitNOFILE", dbus.MakeVariant(uint64(0))}}, noFiles},
		{"runtime max", []propValue{sleep(), {"RuntimeMaxUSec", dbus.MakeVariant(uint64(1))}}, "failed/failed timeout 2/15"},
		{"notify never", []propValue{sleep(), str("Type", "notify")}, "activating/start success 0/0"},
		{"missing directory allowed", []propValue{sleep(), str("WorkingDirectory", "-/sdbus-no-such-dir")}, "active/running success 0/0"},
	} {
		unit := e.unit("exec", "service")
		var job dbus.ObjectPath
		if r := managerCall(t, e, raw, "StartTransientUnit", []any{&job}, unit, "replace", tc.props, []auxUnit{}); r != "ok" {
			t.Errorf("%s: StartTransientUnit: %s", tc.name, r)
			continue
		}
		cleanup(t, e, unit)
		read := func() string {
			svc := "org.freedesktop.systemd1.Service"
			return fmt.Sprintf("%v/%v %v %v/%v", unitProp(t, e, raw, unit, "org.freedesktop.systemd1.Unit", "ActiveState"),
				unitProp(t, e, raw, unit, "org.freedesktop.systemd1.Unit", "SubState"), unitProp(t, e, raw, unit, svc, "Result"),
				unitProp(t, e, raw, unit, svc, "ExecMainCode"), unitProp(t, e, raw, unit, svc, "ExecMainStatus"))
		}
		// The state it comes to within 5 s and keeps for 300 ms: a
		// child that fails before the program runs may take longer
		// than a quiet moment to fail under load (seen on 257, whose
		// child runs systemd-executor first: running for over 100 ms).
		got := read()
		for end := time.Now().Add(5 * time.Second); got != tc.want && time.Now().Before(end); {
			time.Sleep(50 * time.Millisecond)
			got = read()
		}
		for end := time.Now().Add(300 * time.Millisecond); got == tc.want && time.Now().Before(end); {
			time.Sleep(100 * time.Millisecond)
			got = read()
		}
		if got != tc.want {
			t.Errorf("%s: got %s, want %s", tc.name, got, tc.want)
		}
		if tc.name != "unknown user" {
			continue
		}
		// The failed unit stays (CollectMode=inactive): the name is taken.
		want := "org.freedesktop.systemd1.UnitExists: Unit UNIT already exists."
		if sdversions.Behaves(e.release, sdversions.UnitExistsExplained) {
			want = "org.freedesktop.systemd1.UnitExists: Unit UNIT was already loaded or has a fragment file."
		}
		r := managerCall(t, e, raw, "StartTransientUnit", []any{&job}, unit, "replace", tc.props, []auxUnit{})
		if got := strings.ReplaceAll(r, unit, "UNIT"); got != want {
			t.Errorf("StartTransientUnit of the failed unit again: got %q, want %q", got, want)
		}
	}
}
