package sdversions

import (
	"bytes"
	"encoding/xml"
	"os"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// loadAll loads every captured release of data/.
func loadAll(t *testing.T) map[string]*Capture {
	t.Helper()
	fsys := os.DirFS(".")
	rels, err := CapturedReleases(fsys)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"247", "252", "257", "262"}, rels); diff != "" {
		t.Fatalf("captured releases (-want +got):\n%s", diff)
	}
	out := map[string]*Capture{}
	for _, r := range rels {
		c, err := LoadCapture(fsys, r)
		if err != nil {
			t.Fatal(err)
		}
		out[r] = c
	}
	return out
}

// The captured data is whole and self-consistent: every object captured
// without error, every interface the same on every object that has it
// (one table per interface describes a release), every value reads back
// as a variant of its signature and encodes to the same JSON, the
// signatures and names are the XML's, and GetAll("") answered the names
// GetAll of each interface did.
func TestCapturedData(t *testing.T) {
	for rel, c := range loadAll(t) {
		t.Run(rel, func(t *testing.T) {
			if len(c.Objects) != 19 {
				t.Errorf("%d objects, want 19", len(c.Objects))
			}
			ifaces := c.Interfaces()
			for _, kind := range keys(c.Objects) {
				for _, in := range c.Objects[kind].Node.Interfaces {
					want, _ := xml.Marshal(ifaces[in.Name])
					got, _ := xml.Marshal(in)
					if diff := cmp.Diff(string(want), string(got)); diff != "" {
						t.Errorf("%s: %s differs from the first object's that has it (-first +%s):\n%s", kind, in.Name, kind, diff)
					}
				}
			}
			for kind, o := range c.Objects {
				if len(o.Errors) > 0 {
					t.Errorf("%s: errors %q", kind, o.Errors)
				}
				xmlProps := map[string]string{} // interface.name -> type
				var xmlNames []string
				for _, in := range o.Node.Interfaces {
					for _, p := range in.Properties {
						xmlProps[in.Name+"."+p.Name] = p.Type
						xmlNames = append(xmlNames, in.Name+"."+p.Name)
					}
				}
				var got []string
				names := map[string]bool{}
				for _, p := range o.Properties {
					got = append(got, p.Interface+"."+p.Name)
					names[p.Name] = true
					if want := xmlProps[p.Interface+"."+p.Name]; p.Type != want {
						t.Errorf("%s: %s.%s is %s, the XML says %q", kind, p.Interface, p.Name, p.Type, want)
					}
					v, err := p.Variant()
					if err != nil {
						t.Errorf("%s: %v", kind, err)
						continue
					}
					if v.Signature().String() != p.Type {
						t.Errorf("%s: %s read back as %s", kind, p.Name, v.Signature())
					}
					j, err := ValueJSON(v)
					if err != nil {
						t.Errorf("%s: %v", kind, err)
					} else if !bytes.Equal(j, p.Value) {
						t.Errorf("%s: %s read back as %s, want %s", kind, p.Name, j, p.Value)
					}
				}
				sort.Strings(got)
				sort.Strings(xmlNames)
				if diff := cmp.Diff(xmlNames, got); diff != "" {
					t.Errorf("%s: properties of the XML and of GetAll (-XML +GetAll):\n%s", kind, diff)
				}
				if diff := cmp.Diff(keys(names), append([]string{}, o.GetAllEmpty...)); len(names) > 0 && diff != "" {
					t.Errorf(`%s: GetAll of each interface and GetAll("") (-each +""):\n%s`, kind, diff)
				}
				for _, p := range o.GetOnly {
					if _, ok := xmlProps[p.Interface+"."+p.Name]; ok || names[p.Name] {
						t.Errorf("%s: Get-only %s is listed", kind, p.Name)
					}
					if _, err := p.Variant(); err != nil {
						t.Errorf("%s: %v", kind, err)
					}
				}
			}
		})
	}
}
