package sdbus_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus"
)

func TestParseVersion(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want sdbus.Version
	}{
		// The forms distributions ship (issue 11).
		{"219", sdbus.Version{Major: 219, Raw: "219"}},
		{"239 (239-41.el8_3.2)", sdbus.Version{Major: 239, Distro: "41.el8_3.2", Raw: "239 (239-41.el8_3.2)"}},
		{"239 (239-78.el8)", sdbus.Version{Major: 239, Distro: "78.el8", Raw: "239 (239-78.el8)"}},
		{"252-51.el9", sdbus.Version{Major: 252, Distro: "51.el9", Raw: "252-51.el9"}},
		{"247.3-7+deb11u5", sdbus.Version{Major: 247, Minor: 3, Distro: "7+deb11u5", Raw: "247.3-7+deb11u5"}},
		{"252.38-1~deb12u1", sdbus.Version{Major: 252, Minor: 38, Distro: "1~deb12u1", Raw: "252.38-1~deb12u1"}},
		{"249.11-0ubuntu3.12", sdbus.Version{Major: 249, Minor: 11, Distro: "0ubuntu3.12", Raw: "249.11-0ubuntu3.12"}},
		{"255.4-1ubuntu8.4", sdbus.Version{Major: 255, Minor: 4, Distro: "1ubuntu8.4", Raw: "255.4-1ubuntu8.4"}},
		{"256.11-1.fc41", sdbus.Version{Major: 256, Minor: 11, Distro: "1.fc41", Raw: "256.11-1.fc41"}},
		{"257.13-1~deb13u1", sdbus.Version{Major: 257, Minor: 13, Distro: "1~deb13u1", Raw: "257.13-1~deb13u1"}},
		{"262.1-1", sdbus.Version{Major: 262, Minor: 1, Distro: "1", Raw: "262.1-1"}},
		{"v256.7", sdbus.Version{Major: 256, Minor: 7, Raw: "v256.7"}},
		{"257-rc1", sdbus.Version{Major: 257, Pre: "rc1", Raw: "257-rc1"}},
		{"254.5+suse.17.g7b8c8f0d88", sdbus.Version{Major: 254, Minor: 5, Distro: "suse.17.g7b8c8f0d88", Raw: "254.5+suse.17.g7b8c8f0d88"}},
		// Other spellings.
		{"v245.4-1.fc32", sdbus.Version{Major: 245, Minor: 4, Distro: "1.fc32", Raw: "v245.4-1.fc32"}},
		{"245", sdbus.Version{Major: 245, Raw: "245"}},
		{"245-1.fc32", sdbus.Version{Major: 245, Distro: "1.fc32", Raw: "245-1.fc32"}},
		{"257~rc2", sdbus.Version{Major: 257, Pre: "rc2", Raw: "257~rc2"}},
		{"257-rc2", sdbus.Version{Major: 257, Pre: "rc2", Raw: "257-rc2"}},
		{"257-rc2-1", sdbus.Version{Major: 257, Pre: "rc2", Distro: "1", Raw: "257-rc2-1"}},
		{"256~rc3-1ubuntu1", sdbus.Version{Major: 256, Pre: "rc3", Distro: "1ubuntu1", Raw: "256~rc3-1ubuntu1"}},
		{"255.4-1ubuntu8", sdbus.Version{Major: 255, Minor: 4, Distro: "1ubuntu8", Raw: "255.4-1ubuntu8"}},
		{"245.4-4ubuntu3.11", sdbus.Version{Major: 245, Minor: 4, Distro: "4ubuntu3.11", Raw: "245.4-4ubuntu3.11"}},
		{"v246", sdbus.Version{Major: 246, Raw: "v246"}},
		{"245 (v245.4-1.fc32)", sdbus.Version{Major: 245, Minor: 4, Distro: "1.fc32", Raw: "245 (v245.4-1.fc32)"}},
		{"239 (something else)", sdbus.Version{Major: 239, Distro: "something else", Raw: "239 (something else)"}},
		{"252-rcx", sdbus.Version{Major: 252, Distro: "rcx", Raw: "252-rcx"}},
		{"252abc", sdbus.Version{Major: 252, Distro: "abc", Raw: "252abc"}},
		{"252 38", sdbus.Version{Major: 252, Distro: "38", Raw: "252 38"}},
		{"252.", sdbus.Version{Major: 252, Raw: "252."}},
		{"252-", sdbus.Version{Major: 252, Raw: "252-"}},
		{"252.x", sdbus.Version{Major: 252, Distro: "x", Raw: "252.x"}},
		{"252~", sdbus.Version{Major: 252, Raw: "252~"}},
		// GVariant text and surrounding space.
		{`"252.4-1"`, sdbus.Version{Major: 252, Minor: 4, Distro: "1", Raw: "252.4-1"}},
		{`"239 (239-41.el8_3.2)"`, sdbus.Version{Major: 239, Distro: "41.el8_3.2", Raw: "239 (239-41.el8_3.2)"}},
		{`'252'`, sdbus.Version{Major: 252, Raw: "252"}},
		{`" 252 "`, sdbus.Version{Major: 252, Raw: "252"}},
		{" 253.1 \n", sdbus.Version{Major: 253, Minor: 1, Raw: "253.1"}},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := sdbus.ParseVersion(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("ParseVersion(%q) (-want +got):\n%s", tc.in, diff)
			}
		})
	}
}

func TestParseVersionRejectsGarbage(t *testing.T) {
	for _, in := range []string{
		"", "v", "abc", "systemd", "-1", ".5", "(239)", "v 252", "~252", "systemd 252",
		`"252`, `'252`, `"25"2"`, "٢٥٢", "252\x00", "252\x00x", "\x00252", "252\tx", "252\xff", `"252\xff"`,
		`"252\x00"`, "9999999999", "252.9999999999", "1234567890.1",
	} {
		t.Run(strconv.Quote(in), func(t *testing.T) {
			v, err := sdbus.ParseVersion(in)
			if err == nil {
				t.Fatalf("ParseVersion(%q) = %+v, want an error", in, v)
			}
			if !errors.Is(err, sdbus.ErrInvalidArgs) {
				t.Errorf("error %v does not match ErrInvalidArgs", err)
			}
		})
	}
}

func TestVersionCompare(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"252", "252.38-1~deb12u1", -1},
		{"252.38-1~deb12u1", "252.38-2", 0},
		{"257~rc2", "257", -1},
		{"257~rc1", "257~rc2", -1},
		{"256.1", "257~rc1", -1},
		{"v245", "244.5", 1},
	} {
		a, _ := sdbus.ParseVersion(tc.a)
		b, _ := sdbus.ParseVersion(tc.b)
		if got := a.Compare(b); got != tc.want {
			t.Errorf("Compare(%s, %s) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
		if got := b.Compare(a); got != -tc.want {
			t.Errorf("Compare(%s, %s) = %d, want %d", tc.b, tc.a, got, -tc.want)
		}
	}
	v, _ := sdbus.ParseVersion("257~rc2")
	if !v.AtLeast(257) || v.AtLeast(258) {
		t.Errorf("AtLeast wrong for %v", v)
	}
}

// Conn.Version reads Manager.Version, parses it, and caches only a
// success.
func TestConnVersionCachesSuccessOnly(t *testing.T) {
	leakCheck(t)
	ctx := testCtx(t)
	s := fakebus.New(t, fakebus.WithVersion("245.4-1ubuntu3"))
	c := s.Conn(t)
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := c.Version(canceled); !errors.Is(err, context.Canceled) {
		t.Fatalf("Version with a canceled ctx = %v", err)
	}
	v, err := c.Version(ctx) // the failure was not cached
	if err != nil || v.Major != 245 || v.Raw != "245.4-1ubuntu3" {
		t.Fatalf("Version = %+v, %v", v, err)
	}
	if err := s.SetVersion("999"); err != nil {
		t.Fatal(err)
	}
	if v, _ := c.Version(ctx); v.Major != 245 {
		t.Errorf("Version not cached: %+v", v)
	}
	if v, _ := s.Conn(t).Version(ctx); v.Major != 999 {
		t.Errorf("a new Conn sees %+v, want 999", v)
	}
}

// Every Version string distributions ship reaches the caller parsed, from
// the fake's WithVersion through Conn.Version, and version gates see its
// major release (RHEL 8's used to fail and leave every gate "unknown").
func TestConnVersionDistributions(t *testing.T) {
	leakCheck(t)
	ctx := testCtx(t)
	for _, tc := range []struct {
		version      string
		major, minor int
		rejected     []string // by PropertiesRejectedBy for a scope
	}{
		{"219", 219, 0, []string{"CollectMode", "OOMPolicy"}},
		{"239 (239-41.el8_3.2)", 239, 0, []string{"OOMPolicy"}},
		{"252-51.el9", 252, 0, []string{"OOMPolicy"}},
		{"247.3-7+deb11u5", 247, 3, []string{"OOMPolicy"}},
		{"249.11-0ubuntu3.12", 249, 11, []string{"OOMPolicy"}},
		{"256.11-1.fc41", 256, 11, nil},
		{"v256.7", 256, 7, nil},
		{"257-rc1", 257, 0, nil},
		{"254.5+suse.17.g7b8c8f0d88", 254, 5, nil},
		{"262.1-1", 262, 1, nil},
	} {
		t.Run(tc.version, func(t *testing.T) {
			c := fakebus.New(t, fakebus.WithVersion(tc.version)).Conn(t)
			v, err := c.Version(ctx)
			if err != nil {
				t.Fatal(err)
			}
			type got struct {
				Raw          string
				Major, Minor int
				Rejected     []string
			}
			want := got{tc.version, tc.major, tc.minor, tc.rejected}
			rejected := sdbus.PropertiesRejectedBy(v, "a.scope", []sdbus.Property{
				sdbus.PropCollectMode(sdbus.CollectInactiveOrFailed), sdbus.PropOOMPolicy(sdbus.OOMKill),
			})
			if diff := cmp.Diff(want, got{v.Raw, v.Major, v.Minor, rejected}); diff != "" {
				t.Errorf("Version (-want +got):\n%s", diff)
			}
		})
	}
}

func FuzzParseVersion(f *testing.F) {
	for _, s := range []string{
		"219", "239 (239-41.el8_3.2)", "252-51.el9", "247.3-7+deb11u5", "252.38-1~deb12u1", "249.11-0ubuntu3.12",
		"256.11-1.fc41", "262.1-1", "v256.7", "257-rc1", "257~rc2", "254.5+suse.17.g7b8c8f0d88", `"252.4-1"`, "'252'",
		"v245.4-1.fc32", "x", "", "252\x00", "\xff",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := sdbus.ParseVersion(s)
		if err != nil {
			if !errors.Is(err, sdbus.ErrInvalidArgs) {
				t.Fatalf("error %v does not match ErrInvalidArgs", err)
			}
			return
		}
		if v.Major < 0 || v.Minor < 0 {
			t.Fatalf("negative numbers in %+v", v)
		}
		if !utf8.ValidString(v.Raw) || strings.ContainsRune(v.Raw, 0) {
			t.Fatalf("Raw %q is not text systemd could send", v.Raw)
		}
		if d := strings.TrimPrefix(v.Raw, "v"); d == "" || d[0] < '0' || d[0] > '9' {
			t.Fatalf("Raw %q has no leading version number", v.Raw)
		}
		// The raw form parses to the same version, quoted or not.
		again, err := sdbus.ParseVersion(v.Raw)
		if err != nil || again != v {
			t.Fatalf("ParseVersion(%q) = %+v, %v; want %+v", v.Raw, again, err, v)
		}
		quoted, err := sdbus.ParseVersion(strconv.Quote(v.Raw))
		if err != nil || quoted != v {
			t.Fatalf("ParseVersion(%q) = %+v, %v; want %+v", strconv.Quote(v.Raw), quoted, err, v)
		}
		if s := v.String(); s != v.Raw {
			t.Fatalf("String() = %q, want %q", s, v.Raw)
		}
	})
}
