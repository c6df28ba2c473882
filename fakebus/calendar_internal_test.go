package fakebus

import (
	"os/exec"
	"strings"
	"testing"
)

// calendarCases are calendar specs and their normalized forms as
// systemd-analyze calendar of systemd 252 printed them ("" where it
// failed to parse the spec).
var calendarCases = []struct{ spec, want string }{
	{"daily", "*-*-* 00:00:00"},
	{"Daily", "*-*-* 00:00:00"},
	{"HOURLY", "*-*-* *:00:00"},
	{"minutely", "*-*-* *:*:00"},
	{"weekly", "Mon *-*-* 00:00:00"},
	{"monthly", "*-*-01 00:00:00"},
	{"quarterly", "*-01,04,07,10-01 00:00:00"},
	{"semiannually", "*-01,07-01 00:00:00"},
	{"yearly", "*-01-01 00:00:00"},
	{"annually", "*-01-01 00:00:00"},
	{"Mon 9:00", "Mon *-*-* 09:00:00"},
	{"monday 9:00", "Mon *-*-* 09:00:00"},
	{"MON 9:00", "Mon *-*-* 09:00:00"},
	{"Monday 09:00", "Mon *-*-* 09:00:00"},
	{"Sat,Sun 20:00", "Sat,Sun *-*-* 20:00:00"},
	{"Sun,Mon", "Mon,Sun *-*-* 00:00:00"},
	{"Mon..Fri", "Mon..Fri *-*-* 00:00:00"},
	{"Mon-Fri 9:00", "Mon..Fri *-*-* 09:00:00"},
	{"Mon-Wed", "Mon..Wed *-*-* 00:00:00"},
	{"Mon,Tue,Wed", "Mon..Wed *-*-* 00:00:00"},
	{"Mon,Wed,Fri", "Mon,Wed,Fri *-*-* 00:00:00"},
	{"Wed..Sat,Tue 12-10-15 1:2:3", "Tue..Sat 2012-10-15 01:02:03"},
	{"2026-12-02", "2026-12-02 00:00:00"},
	{"2026-*-*", "2026-*-* 00:00:00"},
	{"2003-03-05 05:40", "2003-03-05 05:40:00"},
	{"70-1-1", "1970-01-01 00:00:00"},
	{"69-1-1", "2069-01-01 00:00:00"},
	{"*-1-1", "*-01-01 00:00:00"},
	{"*-02-29", "*-02-29 00:00:00"},
	{"*-*-1,15", "*-*-01,15 00:00:00"},
	{"*-*~03", "*-*~03 00:00:00"},
	{"*-*-*", "*-*-* 00:00:00"},
	{"Mon,Tue *-*-01..04 12:00:00", "Mon,Tue *-*-01..04 12:00:00"},
	{"*-*-* 4:00:00", "*-*-* 04:00:00"},
	{"12:00", "*-*-* 12:00:00"},
	{"*:0/15", "*-*-* *:00/15:00"},
	{"*:*:00", "*-*-* *:*:00"},
	{"*-*-* *:*:*", "*-*-* *:*:*"},
	{"1/2:00", "*-*-* 01/2:00:00"},
	{"Mon 0/2:00", "Mon *-*-* 00/2:00:00"},
	{"8..18/2:00", "*-*-* 08..18/2:00:00"},
	{"3,1,2:00", "*-*-* 01,02,03:00:00"},
	{"1..3:00", "*-*-* 01..03:00:00"},
	{"1..5/2:00", "*-*-* 01..05/2:00:00"},
	{"Mon *-*-* 0:0", "Mon *-*-* 00:00:00"},
	{"Fri *-*-* 23:59:59", "Fri *-*-* 23:59:59"},
	{"*-*-* 00:00:00.5", "*-*-* 00:00:00.500000"},
	{"00:00:00 UTC", "*-*-* 00:00:00 UTC"},
	{"junk", ""},
	{"9:00 Mon", ""},
	{"*:*/15", ""},
	{"*-*-* */2:00", ""},
	{"* *:*", ""},
}

// TestNormalizeCalendar: calendar specs read back as systemd writes them
// out, and those systemd refuses are refused.
func TestNormalizeCalendar(t *testing.T) {
	for _, tc := range calendarCases {
		t.Run(tc.spec, func(t *testing.T) {
			got, ok := normalizeCalendar(tc.spec)
			if !ok {
				got = ""
			}
			if got != tc.want {
				t.Errorf("normalizeCalendar(%q) = %q, %v; want %q", tc.spec, got, ok, tc.want)
			}
		})
	}
}

// TestNormalizeCalendarCrossCheck holds the cases against the host's
// systemd-analyze, when there is one (they were written from systemd
// 252's; another release may differ).
func TestNormalizeCalendarCrossCheck(t *testing.T) {
	bin, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Skip("systemd-analyze not found:", err)
	}
	for _, tc := range calendarCases {
		out, err := exec.Command(bin, "calendar", tc.spec).CombinedOutput()
		want := ""
		for _, line := range strings.Split(string(out), "\n") {
			if _, form, ok := strings.Cut(line, "Normalized form: "); ok && err == nil {
				want = strings.TrimSpace(form)
			}
		}
		got, _ := normalizeCalendar(tc.spec)
		if got != want {
			t.Errorf("normalizeCalendar(%q) = %q; systemd-analyze calendar: %q", tc.spec, got, want)
		}
	}
}

// FuzzNormalizeCalendar: any string is parsed or refused without a panic,
// and a normalized spec normalizes to itself.
func FuzzNormalizeCalendar(f *testing.F) {
	for _, tc := range calendarCases {
		f.Add(tc.spec)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		got, ok := normalizeCalendar(spec)
		if !ok {
			return
		}
		again, ok := normalizeCalendar(got)
		if !ok || again != got {
			t.Errorf("normalizeCalendar(%q) = %q, which normalizes to %q, %v", spec, got, again, ok)
		}
	})
}
