package sdversions

import (
	"encoding/xml"
	"strings"

	"github.com/godbus/dbus/v5/introspect"
)

// Member is one member of an interface as a release's introspection data
// declares it.
type Member struct {
	// Kind is "method", "property" or "signal".
	Kind string
	Name string
	// Type and Access are a property's: its signature, and "read" or
	// "readwrite".
	Type, Access string
	// Annotations are a property's, in the order given
	// (org.freedesktop.DBus.Property.EmitsChangedSignal when it is not
	// "true", org.freedesktop.systemd1.Privileged on a writable one).
	Annotations []introspect.Annotation
}

// Members returns the members of interface iface in o's introspection
// data in the order given, which is the order systemd declares them in
// its vtable (sd-bus writes the vtable in order, methods, properties and
// signals interleaved as declared), or nil if o has no such interface.
func (o *Object) Members(iface string) []Member {
	d := xml.NewDecoder(strings.NewReader(o.XML))
	d.Strict = false
	var out []Member
	in := false
	for {
		tok, err := d.Token()
		if err != nil {
			return out
		}
		switch t := tok.(type) {
		case xml.StartElement:
			attr := func(n string) string {
				for _, a := range t.Attr {
					if a.Name.Local == n {
						return a.Value
					}
				}
				return ""
			}
			switch t.Name.Local {
			case "interface":
				in = attr("name") == iface
			case "method", "property", "signal":
				if in {
					out = append(out, Member{Kind: t.Name.Local, Name: attr("name"), Type: attr("type"), Access: attr("access")})
				}
			case "annotation":
				if in && len(out) > 0 && out[len(out)-1].Kind == "property" {
					p := &out[len(out)-1]
					p.Annotations = append(p.Annotations, introspect.Annotation{Name: attr("name"), Value: attr("value")})
				}
			}
		case xml.EndElement:
			if t.Name.Local == "interface" && in {
				return out
			}
		}
	}
}

// InterfaceNames returns the names of the interfaces of o's introspection
// data in the order given (sd-bus's order of the object's vtables, which
// GetAll("") follows too).
func (o *Object) InterfaceNames() []string {
	d := xml.NewDecoder(strings.NewReader(o.XML))
	d.Strict = false
	var out []string
	for {
		tok, err := d.Token()
		if err != nil {
			return out
		}
		if t, ok := tok.(xml.StartElement); ok && t.Name.Local == "interface" {
			for _, a := range t.Attr {
				if a.Name.Local == "name" {
					out = append(out, a.Value)
				}
			}
		}
	}
}
