package main

import (
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/google/go-cmp/cmp"
	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus"
)

// TestLoadExample checks what testdata/example.json configures.
func TestLoadExample(t *testing.T) {
	st, err := loadScript("testdata/example.json")
	if err != nil {
		t.Fatal(err)
	}
	prop := func(name, sig string, v any) sdbus.Property {
		return sdbus.Property{Name: name, Value: dbus.MakeVariantWithSignature(v, dbus.ParseSignatureMust(sig))}
	}
	want := &fakebus.ScriptFile{
		Scripts: []fakebus.PatternScript{
			{Pattern: "run-*.scope", Script: fakebus.Script{Result: sdbus.JobFailed, UnitResult: "oom-kill"}},
			{Pattern: "crash-*.service", Script: fakebus.Script{Results: []sdbus.JobResult{sdbus.JobFailed}, UnitResult: "core-dump", ExitStatus: 11}},
			{Pattern: "slow-*.service", Script: fakebus.Script{Result: sdbus.JobDone, Delay: 200 * time.Millisecond, ReplyDelay: 50 * time.Millisecond}},
			{Pattern: "chaos-*.slice", Script: fakebus.Script{Faults: fakebus.FaultJobRemovedBeforeReply | fakebus.FaultDuplicateJobRemoved |
				fakebus.FaultForgedJobRemoved | fakebus.FaultWrongPathJobRemoved | fakebus.FaultMalformedJobRemoved}},
			{Pattern: "flaky-*.slice", Script: fakebus.Script{Faults: fakebus.FaultDropConnection}},
		},
		Units: []fakebus.UnitFile{
			{Name: "app.service", Properties: []sdbus.Property{
				prop("Description", "s", "an application"),
				prop("Type", "s", "oneshot"),
				prop("RemainAfterExit", "b", true),
				prop("ExecStart", "a(sasb)", [][]any{{"/bin/true", []string{"/bin/true"}, false}}),
				prop("MemoryMax", "t", uint64(536870912)),
				prop("DeviceAllow", "a(ss)", [][]any{{"/dev/null", "rw"}}),
			}, Aliases: []string{"application.service"}},
			{Name: "broken.service", Properties: []sdbus.Property{
				prop("Type", "s", "oneshot"),
				prop("ExecStart", "a(sasb)", [][]any{{"/bin/false", []string{"/bin/false"}, false}}),
			}},
			{Name: "forbidden.service", Masked: true},
		},
		ReloadDuration: 100 * time.Millisecond,
	}
	propEqual := cmp.Comparer(func(a, b sdbus.Property) bool {
		return a.Name == b.Name && a.Err() == nil && b.Err() == nil &&
			a.Value.Signature() == b.Value.Signature() && cmp.Equal(a.Value.Value(), b.Value.Value())
	})
	if diff := cmp.Diff(want, st, propEqual); diff != "" {
		t.Errorf("example.json (-want +got):\n%s", diff)
	}
}

func TestParseScriptEmptyAndNull(t *testing.T) {
	for _, in := range []string{`{}`, `{"scripts": null, "units": null, "reload_duration": ""}`,
		`{"units": [{"name": "a.service", "properties": null}]}`, `{"units": [{"name": "a.service", "properties": {}}]}`} {
		if _, err := fakebus.ParseScriptFile([]byte(in)); err != nil {
			t.Errorf("%s: %v", in, err)
		}
	}
}
