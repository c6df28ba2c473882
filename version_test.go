package sdbus_test

import (
	"context"
	"errors"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus"
)

func TestParseVersion(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want sdbus.Version
	}{
		{"252.38-1~deb12u1", sdbus.Version{Major: 252, Minor: 38, Distro: "1~deb12u1", Raw: "252.38-1~deb12u1"}},
		{"v245.4-1.fc32", sdbus.Version{Major: 245, Minor: 4, Distro: "1.fc32", Raw: "v245.4-1.fc32"}},
		{"245", sdbus.Version{Major: 245, Raw: "245"}},
		{"245-1.fc32", sdbus.Version{Major: 245, Distro: "1.fc32", Raw: "245-1.fc32"}},
		{"257~rc2", sdbus.Version{Major: 257, Pre: "rc2", Raw: "257~rc2"}},
		{"257-rc2", sdbus.Version{Major: 257, Pre: "rc2", Raw: "257-rc2"}},
		{"256~rc3-1ubuntu1", sdbus.Version{Major: 256, Pre: "rc3", Distro: "1ubuntu1", Raw: "256~rc3-1ubuntu1"}},
		{"255.4-1ubuntu8", sdbus.Version{Major: 255, Minor: 4, Distro: "1ubuntu8", Raw: "255.4-1ubuntu8"}},
		{"245.4-4ubuntu3.11", sdbus.Version{Major: 245, Minor: 4, Distro: "4ubuntu3.11", Raw: "245.4-4ubuntu3.11"}},
		{"v246", sdbus.Version{Major: 246, Raw: "v246"}},
		{`"252.4-1"`, sdbus.Version{Major: 252, Minor: 4, Distro: "1", Raw: "252.4-1"}},
		{`'252'`, sdbus.Version{Major: 252, Raw: "252"}},
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
		"", "v", "abc", "systemd", "-1", ".5", "252abc", "252 38", "252.", "252.x", "252~", "252-",
		`"252`, `'252`, `"25"2"`, "٢٥٢", "252\x00", "9999999999",
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

func FuzzParseVersion(f *testing.F) {
	for _, s := range []string{"252.38-1~deb12u1", "v245.4-1.fc32", "245", "257~rc2", `"252.4-1"`, "'252'", "257-rc2", "x", ""} {
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
