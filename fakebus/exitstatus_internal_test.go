package fakebus

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/sdbus-go/sdbus/fakebus/internal/sdversions"
)

// TestParseSignal: signals as systemd's signal_from_string reads them
// (measured on 247-262 by the differential tester: KillSignal= and
// SuccessExitStatus= lines).
func TestParseSignal(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int32
		ok   bool
	}{
		{"SIGTERM", 15, true},
		{"TERM", 15, true},
		{"9", 9, true},
		{"0", 0, false},
		{"65", 65, false},
		{"SIGRTMIN", 34, true},
		{"RTMIN+2", 36, true},
		{"RTMIN+30", 64, true},
		{"RTMIN+31", 0, false},
		{"RTMIN-1", 0, false},
		{"RTMAX", 64, true},
		{"RTMAX-1", 63, true},
		{"RTMAX-30", 34, true},
		{"RTMAX-31", 0, false},
		{"RTMAX+1", 0, false},
		{"SIGIOT", 0, false},
		{"bogus", 0, false},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, ok := parseSignal(tc.in)
			if ok != tc.ok || ok && got != tc.want {
				t.Errorf("parseSignal(%q) = %d, %v; want %d, %v", tc.in, got, ok, tc.want, tc.ok)
			}
		})
	}
}

// TestExitStatusLine: a unit file's SuccessExitStatus= line, word by word
// (measured on 247, 252, 257 and 262 by the differential tester).
func TestExitStatusLine(t *testing.T) {
	for _, tc := range []struct {
		release string
		in      string
		want    exitStatusSet
		reset   bool
	}{
		{"252", "3 TEMPFAIL SIGUSR1", exitStatusSet{Status: []int32{3, 75}, Signal: []int32{10}}, false},
		{"252", "bogus 300 -1 SIGIOT", exitStatusSet{}, false},
		{"252", "0 SIGKILL RTMIN+2 CHDIR APPARMOR", exitStatusSet{Status: []int32{0, 200, 231}, Signal: []int32{9, 36}}, false},
		{"247", "BPF KSM", exitStatusSet{}, false},
		{"252", "BPF KSM", exitStatusSet{Status: []int32{244}}, false},
		{"257", "BPF KSM", exitStatusSet{Status: []int32{244, 245}}, false},
		{"252", "", exitStatusSet{}, true},
	} {
		t.Run(tc.release+" "+tc.in, func(t *testing.T) {
			m := &manager{release: sdversions.R(tc.release)}
			got, reset := m.parseExitStatusLineLocked(tc.in)
			if diff := cmp.Diff(tc.want, got); diff != "" || reset != tc.reset {
				t.Errorf("parseExitStatusLineLocked(%q): reset %v, want %v (-want +got):\n%s", tc.in, reset, tc.reset, diff)
			}
		})
	}
}

// TestExitStatusSetJoin: the same setting given again adds to it; an empty
// one empties it.
func TestExitStatusSetJoin(t *testing.T) {
	empty := exitStatusSet{Status: []int32{}, Signal: []int32{}}
	for _, tc := range []struct {
		name     string
		cur, add exitStatusSet
		want     exitStatusSet
	}{
		{"first", exitStatusSet{}, exitStatusSet{Status: []int32{3, 1, 3}, Signal: []int32{15}}, exitStatusSet{Status: []int32{1, 3}, Signal: []int32{15}}},
		{"added", exitStatusSet{Status: []int32{1}, Signal: []int32{15}}, exitStatusSet{Status: []int32{7, 1}, Signal: []int32{9}}, exitStatusSet{Status: []int32{1, 7}, Signal: []int32{9, 15}}},
		{"emptied", exitStatusSet{Status: []int32{1}}, exitStatusSet{}, empty},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, tc.cur.join(tc.add)); diff != "" {
				t.Errorf("join (-want +got):\n%s", diff)
			}
		})
	}
}

// TestExitStatusSetReadBack: a transient file's lines read back at a
// reload: a signal systemd has no name for was written as a number and
// reads as an exit status, or is dropped past 255 (measured on 247-262 by
// the differential tester).
func TestExitStatusSetReadBack(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   exitStatusSet
		want exitStatusSet
		ok   bool
	}{
		{"named", exitStatusSet{Status: []int32{3}, Signal: []int32{9, 15, 34, 64}}, exitStatusSet{Status: []int32{3}, Signal: []int32{9, 15, 34, 64}}, true},
		{"numbers", exitStatusSet{Status: []int32{1}, Signal: []int32{0, 32, 65, 1000}}, exitStatusSet{Status: []int32{0, 1, 32, 65}, Signal: []int32{}}, true},
		{"none read", exitStatusSet{Signal: []int32{1000}}, exitStatusSet{}, false},
		{"empty", exitStatusSet{Status: []int32{}, Signal: []int32{}}, exitStatusSet{Status: []int32{}, Signal: []int32{}}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := tc.in.readBack()
			if diff := cmp.Diff(tc.want, got); diff != "" || ok != tc.ok {
				t.Errorf("readBack: ok %v, want %v (-want +got):\n%s", ok, tc.ok, diff)
			}
		})
	}
}
