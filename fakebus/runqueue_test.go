package fakebus_test

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/sdbus-go/sdbus"
	"github.com/sdbus-go/sdbus/fakebus"
)

// rawWriter is a client of the fake's private socket that writes
// messages as it is told, several in one write if need be, and reads
// what comes back.
type rawWriter struct {
	t      *testing.T
	c      net.Conn
	r      *bufio.Reader
	serial uint32
}

func dialRawWriter(t *testing.T, s *fakebus.Server) *rawWriter {
	t.Helper()
	addr, err := s.PrivateAddress()
	if err != nil {
		t.Fatal(err)
	}
	c, err := net.Dial("unix", strings.TrimPrefix(addr, "unix:path="))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	uid := hex.EncodeToString([]byte(strconv.Itoa(os.Getuid())))
	if _, err := c.Write([]byte("\x00AUTH EXTERNAL " + uid + "\r\n")); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(c)
	if line, err := r.ReadString('\n'); err != nil || !strings.HasPrefix(line, "OK ") {
		t.Fatalf("auth: %q, %v", line, err)
	}
	// systemd leaves a small first message that came with BEGIN unread
	// until more bytes arrive (busd.Config.PeerAuthBuffer): the first one
	// is a Ping too long for that, as sdbus's.
	p := &rawWriter{t: t, c: c, r: r}
	ping, serial := p.encode(&dbus.Message{Type: dbus.TypeMethodCall, Headers: map[dbus.HeaderField]dbus.Variant{
		dbus.FieldPath:      dbus.MakeVariant(managerPath + "/" + dbus.ObjectPath(strings.Repeat("p", 256))),
		dbus.FieldInterface: dbus.MakeVariant("org.freedesktop.DBus.Peer"),
		dbus.FieldMember:    dbus.MakeVariant("Ping"),
	}})
	p.write([]byte("BEGIN\r\n"), ping)
	p.reply(serial)
	return p
}

// call encodes a Manager method call and returns its bytes and serial.
func (p *rawWriter) call(member string, args ...any) ([]byte, uint32) {
	p.t.Helper()
	m := &dbus.Message{Type: dbus.TypeMethodCall, Headers: map[dbus.HeaderField]dbus.Variant{
		dbus.FieldPath:        dbus.MakeVariant(managerPath),
		dbus.FieldInterface:   dbus.MakeVariant(managerIface),
		dbus.FieldMember:      dbus.MakeVariant(member),
		dbus.FieldDestination: dbus.MakeVariant(systemd1),
	}, Body: args}
	if len(args) > 0 {
		m.Headers[dbus.FieldSignature] = dbus.MakeVariant(dbus.SignatureOf(args...))
	}
	return p.encode(m)
}

// encode encodes m with the next serial and returns its bytes and serial.
func (p *rawWriter) encode(m *dbus.Message) ([]byte, uint32) {
	p.t.Helper()
	p.serial++
	var b bytes.Buffer
	if err := m.EncodeTo(&b, binary.LittleEndian); err != nil {
		p.t.Fatal(err)
	}
	data := b.Bytes()
	binary.LittleEndian.PutUint32(data[8:12], p.serial) // the header's serial
	return data, p.serial
}

func (p *rawWriter) write(data ...[]byte) {
	p.t.Helper()
	if _, err := p.c.Write(bytes.Join(data, nil)); err != nil {
		p.t.Fatal(err)
	}
}

// reply reads until the reply to serial and returns its body.
func (p *rawWriter) reply(serial uint32) []any {
	p.t.Helper()
	for {
		m, err := dbus.DecodeMessage(p.r)
		if err != nil {
			p.t.Fatal(err)
		}
		if m.Type != dbus.TypeMethodReply && m.Type != dbus.TypeError {
			continue
		}
		if rs, _ := m.Headers[dbus.FieldReplySerial].Value().(uint32); rs != serial {
			continue
		}
		if m.Type == dbus.TypeError {
			p.t.Fatalf("error reply: %v", m.Body)
		}
		return m.Body
	}
}

// listed returns the ListUnits row of name: its active state and job type
// ("" when not listed).
func listed(t *testing.T, body []any, name string) (active, jobType string) {
	t.Helper()
	var rows []struct {
		Name, Description, LoadState, ActiveState, SubState, Following string
		Path                                                           dbus.ObjectPath
		JobID                                                          uint32
		JobType                                                        string
		JobPath                                                        dbus.ObjectPath
	}
	if err := dbus.Store(body, &rows); err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if r.Name == name {
			return r.ActiveState, r.JobType
		}
	}
	return "", ""
}

func runQueueServer(t *testing.T) *fakebus.Server {
	return fakebus.New(t, fakebus.WithUnitFile(fakebus.UnitFile{Name: "rq.service", Active: true, Properties: []sdbus.Property{
		sdbus.PropExecStart([]string{"/bin/sleep", "infinity"}, false),
	}}))
}

// TestRunQueueWaitsForPendingCall: a call that had arrived when a job was
// queued (here the same client's next message, sent in the same write)
// is answered before the job runs, as systemd runs its run queue at idle
// priority: ListUnits sees the unit still active with its stop job.
func TestRunQueueWaitsForPendingCall(t *testing.T) {
	s := runQueueServer(t)
	p := dialRawWriter(t, s)
	stop, stopSerial := p.call("StopUnit", "rq.service", "replace")
	list, listSerial := p.call("ListUnits")
	p.write(stop, list)
	p.reply(stopSerial)
	if active, job := listed(t, p.reply(listSerial), "rq.service"); active != "active" || job != "stop" {
		t.Errorf("ListUnits right behind StopUnit: rq.service %q with job %q, want active with a stop job", active, job)
	}
	// The job ran once the manager was idle: the unit stopped and was
	// unloaded.
	list, listSerial = p.call("ListUnits")
	p.write(list)
	if active, _ := listed(t, p.reply(listSerial), "rq.service"); active != "" {
		t.Errorf("after the stop: rq.service listed %q, want it unloaded", active)
	}
}

// TestRunQueueAfterReply: a call the client sends once the reply came
// sees the job done, as on systemd.
func TestRunQueueAfterReply(t *testing.T) {
	s := runQueueServer(t)
	p := dialRawWriter(t, s)
	stop, stopSerial := p.call("StopUnit", "rq.service", "replace")
	p.write(stop)
	p.reply(stopSerial)
	list, listSerial := p.call("ListUnits")
	p.write(list)
	if active, job := listed(t, p.reply(listSerial), "rq.service"); active != "" {
		t.Errorf("ListUnits after StopUnit's reply: rq.service %q with job %q, want it unloaded", active, job)
	}
}
