module github.com/sdbus-go/sdbus/bench

go 1.23

require (
	github.com/coreos/go-systemd/v22 v22.7.0
	github.com/godbus/dbus/v5 v5.2.4
	github.com/google/go-cmp v0.7.0
	github.com/sdbus-go/sdbus v0.0.0-00010101000000-000000000000
)

require golang.org/x/sys v0.27.0 // indirect

replace github.com/sdbus-go/sdbus => ../
