module github.com/sdbus-go/sdbus

go 1.21

require (
	github.com/godbus/dbus/v5 v5.2.4
	github.com/google/go-cmp v0.7.0
	go.uber.org/goleak v1.3.0
)

require golang.org/x/sys v0.27.0

require pgregory.net/rapid v1.2.0
