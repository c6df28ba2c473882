// Package fakebus is a fake systemd manager (org.freedesktop.systemd1)
// behind a real D-Bus message bus, for tests of code that talks to
// systemd.
//
// It speaks the D-Bus wire protocol: clients connect to it exactly as to
// systemd, over an in-process socket pair (Server.Dial and Server.Conn return a
// real *sdbus.Conn) or over unix sockets (Server.Address for the bus,
// Server.PrivateAddress for a peer-to-peer socket like
// /run/systemd/private) that any D-Bus client, such as godbus, go-systemd
// or busctl, can use. It runs no processes and touches no cgroups (with
// WithCgroupRoot it keeps directories standing for them in a directory of
// the caller's).
//
//	func TestX(t *testing.T) {
//		s := fakebus.New(t) // closed by t.Cleanup
//		c := s.Conn(t)      // a *sdbus.Conn over an in-process socket pair
//		if _, err := c.ListUnits(context.Background()); err != nil {
//			t.Fatal(err)
//		}
//		raw := s.RawConn(t) // or a godbus *dbus.Conn, Hello said
//		v, err := raw.Object("org.freedesktop.systemd1", "/org/freedesktop/systemd1").
//			GetProperty("org.freedesktop.systemd1.Manager.Version")
//		if err != nil {
//			t.Fatal(err)
//		}
//		t.Log(v) // "252.38-1~deb12u1"
//	}
//
// TestUsingFakebusNew in usage_test.go is a complete test written this
// way.
//
// The test drives the fake with the Server's methods (Script, FinishJob,
// SetUnitState, DropConnections, Reexecute, WaitIdle, Calls, Reset, ...),
// and scripts it from the start with WithScript and WithScriptFile. WithControl serves
// the same controls over D-Bus, under a bus name of their own
// (io.github.sdbus_go.FakeSystemd), for tests in other processes and
// languages; WithCallLog logs the calls the manager receives, with their
// answers, as data and JSON lines.
//
// What the fake models and how closely (units, jobs, services, unit
// files and drop-ins, settings, access control, faults, limits, the
// private socket), and what it leaves out, is in docs/fakebus.md in the
// repository; docs/fakesystemd.md documents the standalone program,
// fakebus/cmd/fakesystemd.
//
// # File map
//
// The files follow systemd's src/core: dbus_X.go answers systemd's
// dbus-X.c, a file named after a concept answers that concept's .c. Every
// file of the package is named here (TestFileMap checks it).
//
// The D-Bus surface, where a call comes in, is decoded, handed to the
// model and answered. The model needs nothing of it but its signals
// (TestModelNeedsNoSurface checks it):
//
//   - dbus.go: the one entry point (HandleCall), the routing of a call to its object's
//     interfaces, the surface's own error replies, the answer to calls a reload held.
//   - dbus_signals.go: the manager's signals, subscriptions and who receives what.
//   - dbus_object.go: what an object path names, resolved once per call, as measured on
//     247–262.
//   - dbus_vtable.go: the table types, the signature check, release gating, and the routing
//     of unit and job methods to the Manager's handlers.
//   - dbus_jobcall.go: a job method's call: the model's checks and job, then the reply as the
//     job's script shapes it (a delay, JobRemoved first, a bus timeout, a dropped connection).
//   - access.go: who may do what: the bus policy, privileged methods, polkit.
//   - dbus_introspect.go: org.freedesktop.DBus.Introspectable, generated from the tables.
//   - dbus_properties.go: org.freedesktop.DBus.Properties (Get, GetAll, Set) of every object.
//   - dbus_manager.go: org.freedesktop.systemd1.Manager: its table, its properties, and one
//     handler per method, named for it (getUnit answers GetUnit); docs/fakebus.md, "The
//     Manager's methods", says where each does its work.
//   - dbus_manager_unitfiles.go: the Manager's unit-file methods, one handler each.
//   - dbus_unit.go: org.freedesktop.systemd1.Unit (its table and properties) and the
//     control-group methods every type shares.
//   - dbus_unit_type.go: the other types' tables (Slice, Socket, Mount, Swap, ...) and every
//     type's properties.
//   - dbus_service.go: org.freedesktop.systemd1.Service's methods.
//   - dbus_scope.go: org.freedesktop.systemd1.Scope's methods and signal.
//   - dbus_job.go: org.freedesktop.systemd1.Job's methods.
//   - dbus_log_control.go: the /org/freedesktop/LogControl1 object.
//   - dbus_control.go: the control interface (WithControl): the test-side controls as D-Bus
//     methods on a bus name of their own, io.github.sdbus_go.FakeSystemd.
//
// The model, under the manager's one lock:
//
//   - errors.go: the D-Bus errors the model raises, with systemd's names and texts.
//   - settings.go: the properties SetUnitProperties, StartTransientUnit and unit files set:
//     which unit types take each, their checks in systemd's order, how a value is stored.
//   - controldropin.go: SetUnitProperties' drop-ins: where each setting goes, DropInPaths.
//   - manager.go: the manager, its lock's rule, daemon-reload, lookups, the environment.
//   - runqueue.go: when jobs run: PID 1's one thing at a time.
//   - unit.go: a unit's states, loading, garbage collection, start, stop, reset-failed,
//     freeze, clean.
//   - unittype.go: the unit types and what each can do, as systemd's UnitVTable says.
//   - job.go: jobs, their end and their signals.
//   - transaction.go: a job's checks, requirements, conflicts, propagation, merging.
//   - ordering.go: which job waits for which: After= and Before=, as job_is_runnable says.
//   - dependencies.go: the dependency lists as systemd shows them: implicit, default and
//     inverse ones.
//   - boot.go: the standard targets and the units a booted system runs.
//   - service.go: services: type, main process, live mounts.
//   - exec.go: a unit's commands and the few programs the fake interprets.
//   - condition.go: Condition*= and Assert*=.
//   - startlimit.go: the start rate limit (StartLimitBurst=, StartLimitIntervalSec=).
//   - unneeded.go: StopWhenUnneeded=: units stopped once nothing needs them.
//   - trigger.go: sockets, timers, paths and automounts, the units they trigger; what a
//     mount's, swap's or device's name stands for; which files load as bad-setting.
//   - timer.go: timers: their settings, waiting and elapsing.
//   - cgroup.go: control groups: a unit's processes and sub-cgroups, delegation, the unit of
//     a PID or of a control group, effective limits and TasksMax, WithCgroupRoot.
//   - devicelist.go: the per-device lists (DeviceAllow=, IODeviceWeight=, the IO limits):
//     where an entry goes, how a file and a drop-in read them back.
//   - rlimit.go: the resource limits (LimitX=) of a unit that sets none, the manager's.
//   - procwatch.go: watching the real processes placed in units.
//   - kill.go: signals to a unit's processes.
//   - killmode.go: what a stop kills (KillMode=) and what it leaves running.
//   - transient.go: transient units (StartTransientUnit).
//   - aliases.go: a unit's other names.
//   - dynamicusers.go: dynamic users, of which the fake has none.
//   - dump.go: the Manager's dumps.
//   - datafd_linux.go: the sealed memfd the dumps by file descriptor answer.
//   - datafd_other.go: the same where there is no memfd_create (not Linux): an error.
//   - reexec.go: daemon-reexec (Server.Reexecute, Reexec).
//   - reload.go: a service's reload: ExecReload= as its control process, for as long as it takes.
//   - reset.go: Server.Reset: the manager back to its state at start, its clients kept.
//   - restart.go: automatic restarts (Restart=, RestartSec=).
//   - onfailure.go: the units OnFailure= and OnSuccess= start.
//   - exitstatus.go: exit status sets (SuccessExitStatus=, RestartPreventExitStatus=,
//     RestartForceExitStatus=): which ends are clean, which restart.
//
// Unit files on disk:
//
//   - unitfile.go: the unit directories, a unit's files there, (re)loading, NeedDaemonReload.
//   - install.go: the unit-file operations (enable, mask, preset, ...), states, change lists.
//   - load_fragment.go: parsing unit files and their drop-ins, with the settings of each
//     type's section and time spans.
//   - calendar.go: calendar specs, as OnCalendar= takes them.
//
// The server and the test's side:
//
//   - server.go: Server, New, Start, the options, connections and sockets.
//   - limits.go: Limits, what the bus lets its clients make it hold.
//   - control.go: the test-side controls (AddUnitFile, SetUnitProperties, Unit, Jobs, FinishJob,
//     WaitIdle, ...).
//   - unitstate.go: SetUnitState: a unit put into a state without a job, as if it got there by
//     itself.
//   - calllog.go: the call log (WithCallLog): the calls the manager received, with their
//     answers, as data and JSON lines.
//   - script.go: Script and Fault: scripted job results and misbehaviours.
//   - scriptcheck.go: a script rule against the unit's commands (ScriptConflict).
//   - scriptfile.go: the script file, fakesystemd's --script and ApplyScript's JSON
//     (ParseScriptFile, ApplyScriptFile).
//   - scriptvalue.go: a script file's property values, "TYPE VALUE" in GVariant text.
//   - notes.go: Note, what the fake did that no message shows.
//   - release.go: the played release (sdversions and WithBackport).
//   - doc.go: this documentation.
//
// Below fakebus/: internal/busd is the message bus, internal/sdversions
// the per-release table, internal/conformance the suite run on the fake
// and on real systemd, internal/difftest the differential tester, and
// cmd/fakesystemd the standalone program.
package fakebus
