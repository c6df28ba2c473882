package fakebus

// Calendar specs, as a timer's OnCalendar= takes them and TimersCalendar
// shows them (systemd.time(7); systemd's src/shared/calendarspec.c): the
// fake parses a spec and writes it out in systemd's normalized form, so
// "Mon 9:00" reads back "Mon *-*-* 09:00:00" and "daily" "*-*-*
// 00:00:00". What it does not parse, it refuses, as systemd refuses an
// invalid spec (the assignment is ignored).
//
// The grammar taken: an optional weekday list (names, full or
// abbreviated, in any case; ranges "Mon..Fri" or "Mon-Fri"), then a date
// ([YEAR-]MONTH-DAY, or MONTH~DAY counting from the month's end) and a
// time (HOUR:MINUTE[:SECOND], seconds with up to six decimals), either
// may be left out (every day; midnight), then an optional time zone (UTC
// or a name of the zone database). Each component is "*" or a comma list
// of values, ranges "A..B" and repetitions "A/R" or "A..B/R". A two-digit
// year is 1970 to 2069. The fake does not check that a date exists.

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// calendarShorthands are the calendar specs systemd names by a word, as
// it writes them out.
var calendarShorthands = map[string]string{
	"minutely":     "*-*-* *:*:00",
	"hourly":       "*-*-* *:00:00",
	"daily":        "*-*-* 00:00:00",
	"weekly":       "Mon *-*-* 00:00:00",
	"monthly":      "*-*-01 00:00:00",
	"quarterly":    "*-01,04,07,10-01 00:00:00",
	"semiannually": "*-01,07-01 00:00:00",
	"yearly":       "*-01-01 00:00:00",
	"annually":     "*-01-01 00:00:00",
}

// weekdayNames are the days as systemd writes them, weekdayFullNames as
// it also reads them.
var (
	weekdayNames     = []string{"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"}
	weekdayFullNames = []string{"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"}
)

// normalizeCalendar returns spec in systemd's normalized form, or false
// if it is not a calendar spec the fake parses.
func normalizeCalendar(spec string) (string, bool) {
	spec = strings.TrimSpace(spec)
	if full, ok := calendarShorthands[strings.ToLower(spec)]; ok {
		return full, true
	}
	fields := strings.Fields(spec)
	tz := ""
	if n := len(fields); n > 1 && isTimeZone(fields[n-1]) {
		tz, fields = fields[n-1], fields[:n-1]
	}
	var out []string
	if len(fields) > 0 && isLetter(fields[0][0]) {
		days, ok := parseWeekdays(fields[0])
		if !ok {
			return "", false
		}
		out, fields = append(out, days), fields[1:]
	}
	date, clock := "*-*-*", "00:00:00"
	switch len(fields) {
	case 0:
		if len(out) == 0 {
			return "", false
		}
	case 1:
		var ok bool
		if strings.Contains(fields[0], ":") {
			clock, ok = parseClock(fields[0])
		} else {
			date, ok = parseDate(fields[0])
		}
		if !ok {
			return "", false
		}
	case 2:
		var ok1, ok2 bool
		date, ok1 = parseDate(fields[0])
		clock, ok2 = parseClock(fields[1])
		if !ok1 || !ok2 {
			return "", false
		}
	default:
		return "", false
	}
	out = append(out, date, clock)
	if tz != "" {
		out = append(out, tz)
	}
	return strings.Join(out, " "), true
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// isTimeZone reports whether s names a time zone systemd takes: UTC, or
// a zone of the system's database.
func isTimeZone(s string) bool {
	if s == "UTC" {
		return true
	}
	if !isLetter(s[0]) || strings.Contains(s, "..") {
		return false
	}
	fi, err := os.Stat(filepath.Join("/usr/share/zoneinfo", s))
	return err == nil && fi.Mode().IsRegular()
}

// parseWeekdays reads a weekday list into systemd's form: the days in
// week order, a run of three or more as "A..B", shorter ones listed.
func parseWeekdays(s string) (string, bool) {
	day := func(name string) (int, bool) {
		name = strings.ToLower(name)
		for i, full := range weekdayFullNames {
			if name == full || name == full[:3] {
				return i, true
			}
		}
		return 0, false
	}
	var bits [7]bool
	for _, item := range strings.Split(s, ",") {
		a, b, isRange := strings.Cut(item, "..")
		if !isRange {
			a, b, isRange = strings.Cut(item, "-")
		}
		from, ok := day(a)
		if !ok {
			return "", false
		}
		to := from
		if isRange {
			if to, ok = day(b); !ok {
				return "", false
			}
		}
		for i := from; ; i = (i + 1) % 7 {
			bits[i] = true
			if i == to {
				break
			}
		}
	}
	var parts []string
	for i := 0; i < 7; {
		if !bits[i] {
			i++
			continue
		}
		j := i
		for j+1 < 7 && bits[j+1] {
			j++
		}
		switch {
		case j-i >= 2:
			parts = append(parts, weekdayNames[i]+".."+weekdayNames[j])
		case j > i:
			parts = append(parts, weekdayNames[i], weekdayNames[j])
		default:
			parts = append(parts, weekdayNames[i])
		}
		i = j + 1
	}
	return strings.Join(parts, ","), true
}

// parseDate reads [YEAR-]MONTH-DAY or [YEAR-]MONTH~DAY.
func parseDate(s string) (string, bool) {
	sep := "-"
	if strings.Count(s, "~") == 1 {
		sep = "~"
	}
	var comps []string
	if sep == "~" {
		head, day, _ := strings.Cut(s, "~")
		comps = append(strings.Split(head, "-"), day)
	} else {
		comps = strings.Split(s, "-")
	}
	switch len(comps) {
	case 2:
		comps = append([]string{"*"}, comps...)
	case 3:
	default:
		return "", false
	}
	year, ok1 := component(comps[0], 4, true)
	month, ok2 := component(comps[1], 2, false)
	day, ok3 := component(comps[2], 2, false)
	if !ok1 || !ok2 || !ok3 {
		return "", false
	}
	return year + "-" + month + sep + day, true
}

// parseClock reads HOUR:MINUTE[:SECOND]; seconds default to 00.
func parseClock(s string) (string, bool) {
	comps := strings.Split(s, ":")
	switch len(comps) {
	case 2:
		comps = append(comps, "00")
	case 3:
	default:
		return "", false
	}
	hour, ok1 := component(comps[0], 2, false)
	minute, ok2 := component(comps[1], 2, false)
	second, ok3 := seconds(comps[2])
	if !ok1 || !ok2 || !ok3 {
		return "", false
	}
	return hour + ":" + minute + ":" + second, true
}

// seconds reads the seconds component: a component, or one value with a
// fraction, written with six decimals.
func seconds(s string) (string, bool) {
	whole, frac, ok := strings.Cut(s, ".")
	if !ok {
		return component(s, 2, false)
	}
	if len(frac) == 0 || len(frac) > 6 {
		return "", false
	}
	n, err1 := strconv.Atoi(whole)
	f, err2 := strconv.Atoi(frac + strings.Repeat("0", 6-len(frac)))
	if err1 != nil || err2 != nil || n < 0 || n > 59 || strings.ContainsAny(whole+frac, "+-") {
		return "", false
	}
	return fmt.Sprintf("%02d.%06d", n, f), true
}

// calendarItem is one element of a component's list.
type calendarItem struct{ from, to, repeat int }

// component reads "*" or a comma list of values, ranges and repetitions,
// each value written with width digits; a year's two-digit values are
// 1970 to 2069. The list is sorted, without repeats.
func component(s string, width int, year bool) (string, bool) {
	if s == "*" {
		return s, true
	}
	num := func(v string) (int, bool) {
		if v == "" || strings.ContainsAny(v, "+-") {
			return 0, false
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return 0, false
		}
		if year && len(v) <= 2 {
			if n < 70 {
				n += 2000
			} else {
				n += 1900
			}
		}
		return n, true
	}
	var items []calendarItem
	for _, item := range strings.Split(s, ",") {
		body, rep, hasRep := strings.Cut(item, "/")
		a, b, isRange := strings.Cut(body, "..")
		from, ok := num(a)
		if !ok {
			return "", false
		}
		it := calendarItem{from: from, to: -1}
		if isRange {
			if it.to, ok = num(b); !ok || it.to < from {
				return "", false
			}
		}
		if hasRep {
			r, err := strconv.Atoi(rep)
			if err != nil || r <= 0 {
				return "", false
			}
			it.repeat = r
		}
		items = append(items, it)
	}
	sort.Slice(items, func(i, j int) bool {
		a, b := items[i], items[j]
		if a.from != b.from {
			return a.from < b.from
		}
		if a.to != b.to {
			return a.to < b.to
		}
		return a.repeat < b.repeat
	})
	var parts []string
	for i, it := range items {
		if i > 0 && it == items[i-1] {
			continue
		}
		p := fmt.Sprintf("%0*d", width, it.from)
		if it.to >= 0 {
			p += fmt.Sprintf("..%0*d", width, it.to)
		}
		if it.repeat > 0 {
			p += "/" + strconv.Itoa(it.repeat)
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, ","), true
}
