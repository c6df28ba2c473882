// Package sdbus is a systemd D-Bus client whose job tracking cannot
// deadlock, race or lie.
//
// It covers what container runtimes, cgroup managers and test harnesses
// need from systemd's manager (org.freedesktop.systemd1): starting and
// stopping units, transient units and their jobs, unit properties, and
// waiting for a job with a context. It replaces coreos/go-systemd's dbus
// package for those uses; see the README for a migration table.
//
// # Connecting
//
// ConnectSystem, ConnectUser and ConnectPrivate connect to the system
// manager over the system bus, to the user's manager (systemd --user) over
// the user bus or, without one, its private socket
// $XDG_RUNTIME_DIR/systemd/private, and to the system manager's private
// peer-to-peer socket. Connect takes any D-Bus address, NewConn wraps a
// godbus connection that is already authenticated. A connection that fails
// matches ErrUnreachable (nothing listens at the address),
// ErrAuthRejected or ErrAccessDenied, and its message says what to check.
// A direct connection's first message is always sdbus's own, a Peer.Ping
// long enough that systemd reads it (systemd leaves a small first message
// that came with the end of the authentication unread until more bytes
// arrive). The context bounds dialing, authentication, Hello and the
// match rules, never the connection's life. Authentication
// is EXTERNAL with the credentials the kernel reports for the socket, as
// sd-bus does: no user database lookup, and it works inside user
// namespaces.
//
// A program that restarts a service and waits for the restart to finish:
//
//	c, err := sdbus.ConnectSystem(ctx) // $DBUS_SYSTEM_BUS_ADDRESS, else /run/dbus/system_bus_socket
//	if err != nil {
//		return err
//	}
//	defer c.Close()
//	job, err := c.RestartUnit(ctx, "nginx.service", sdbus.ModeReplace)
//	if err != nil {
//		return err
//	}
//	_, err = job.Wait(ctx) // a failed restart is a *JobError matching ErrJobFailed
//	return err
//
// A Conn uses one D-Bus connection for calls and signals, so replies and
// signals arrive in the order systemd sent them. Close closes it, ends
// every pending wait with ErrClosed and waits for every goroutine the Conn
// started.
//
// # Job tracking
//
// StartUnit, StopUnit, RestartUnit, ReloadUnit, TryRestartUnit,
// ReloadOrRestartUnit, ReloadOrTryRestartUnit and StartTransientUnit return
// a *Job. Job.Wait(ctx) waits for its result and may be called any number
// of times from any goroutine; Job.Done returns a channel that is closed
// when the result is known. The guarantees:
//
//   - The Conn's match rule for JobRemoved is in place before its first
//     job call, on the connection that carries the calls. It does not
//     call Manager.Subscribe for jobs: systemd sends a job's JobRemoved to
//     the bus while the job has a tracked requester (the client that asked
//     for it, and every client whose request merged into it, across
//     daemon-reload and daemon-reexec), and on the private socket always.
//     Subscribing would make systemd broadcast every unit's changes, a
//     cost every job on the host pays; sdbus subscribes only while a watch
//     or a reconciled job needs it, and unsubscribes after.
//   - Results are delivered by a signal handler that keeps wire order and
//     never blocks: it makes no D-Bus calls and sends on no channel; it
//     updates a map under a lock held only for that, and closes the job's
//     channel. No caller can stall it: a caller that never waits, one that
//     gives up, or one with 10,000 jobs outstanding delays nobody else's
//     result.
//   - A JobRemoved that godbus hands over before the caller has seen the
//     reply naming the job is kept for that caller; such early results are
//     kept only while a job call that could claim them is in flight, and at
//     most 16384 of them, whatever one call does (a call whose reply never
//     comes keeps its ticket, not memory without bound).
//   - A result that arrived before the connection ended is delivered, not
//     replaced by ErrDisconnected.
//   - Several callers that get the same (merged) job all get its result.
//   - Tracking state is freed when the JobRemoved arrives or the
//     connection ends.
//   - A context that ends while the start call is in flight returns its
//     error at once; the job systemd creates anyway is canceled (CancelJob)
//     when the late reply arrives, unless another call on the same Conn
//     asked for that job. When the connection drops before that, a
//     reconnecting Conn cancels the unit's queued job of that type on its
//     next connection; a Conn that does not reconnect, or is closed, has
//     no connection to cancel it on, and the job runs.
//   - A JobRemoved from anyone but the current owner of
//     org.freedesktop.systemd1 (on a bus; on a private socket, from the
//     peer itself), on another path, or with a malformed body is ignored.
//     While the name has no owner (systemd 262 releases it during
//     daemon-reexec), signals from unique names are held, at most 1024,
//     and delivered only if their sender becomes the owner.
//   - When the connection ends, every pending Wait returns an error
//     matching ErrDisconnected (or ErrClosed after Close). Job.Cancel then
//     cancels on a reconnecting Conn's next connection, and otherwise
//     says it could not: it never reports success without effect.
//
// The life of each D-Bus connection (dialing, set up, installed, ended,
// replaced) is one state machine, written down with every transition and
// the reactions of the tracker, the watches and the reconnect loop in
// session.go.
//
// A job result other than done or skipped comes back as a *JobError,
// which matches ErrJobFailed. skipped counts as success, as it does for
// systemctl: the job did not apply to the unit's state. Note that a start
// job whose Condition*= check failed ends with done; look at the unit's
// ActiveState when it matters.
//
// # Unit operations
//
// EnsureTransientUnit creates a transient unit and waits for it with an
// explicit policy for a unit of the same name that exists already (fail,
// reset a failed one and retry once, join it with AttachProcessesToUnit, or
// ignore it, which is refused while placing PIDs); it adds
// CollectMode=inactive-or-failed where the manager supports it and frees
// the name when the start fails. DestroyUnit stops, waits and resets. To
// put a process into a new scope:
//
//	_, err := c.EnsureTransientUnit(ctx, "run-job42.scope", []sdbus.Property{
//		sdbus.PropPIDs(uint32(pid)),
//		sdbus.PropSlice("system.slice"),
//	}, sdbus.EnsureOptions{Exists: sdbus.ExistsResetAndRetry})
//	if errors.Is(err, sdbus.ErrUnitExists) {
//		// A live unit has that name and pid is not in it: stop that unit
//		// (DestroyUnit) or choose another name; never carry on.
//		return fmt.Errorf("pid %d not placed: %w", pid, err)
//	}
//	return err // nil: the scope is active and holds pid
//
// The Prop* builders give every property the D-Bus type systemd expects.
// A Property is a plain {Name, Value} value (builders' results compare
// equal to literals); every property, built or literal, is checked by name
// before anything is sent, so a bad type or range fails with
// ErrInvalidArgs instead of reaching systemd. PropertiesRejectedBy says which properties a manager version would
// refuse. UnitProperties, ServiceProperties, ScopeProperties and
// SliceProperties read the unit's interfaces into Go structs, with
// systemd's infinity as Limit{Unlimited: true} and a unit that does not
// exist as ErrNoSuchUnit; ManagerProperties reads the manager's. For any
// other property, ManagerProperty, UnitProperty and UnitTypeProperties
// return systemd's answer as dbus.Variant values. EffectiveLimits returns the memory, task and CPU
// limits that apply to a unit once its ancestor slices are counted, each
// with the slice that imposes it. WatchUnit and WaitUnitState follow a
// unit's state through PropertiesChanged signals, without polling, on the
// path of the unit's primary name (so an alias is followed too); a watch
// always ends on the newest state, and the states that arrived before a
// disconnect are delivered before its channel closes. To wait for a unit's
// state after a job (a restart), use Job.WaitUnitState: WaitUnitState
// right after RestartUnit sees the state from before the restart.
// WatchUnits does the
// same for every unit a filter accepts (the state of each, then each
// change, loading and unloading), coalescing per unit.
//
// # Unit files
//
// EnableUnitFiles, DisableUnitFiles, ReenableUnitFiles, LinkUnitFiles,
// MaskUnitFiles, UnmaskUnitFiles and PresetUnitFiles change the symlinks
// in systemd's unit directories, as systemctl enable and friends do, and
// return the changes as []UnitFileChange; UnitFileRuntime makes them in
// /run only, UnitFileForce replaces symlinks in the way. GetUnitFileState,
// ListUnitFiles and ListUnitFilesByPatterns report UnitFileState values.
// None of them reloads the manager: "write a unit, enable it, reload,
// restart and wait" is EnableUnitFiles, Reload, RestartUnit and Job.Wait.
// On fakebus they work on the fake's own unit directories.
//
// # Reconnecting
//
// WithReconnect makes a Conn outlive its D-Bus connection: it redials at
// once, then with backoff (a connection lost within
// ReconnectPolicy.StableAfter of its setup counts as a failed attempt, so
// a bus that drops every client is not hammered), and retries only
// idempotent calls; calls wait
// for the next connection at most ReconnectPolicy.WaitForConnection. A
// job-creating call in flight when the connection dropped is never
// replayed: it fails with ErrOutcomeUnknown, and Reconcile tells what
// the unit is now (not loaded is no proof that nothing was created: a
// transient unit that ran is unloaded once inactive). Neither is a unit-file change, whose change list
// would be lost with its reply; calling it again is safe. EnsureTransientUnit and DestroyUnit reconcile by
// themselves when the connection drops while they wait, and finish; on a
// Conn that does not reconnect they report ErrOutcomeUnknown (DestroyUnit:
// ErrDisconnected when the drop came before systemd answered its stop,
// which may have reached it). WithFallback
// adds addresses every new connection tries after the Conn's own (the
// system bus, then systemd's private socket, as go-systemd's
// NewWithContext). A Conn also keeps at most 64 calls waiting for replies
// (WithMaxPendingCalls), below dbus-daemon's per-connection limit.
//
// # Errors
//
// Every error is an *Error carrying the operation, the unit, and the D-Bus
// error name and message, or a *JobError. Test errors with errors.Is
// against the sentinels (ErrUnitExists, ErrNoSuchUnit, ErrNotSupported,
// ErrDisconnected, ...). Errors from systemd also match a dbus.Error value
// target with errors.As, for code that still checks names. Arguments that
// cannot be right (an invalid unit name, a property of the wrong type, a
// string D-Bus cannot carry: invalid UTF-8 or a NUL byte) fail before
// anything is sent, with an error matching ErrInvalidArgs that names the
// argument; such an error never ends the connection.
//
// # Versions and features
//
// ParseVersion parses systemd's version strings ("252.38-1~deb12u1",
// "239 (239-41.el8_3.2)", "v245.4-1.fc32", quoted GVariant text). Conn.Version reads and caches
// the manager's. Versions are hints: distributions backport features, so
// sdbus probes the manager for the features that matter
// (Conn.Supports) and caches only answers.
//
// # Testing with fakebus
//
// Package fakebus is a fake systemd manager that speaks the real D-Bus wire
// protocol, over an in-process socket pair (returning a real *Conn) or a unix
// socket any D-Bus client can use. Its units and jobs follow systemd's
// state machine, and faults (early, duplicate, forged or malformed
// JobRemoved, delayed replies, dropped connections) are first-class.
//
// # The real systemd sandbox
//
// scripts/sandbox boots systemd as PID 1 in new namespaces with its own
// dbus-daemon and runs a command inside; the conformance suite runs the
// same cases against fakebus and against that systemd. See the README.
package sdbus
