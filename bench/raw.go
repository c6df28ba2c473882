package bench

import (
	"context"
	"fmt"
	"sync"

	"github.com/godbus/dbus/v5"
)

const (
	systemdName  = "org.freedesktop.systemd1"
	managerPath  = dbus.ObjectPath("/org/freedesktop/systemd1")
	managerIface = "org.freedesktop.systemd1.Manager"
)

// Raw is the smallest correct pipelined job loop on godbus, standing for
// what systemd itself allows: one connection; the JobRemoved match rule
// installed before the first call; calls from any number of goroutines in
// flight at once; one dispatcher goroutine reading JobRemoved signals and
// handing each result to the waiter registered for its job path. A result
// that arrives before its call's reply is kept while a call is in flight.
//
// It does none of what sdbus adds: no sender check against the name's
// owner, no property validation, no typed errors, no late-reply
// cancellation, no context on the wait beyond the caller's select.
type Raw struct {
	conn *dbus.Conn
	obj  dbus.BusObject
	sigs chan *dbus.Signal
	done chan struct{} // closed when the dispatcher returns

	mu       sync.Mutex
	waiters  map[dbus.ObjectPath]chan string
	early    map[dbus.ObjectPath]string // results seen before their reply
	inFlight int
}

// DialRaw connects to the bus at address. With subscribe, it also calls
// Manager.Subscribe, as sdbus does while it watches a unit; systemd does
// not need it to send the JobRemoved of a job to the client that
// requested it, but once anybody is subscribed it broadcasts every unit
// change on the bus.
func DialRaw(ctx context.Context, address string, subscribe bool) (*Raw, error) {
	conn, err := DialGodbus(ctx, address)
	if err != nil {
		return nil, err
	}
	r := &Raw{
		conn:    conn,
		obj:     conn.Object(systemdName, managerPath),
		sigs:    make(chan *dbus.Signal, 4096),
		done:    make(chan struct{}),
		waiters: map[dbus.ObjectPath]chan string{},
		early:   map[dbus.ObjectPath]string{},
	}
	conn.Signal(r.sigs)
	go r.dispatch()
	err = conn.AddMatchSignalContext(ctx, dbus.WithMatchSender(systemdName),
		dbus.WithMatchObjectPath(managerPath), dbus.WithMatchInterface(managerIface),
		dbus.WithMatchMember("JobRemoved"))
	if err == nil && subscribe {
		err = r.obj.CallWithContext(ctx, managerIface+".Subscribe", 0).Err
	}
	if err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

// dispatch runs until the connection closes, which closes r.sigs.
func (r *Raw) dispatch() {
	defer close(r.done)
	for s := range r.sigs {
		if s.Name != managerIface+".JobRemoved" || len(s.Body) != 4 {
			continue
		}
		path, _ := s.Body[1].(dbus.ObjectPath)
		result, _ := s.Body[3].(string)
		r.mu.Lock()
		if ch, ok := r.waiters[path]; ok {
			delete(r.waiters, path)
			ch <- result // buffered, never blocks
		} else if r.inFlight > 0 {
			r.early[path] = result
		}
		r.mu.Unlock()
	}
}

// job makes a job call and waits for the job's result.
func (r *Raw) job(ctx context.Context, unit, method string, args ...any) error {
	r.mu.Lock()
	r.inFlight++
	r.mu.Unlock()
	var path dbus.ObjectPath
	err := r.obj.CallWithContext(ctx, managerIface+"."+method, 0, args...).Store(&path)
	r.mu.Lock()
	r.inFlight--
	result, early := r.early[path]
	var ch chan string
	switch {
	case err != nil:
	case early:
		delete(r.early, path)
	default:
		ch = make(chan string, 1)
		r.waiters[path] = ch
	}
	if r.inFlight == 0 {
		clear(r.early) // nobody can claim these any more
	}
	r.mu.Unlock()
	if err != nil {
		return err
	}
	if ch != nil {
		select {
		case result = <-ch:
		case <-ctx.Done():
			r.mu.Lock()
			delete(r.waiters, path)
			r.mu.Unlock()
			return ctx.Err()
		}
	}
	if result != "done" {
		return fmt.Errorf("%s: job %s", unit, result)
	}
	return nil
}

type rawProp struct {
	Name  string
	Value dbus.Variant
}

var rawProps = []rawProp{{"Description", dbus.MakeVariant(Description)}}

func (r *Raw) StartSlice(ctx context.Context, name string) error {
	return r.job(ctx, name, "StartTransientUnit", name, "replace", rawProps, []struct {
		Name  string
		Props []rawProp
	}{})
}

func (r *Raw) Stop(ctx context.Context, name string) error {
	return r.job(ctx, name, "StopUnit", name, "replace")
}

// Close closes the connection and waits for the dispatcher.
func (r *Raw) Close() {
	r.conn.Close()
	<-r.done
}
