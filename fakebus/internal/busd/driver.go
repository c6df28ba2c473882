package busd

import (
	"strings"

	"github.com/godbus/dbus/v5"
)

// The bus driver: org.freedesktop.DBus at /org/freedesktop/DBus (BusMode only).

const (
	errPrefix            = "org.freedesktop.DBus.Error."
	errAccessDenied      = errPrefix + "AccessDenied"
	errFailed            = errPrefix + "Failed"
	errInvalidArgs       = errPrefix + "InvalidArgs"
	errLimitsExceeded    = errPrefix + "LimitsExceeded"
	errNotSupported      = errPrefix + "NotSupported"
	errMatchRuleInvalid  = errPrefix + "MatchRuleInvalid"
	errMatchRuleNotFound = errPrefix + "MatchRuleNotFound"
	errNameHasNoOwner    = errPrefix + "NameHasNoOwner"
	errServiceUnknown    = errPrefix + "ServiceUnknown"
	errUnknownMethod     = errPrefix + "UnknownMethod"
	errUnknownInterface  = errPrefix + "UnknownInterface"
	errUnknownProperty   = errPrefix + "UnknownProperty"
	errPropertyReadOnly  = errPrefix + "PropertyReadOnly"
)

// RequestName flags and replies, ReleaseName replies, StartServiceByName replies.
const (
	nameFlagAllowReplacement = 0x1
	nameFlagReplaceExisting  = 0x2

	requestNamePrimaryOwner = 1
	requestNameExists       = 3
	requestNameAlreadyOwner = 4

	releaseNameReleased    = 1
	releaseNameNonExistent = 2
	releaseNameNotOwner    = 3

	startReplyAlreadyRunning = 2
)

const driverIntrospection = `<!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
"http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">
<node>
 <interface name="org.freedesktop.DBus">
  <method name="Hello"><arg direction="out" type="s"/></method>
  <method name="RequestName"><arg direction="in" type="s"/><arg direction="in" type="u"/><arg direction="out" type="u"/></method>
  <method name="ReleaseName"><arg direction="in" type="s"/><arg direction="out" type="u"/></method>
  <method name="StartServiceByName"><arg direction="in" type="s"/><arg direction="in" type="u"/><arg direction="out" type="u"/></method>
  <method name="NameHasOwner"><arg direction="in" type="s"/><arg direction="out" type="b"/></method>
  <method name="ListNames"><arg direction="out" type="as"/></method>
  <method name="ListActivatableNames"><arg direction="out" type="as"/></method>
  <method name="AddMatch"><arg direction="in" type="s"/></method>
  <method name="RemoveMatch"><arg direction="in" type="s"/></method>
  <method name="GetNameOwner"><arg direction="in" type="s"/><arg direction="out" type="s"/></method>
  <method name="GetConnectionUnixUser"><arg direction="in" type="s"/><arg direction="out" type="u"/></method>
  <method name="GetConnectionUnixProcessID"><arg direction="in" type="s"/><arg direction="out" type="u"/></method>
  <method name="GetConnectionCredentials"><arg direction="in" type="s"/><arg direction="out" type="a{sv}"/></method>
  <method name="GetId"><arg direction="out" type="s"/></method>
  <method name="ReloadConfig"/>
  <signal name="NameOwnerChanged"><arg type="s"/><arg type="s"/><arg type="s"/></signal>
  <signal name="NameLost"><arg type="s"/></signal>
  <signal name="NameAcquired"><arg type="s"/></signal>
  <property name="Features" type="as" access="read"/>
  <property name="Interfaces" type="as" access="read"/>
 </interface>
 <interface name="org.freedesktop.DBus.Monitoring">
  <method name="BecomeMonitor"><arg direction="in" type="as"/><arg direction="in" type="u"/></method>
 </interface>
 <interface name="org.freedesktop.DBus.Introspectable">
  <method name="Introspect"><arg direction="out" type="s"/></method>
 </interface>
 <interface name="org.freedesktop.DBus.Peer">
  <method name="Ping"/>
  <method name="GetMachineId"><arg direction="out" type="s"/></method>
 </interface>
 <interface name="org.freedesktop.DBus.Properties">
  <method name="Get"><arg direction="in" type="s"/><arg direction="in" type="s"/><arg direction="out" type="v"/></method>
  <method name="GetAll"><arg direction="in" type="s"/><arg direction="out" type="a{sv}"/></method>
  <method name="Set"><arg direction="in" type="s"/><arg direction="in" type="s"/><arg direction="in" type="v"/></method>
 </interface>
</node>
`

// driverReq is one call to the driver being answered.
type driverReq struct {
	b *Bus
	p *Peer
	m *inMsg
}

// reply answers the call (unless no reply is expected).
func (r *driverReq) reply(body ...any) {
	if r.m.flags&dbus.FlagNoReplyExpected != 0 {
		return
	}
	after := r.b.replying(r.p, r.m.member)
	r.b.driverSendLocked(r.p, newReply(r.m.serial, r.p.UniqueName(), driverName, body))
	after()
}

// fail answers the call with an error.
func (r *driverReq) fail(name, text string) {
	if r.m.flags&dbus.FlagNoReplyExpected != 0 {
		return
	}
	after := r.b.replying(r.p, r.m.member)
	r.b.driverSendLocked(r.p, newError(r.m.serial, r.p.UniqueName(), driverName, name, []any{text}))
	after()
}

// args checks the call's signature; on mismatch it answers InvalidArgs.
func (r *driverReq) args(want string) bool {
	if got := r.m.sig; got != want {
		r.fail(errInvalidArgs, "Call to "+r.m.member+" has wrong args ("+got+", expected "+want+")")
		return false
	}
	return true
}

// str returns the i-th body value as a string (args has checked the type).
func (r *driverReq) str(i int) string {
	s, _ := r.m.body[i].(string)
	return s
}

// driverError answers m from p with a driver error.
func (b *Bus) driverError(p *Peer, m *inMsg, name, text string) {
	b.mu.Lock()
	(&driverReq{b: b, p: p, m: m}).fail(name, text)
	b.mu.Unlock()
}

// driverSendLocked queues a driver message for p (and eavesdroppers).
// b.mu must be held.
func (b *Bus) driverSendLocked(p *Peer, m *outMsg) {
	serial := b.driverSerial.next()
	data, err := m.encode(serial)
	if err != nil {
		return
	}
	b.send(p, m, data, serial, nil)
	if b.eavesdroppers.Load() > 0 {
		info := m.info()
		b.eavesdropLocked(&info, p, func() (*outMsg, []byte, uint32) { return m, data, serial })
	}
}

// nameOwnerChangedLocked broadcasts NameOwnerChanged to the BusMode
// connections whose rules match. b.mu must be held.
func (b *Bus) nameOwnerChangedLocked(name, oldOwner, newOwner string) {
	body := []any{name, oldOwner, newOwner}
	info := msgInfo{typ: dbus.TypeSignal, sender: driverName, path: driverPath, iface: driverIface, member: "NameOwnerChanged", body: body}
	var m *outMsg
	var data []byte
	var serial uint32
	for _, p := range b.busPeers {
		if !b.wantsLocked(p, &info, false) {
			continue
		}
		if m == nil {
			serial = b.driverSerial.next()
			m = newSignal(driverPath, driverIface, "NameOwnerChanged", "", driverName, body)
			var err error
			if data, err = m.encode(serial); err != nil {
				return
			}
		}
		b.send(p, m, data, serial, nil)
	}
}

// nameSignalLocked sends NameAcquired or NameLost to p. b.mu must be held.
func (b *Bus) nameSignalLocked(p *Peer, member, name string) {
	b.driverSendLocked(p, newSignal(driverPath, driverIface, member, p.UniqueName(), driverName, []any{name}))
}

// driverCall answers a method call to org.freedesktop.DBus.
func (b *Bus) driverCall(p *Peer, m *inMsg) {
	b.mu.Lock()
	r := &driverReq{b: b, p: p, m: m}
	h := &m.header
	switch h.iface {
	case "", driverIface:
		b.busMethodLocked(r)
	case peerIface:
		switch {
		case h.member == "Ping" && r.args(""):
			r.reply()
		case h.member == "GetMachineId" && r.args(""):
			r.reply(b.machineID)
		case h.member != "Ping" && h.member != "GetMachineId":
			r.fail(errUnknownMethod, unknownMethodText(h))
		}
	case "org.freedesktop.DBus.Introspectable":
		if h.member != "Introspect" {
			r.fail(errUnknownMethod, unknownMethodText(h))
		} else if r.args("") {
			r.reply(driverIntrospection)
		}
	case "org.freedesktop.DBus.Properties":
		b.propertiesLocked(r)
	case "org.freedesktop.DBus.Monitoring":
		if h.member != "BecomeMonitor" {
			r.fail(errUnknownMethod, unknownMethodText(h))
		} else if r.args("asu") {
			b.becomeMonitorLocked(r)
		}
	default:
		r.fail(errUnknownInterface, "Unknown interface "+h.iface+".")
	}
	b.mu.Unlock()
}

// busMethodLocked answers the org.freedesktop.DBus interface.
func (b *Bus) busMethodLocked(r *driverReq) {
	p := r.p
	switch r.m.member {
	case "Hello":
		if !r.args("") {
			return
		}
		if p.UniqueName() != "" {
			r.fail(errFailed, "Already handled an Hello message")
			return
		}
		b.lastID++
		name := ":1." + itoa(b.lastID)
		p.unique.Store(&name)
		b.uniques[name] = p
		b.busPeers = append(b.busPeers, p)
		r.reply(name)
		b.nameOwnerChangedLocked(name, "", name)
		b.nameSignalLocked(p, "NameAcquired", name)
	case "AddMatch":
		// Like dbus-daemon, the limit comes before the rule is looked at.
		if len(p.rules) >= b.lim.MaxMatchRules {
			r.fail(errLimitsExceeded, tooManyRulesText(p, b.lim.MaxMatchRules))
			return
		}
		if !r.args("s") {
			return
		}
		rule, err := parseMatchRule(r.str(0))
		if err != nil {
			r.fail(errMatchRuleInvalid, err.Error())
			return
		}
		b.setRulesLocked(p, append(p.rules, rule))
		r.reply()
	case "RemoveMatch":
		if !r.args("s") {
			return
		}
		rule, err := parseMatchRule(r.str(0))
		if err != nil {
			r.fail(errMatchRuleInvalid, err.Error())
			return
		}
		for i, q := range p.rules {
			if q.equal(rule) {
				b.setRulesLocked(p, append(p.rules[:i:i], p.rules[i+1:]...))
				r.reply()
				return
			}
		}
		r.fail(errMatchRuleNotFound, "The given match rule wasn't found and can't be removed")
	case "RequestName":
		if r.args("su") {
			b.requestNameLocked(r, r.str(0), r.m.body[1].(uint32))
		}
	case "ReleaseName":
		if r.args("s") {
			b.releaseNameLocked(r, r.str(0))
		}
	case "GetNameOwner":
		if !r.args("s") {
			return
		}
		if owner := b.ownerLocked(r.str(0)); owner != "" {
			r.reply(owner)
		} else {
			r.fail(errNameHasNoOwner, "Could not get owner of name '"+r.str(0)+"': no such name")
		}
	case "NameHasOwner":
		if r.args("s") {
			r.reply(b.ownerLocked(r.str(0)) != "")
		}
	case "ListNames":
		if r.args("") {
			r.reply(b.listNamesLocked())
		}
	case "ListActivatableNames":
		if r.args("") {
			names := []string{driverName}
			if b.cfg.ServiceName != "" {
				names = append(names, b.cfg.ServiceName)
			}
			r.reply(names)
		}
	case "StartServiceByName":
		if !r.args("su") {
			return
		}
		if b.ownerLocked(r.str(0)) != "" {
			r.reply(uint32(startReplyAlreadyRunning))
		} else {
			r.fail(errServiceUnknown, "The name "+r.str(0)+" was not provided by any .service files")
		}
	case "GetConnectionUnixUser", "GetConnectionUnixProcessID", "GetConnectionCredentials":
		b.credentialsLocked(r)
	case "GetId":
		if r.args("") {
			r.reply(b.guid)
		}
	case "ReloadConfig":
		if r.args("") {
			r.reply()
		}
	default:
		r.fail(errUnknownMethod, unknownMethodText(&r.m.header))
	}
}

// credentialsLocked answers GetConnectionUnixUser, GetConnectionUnixProcessID
// and GetConnectionCredentials.
func (b *Bus) credentialsLocked(r *driverReq) {
	if !r.args("s") {
		return
	}
	name := r.str(0)
	uid, pid := b.uid, b.pid
	owner := b.ownerLocked(name)
	switch {
	case owner == "":
		what := map[string]string{
			"GetConnectionUnixUser":      "UID",
			"GetConnectionUnixProcessID": "PID",
			"GetConnectionCredentials":   "credentials",
		}[r.m.member]
		r.fail(errNameHasNoOwner, "Could not get "+what+" of name '"+name+"': no such name")
		return
	case owner != driverName && owner != b.ServiceUniqueName() && owner != ControlUniqueName:
		q := b.uniques[owner]
		uid, pid = q.uid, q.pid
	}
	switch r.m.member {
	case "GetConnectionUnixUser":
		r.reply(uid)
	case "GetConnectionUnixProcessID":
		r.reply(pid)
	default:
		r.reply(map[string]dbus.Variant{
			"UnixUserID": dbus.MakeVariant(uid),
			"ProcessID":  dbus.MakeVariant(pid),
		})
	}
}

// requestNameLocked implements RequestName. Clients may own any name but the
// driver's and the service's. There is no queueing: a name owned by
// somebody else is taken over only with REPLACE_EXISTING if its owner
// allowed replacement, otherwise the reply is EXISTS.
func (b *Bus) requestNameLocked(r *driverReq, name string, flags uint32) {
	p := r.p
	// The name is kept: a copy, not a string sharing the memory of the
	// whole message.
	name = strings.Clone(name)
	switch {
	case !validBusName(name):
		r.fail(errInvalidArgs, "Requested bus name \""+name+"\" is not valid")
		return
	case name[0] == ':':
		r.fail(errInvalidArgs, "Cannot acquire a service starting with ':' such as \""+name+"\"")
		return
	case name == driverName:
		r.fail(errInvalidArgs, "Connection \""+p.UniqueName()+"\" is not allowed to own the service \""+driverName+"\" because it is reserved for D-Bus' use only")
		return
	case b.cfg.MayOwn != nil && !b.cfg.MayOwn(p, name):
		r.fail(errAccessDenied, "Connection \""+p.UniqueName()+"\" is not allowed to own the service \""+name+"\" due to security policies in the configuration file")
		return
	case 1+len(p.owned) >= b.lim.MaxNames:
		// Like dbus-daemon: the unique name counts, and the limit comes
		// before looking at who owns the name (even p itself).
		r.fail(errLimitsExceeded, "Connection \""+p.UniqueName()+"\" is not allowed to own more services "+
			"(increase limits in configuration file if required; max_names_per_connection="+itoa(uint64(b.lim.MaxNames))+")")
		return
	case name == b.cfg.ServiceName, b.isControl(name):
		r.reply(uint32(requestNameExists))
		return
	}
	cur := b.names[name]
	switch {
	case cur == nil:
		b.names[name] = &nameOwner{peer: p, allowReplacement: flags&nameFlagAllowReplacement != 0}
		p.own(name)
		b.nameOwnerChangedLocked(name, "", p.UniqueName())
		b.nameSignalLocked(p, "NameAcquired", name)
		r.reply(uint32(requestNamePrimaryOwner))
	case cur.peer == p:
		cur.allowReplacement = flags&nameFlagAllowReplacement != 0
		r.reply(uint32(requestNameAlreadyOwner))
	case flags&nameFlagReplaceExisting != 0 && cur.allowReplacement:
		old := cur.peer
		b.names[name] = &nameOwner{peer: p, allowReplacement: flags&nameFlagAllowReplacement != 0}
		delete(old.owned, name)
		p.own(name)
		b.nameOwnerChangedLocked(name, old.UniqueName(), p.UniqueName())
		b.nameSignalLocked(old, "NameLost", name)
		b.nameSignalLocked(p, "NameAcquired", name)
		r.reply(uint32(requestNamePrimaryOwner))
	default:
		r.reply(uint32(requestNameExists))
	}
}

// releaseNameLocked implements ReleaseName.
func (b *Bus) releaseNameLocked(r *driverReq, name string) {
	p := r.p
	switch {
	case !validBusName(name) || name[0] == ':' || name == driverName:
		r.fail(errInvalidArgs, "Given bus name \""+name+"\" is not valid")
		return
	case name == b.cfg.ServiceName, b.isControl(name):
		r.reply(uint32(releaseNameNotOwner))
		return
	}
	cur := b.names[name]
	switch {
	case cur == nil:
		r.reply(uint32(releaseNameNonExistent))
	case cur.peer != p:
		r.reply(uint32(releaseNameNotOwner))
	default:
		delete(b.names, name)
		delete(p.owned, name)
		b.nameOwnerChangedLocked(name, p.UniqueName(), "")
		b.nameSignalLocked(p, "NameLost", name)
		r.reply(uint32(releaseNameReleased))
	}
}

// propertiesLocked answers org.freedesktop.DBus.Properties on the driver.
func (b *Bus) propertiesLocked(r *driverReq) {
	props := map[string]dbus.Variant{
		"Features":   dbus.MakeVariant([]string{}),
		"Interfaces": dbus.MakeVariant([]string{}),
	}
	switch r.m.member {
	case "Get":
		if !r.args("ss") {
			return
		}
		v, ok := props[r.str(1)]
		if r.str(0) != driverIface || !ok {
			r.fail(errUnknownProperty, "Unknown property "+r.str(1)+" on interface "+r.str(0))
			return
		}
		r.reply(v)
	case "GetAll":
		if !r.args("s") {
			return
		}
		if r.str(0) != driverIface && r.str(0) != "" {
			r.reply(map[string]dbus.Variant{})
			return
		}
		r.reply(props)
	case "Set":
		if r.args("ssv") {
			r.fail(errPropertyReadOnly, "Property "+r.str(1)+" is read-only")
		}
	default:
		r.fail(errUnknownMethod, unknownMethodText(&r.m.header))
	}
}

// becomeMonitorLocked implements org.freedesktop.DBus.Monitoring.BecomeMonitor
// like dbus-daemon: only a privileged connection may (uid 0 or the bus's
// own uid, privileged); the connection loses its names and from then on
// only receives copies of the messages its rules (all eavesdropping;
// none means everything) match. If it sends anything, it is dropped.
// Unlike dbus-daemon, its rules count against Limits.MaxMatchRules.
func (b *Bus) becomeMonitorLocked(r *driverReq) {
	p := r.p
	if !b.privileged(p) {
		r.fail(errAccessDenied, "rejected attempt to call BecomeMonitor by connection "+p.UniqueName()+
			" ("+p.logInfo()+") with uid "+itoa(uint64(p.uid)))
		return
	}
	texts, _ := r.m.body[0].([]string)
	if len(texts) > b.lim.MaxMatchRules {
		r.fail(errLimitsExceeded, tooManyRulesText(p, b.lim.MaxMatchRules))
		return
	}
	rules := make([]*matchRule, 0, max(len(texts), 1))
	for _, text := range texts {
		rule, err := parseMatchRule(text)
		if err != nil {
			r.fail(errMatchRuleInvalid, err.Error())
			return
		}
		rule.eavesdrop = true
		rules = append(rules, rule)
	}
	if len(rules) == 0 {
		rules = append(rules, &matchRule{eavesdrop: true})
	}
	// The rules are in place before the reply: enqueued messages are
	// written at once, so a client that sees the reply may send before
	// this call returns, and its message must be copied to the monitor
	// (dbus-daemon, single-threaded, cannot interleave them).
	b.setRulesLocked(p, rules)
	r.reply()
	unique := p.UniqueName()
	for _, name := range sortedKeys(p.owned) {
		delete(b.names, name)
		b.nameOwnerChangedLocked(name, unique, "")
		b.nameSignalLocked(p, "NameLost", name)
	}
	p.owned = nil
	b.nameSignalLocked(p, "NameLost", unique)
	delete(b.uniques, unique)
	b.nameOwnerChangedLocked(unique, unique, "")
	p.monitor.Store(true)
}

// tooManyRulesText is dbus-daemon's text refusing a match rule beyond
// max_match_rules_per_connection (measured on 1.14.10).
func tooManyRulesText(p *Peer, max int) string {
	return "Connection \"" + p.UniqueName() + "\" is not allowed to add more match rules " +
		"(increase limits in configuration file if required; max_match_rules_per_connection=" + itoa(uint64(max)) + ")"
}

// privileged reports whether p may do what dbus-daemon allows only root
// and its own user (BecomeMonitor): its uid is 0 or the bus's effective
// uid. A unix socket connection's uid is its SO_PEERCRED uid; an
// in-memory Pipe's is the uid its client claimed in AUTH EXTERNAL,
// which is this process's own unless the client says otherwise, so a
// Pipe client is privileged unless it claims another uid.
func (b *Bus) privileged(p *Peer) bool {
	return p.uid == 0 || p.uid == b.euid
}
