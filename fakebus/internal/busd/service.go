package busd

// The service's names across a restart of the service (systemd's
// daemon-reexec): a new connection with a new unique name, and the
// well-known name released by the old instance and taken by the new one,
// as real systemd does on daemon-reexec (seen on 252 and 262).

// ReconnectService gives the service a new unique name, as if a new
// instance of it had connected to the bus; from now on the service's
// signals and replies come from the new name, but it does not own
// Config.ServiceName until TakeServiceName. The old instance first
// releases the well-known name and disconnects (NameOwnerChanged name
// old → "", then old old → ""), as systemd does on daemon-reexec, and
// the calls it has not answered get NoReply from the bus (see
// pending.go); then the new unique name appears (new "" → new).
func (b *Bus) ReconnectService() (oldName, newName string) {
	b.mu.Lock()
	b.finishHandoverLocked()
	oldName = b.ServiceUniqueName()
	b.lastID++
	newName = ":1." + itoa(b.lastID)
	b.serviceUnique.Store(&newName)
	if !b.closed {
		if b.serviceOwner != "" {
			b.nameOwnerChangedLocked(b.cfg.ServiceName, b.serviceOwner, "")
			b.serviceOwner = ""
		}
		b.nameOwnerChangedLocked(oldName, oldName, "")
		// Like dbus-daemon: the calls the old instance never answered get
		// NoReply after its names are gone (pending.go).
		b.dropPendingLocked()
		b.nameOwnerChangedLocked(newName, "", newName)
	}
	b.mu.Unlock()
	return oldName, newName
}

// TakeServiceName gives Config.ServiceName to the service's current unique
// name (NameOwnerChanged name "" → new).
func (b *Bus) TakeServiceName() {
	b.mu.Lock()
	b.finishHandoverLocked()
	b.mu.Unlock()
}

// finishHandoverLocked gives the well-known name to the current unique
// name if it does not own it yet. b.mu must be held.
func (b *Bus) finishHandoverLocked() {
	cur := b.ServiceUniqueName()
	if b.cfg.ServiceName != "" && b.serviceOwner != cur && !b.closed {
		b.nameOwnerChangedLocked(b.cfg.ServiceName, b.serviceOwner, cur)
	}
	if b.cfg.ServiceName != "" {
		b.serviceOwner = cur
	}
}

// RenewServiceName is ReconnectService followed by TakeServiceName.
func (b *Bus) RenewServiceName() (oldName, newName string) {
	oldName, newName = b.ReconnectService()
	b.TakeServiceName()
	return oldName, newName
}

// matchOwnerLocked is ownerLocked for the sender key of match rules, with
// one difference: Config.ServiceName resolves to the service's current
// connection even while that connection does not own the name yet
// (between ReconnectService and TakeServiceName). On systemd 262 clients
// whose rules name org.freedesktop.systemd1 as sender receive the
// JobRemoved signals the new instance sends before it owns the name
// again; sdbus must then decide whether to believe them. b.mu must be
// held.
func (b *Bus) matchOwnerLocked(name string) string {
	if name == b.cfg.ServiceName && name != "" {
		return b.ServiceUniqueName()
	}
	return b.ownerLocked(name)
}

// ReserveUniqueName returns a unique name that no connection has or ever
// will have, for signals forged by a client that never owns anything.
func (b *Bus) ReserveUniqueName() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.lastID++
	return ":1." + itoa(b.lastID)
}
