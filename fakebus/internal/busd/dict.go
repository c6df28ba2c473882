package busd

import "github.com/godbus/dbus/v5"

// PropDict is an a{sv} dictionary sent in the order of its entries, as
// sd-bus sends Properties.GetAll's (a Go map's order is random). A reply
// body may hold it where it would hold a map[string]dbus.Variant.
type PropDict []PropEntry

// PropEntry is one entry of a PropDict.
type PropEntry struct {
	Name  string
	Value dbus.Variant
}
