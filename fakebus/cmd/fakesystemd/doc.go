// Command fakesystemd serves fakebus, the fake systemd manager that speaks
// the real D-Bus wire protocol, on unix sockets until it is stopped, so that
// test suites in any language (Python, Rust, shell, Go with go-systemd) can
// use it.
//
// Usage:
//
//	fakesystemd [--socket PATH] [--private-socket PATH] [--version STRING]
//	            [--backport NAME]... [--script FILE] [--unit-dir DIR]
//	            [--runtime-unit-dir DIR] [--cgroup-root DIR] [--user[=UID]]
//	            [--limit NAME=VALUE]... [--allow-unprivileged] [--polkit]
//	            [--made-up-pids] [--trace]
//	            [--print-address] [--no-control] [--call-log FILE]
//	fakesystemd run [--user] [flags] -- CMD [ARGS...]
//
// The second form runs CMD in a private mount namespace (and user
// namespace when not root) where the fake is the system's systemd,
// serving from inside: where the kernel allows a PID namespace too, in
// it, as its PID 1 (named systemd, /proc/1/comm, with a proc file system
// of the namespace on /proc; an init that reaps orphans), else as CMD's
// parent, with the host's PID 1 (pid1.go). Its sockets are
// /run/dbus/system_bus_socket and /run/systemd/private, its
// unit directories /etc/systemd/system and /run/systemd/system, the vendor
// unit directories are empty and /sys/fs/cgroup is its cgroup root, so
// systemctl, systemd-run, busctl and D-Bus libraries work unmodified and
// nothing on the host changes: the fake's directories not given are tmpfs
// mounts of the namespace (nothing survives run, even a SIGKILLed one),
// and a directory given that is, lies inside or contains one of the
// host's systemd or D-Bus directories is refused before any namespace is
// made (runguard.go). It takes the flags below but --socket,
// --private-socket and --print-address, and --log FILE for the trace and
// notes; its exit status is CMD's, 125 when run itself fails (one line on
// stderr, also where the kernel refuses the namespaces). With --user the
// fake is the caller's user manager instead (see "User manager" below).
// docs/fakesystemd.md
// in the source documents run, the flags and the script format (with a
// JSON Schema) for users of any language.
//
// Flags (one or two dashes):
//
//	--socket PATH          serve in bus mode, a stand-in for
//	                       /run/dbus/system_bus_socket: clients call Hello and
//	                       AddMatch as on a real system bus, and the manager is
//	                       org.freedesktop.systemd1
//	--private-socket PATH  serve peer-to-peer, like /run/systemd/private: no
//	                       Hello, no bus names (busctl cannot use it: it always
//	                       calls Hello)
//	--version STRING       Manager.Version, and the systemd release the fake
//	                       models: newer properties and methods are refused as
//	                       that release refuses them (default 252.38-1~deb12u1,
//	                       fakebus.DefaultVersion)
//	--backport NAME        make a property or method newer than --version
//	                       available, as distributions backport them (e.g.
//	                       EffectiveMemoryMax); repeatable
//	--script FILE          scripted job outcomes and unit files, in JSON (below)
//	--unit-dir DIR         the fake's persistent unit directory, its
//	                       /etc/systemd/system: LinkUnitFiles, EnableUnitFiles,
//	                       MaskUnitFiles and friends change symlinks there and
//	                       units load from the unit files in it (created if
//	                       needed, kept on exit; default: a temporary
//	                       directory removed on exit). The host's systemd
//	                       directories are refused while systemd runs the
//	                       host (see fakebus.WithUnitDir)
//	--runtime-unit-dir DIR the same for the runtime directory, its
//	                       /run/systemd/system (the calls' runtime flag)
//	--cgroup-root DIR      the fake's cgroup file system, its /sys/fs/cgroup:
//	                       while a service, scope or slice is active the
//	                       directory of its ControlGroup exists below DIR, and
//	                       a directory made below a delegated unit's is a
//	                       sub-cgroup AttachProcessesToUnit accepts (created
//	                       if needed; a real cgroup file system is refused;
//	                       see fakebus.WithCgroupRoot)
//	--user[=UID]           play the user manager (systemd --user) of UID,
//	                       by default of the caller's uid, rather than the
//	                       system manager: its ControlGroup is
//	                       /user.slice/user-UID.slice/user@UID.service,
//	                       every unit's control group lies below it, and
//	                       services and scopes go to app.slice (see
//	                       fakebus.WithUserManager). The uid follows "=":
//	                       --user 1000 is a usage error
//	--limit NAME=VALUE     a limit on what clients can make the fake hold
//	                       (below); repeatable
//	--allow-unprivileged   let every client do everything; by default only
//	                       uid 0 (and a user manager's own user) may, and
//	                       other users get what systemd answers them
//	                       (below, "Access control")
//	--polkit               refuse other users as systemd does with its
//	                       release's polkit and no agent to ask them: from
//	                       252 InteractiveAuthorizationRequired instead of
//	                       AccessDenied "Permission denied" (systemd without
//	                       polkit, and 247 with its polkit)
//	--made-up-pids         record a PID no process has in a scope's PIDs=
//	                       or AttachProcessesToUnit, as if it named a live
//	                       process; by default it is refused as systemd
//	                       refuses it (UnixProcessIdUnknown)
//	--trace                one line per message on stderr (below)
//	--no-control           do not serve the control interface (below,
//	                       "Control interface")
//	--call-log FILE        write every call systemd receives, with its
//	                       answer, as a line of JSON to FILE (below, "Call
//	                       log"); under run, FILE is opened in the
//	                       namespace (/run is its tmpfs). Not run's --log,
//	                       which takes the trace and notes
//	--print-address        once every socket accepts connections, print its
//	                       D-Bus address ("unix:path=/abs/path") on stdout, one
//	                       per line, the bus socket first
//
// At least one of --socket and --private-socket is required. A socket file
// already at either path is replaced. Nothing but the addresses is ever
// written to stdout, so a parent can start the command, read one line per
// socket and connect.
//
// -h (or --help) prints the usage on stdout and exits 0; its last line
// gives fakesystemd's own version, which --version is not (that is the
// systemd release modelled): the module version of the commit a package
// of make dist was built from (scripts/dist links it in), the module
// version go install recorded, or "(devel)" for a build from a clone.
//
// SIGINT or SIGTERM stops the command: it closes every connection, removes
// the socket files and exits with status 0. Errors are one line on stderr,
// "fakesystemd: ...", printed before anything is served: exit status 2 for a
// usage error (an unknown flag, no socket, an extra argument, a bad --version,
// --backport or --user), 1 for anything else (a script file that cannot be read or
// is invalid, a socket that cannot be created).
//
// # Control interface
//
// Unless --no-control, the bus socket (not the private one) serves a
// control interface for the test itself, fakebus.WithControl's: bus name
// io.github.sdbus_go.FakeSystemd (unique name :1.0), object
// /io/github/sdbus_go/FakeSystemd, interface
// io.github.sdbus_go.FakeSystemd1. It is not systemd's: systemd's name,
// objects and their introspection are the same with or without it. Only
// uid 0 and fakesystemd's own uid may call it (everyone with
// --allow-unprivileged). Its methods (durations in seconds):
//
//	ApplyScript(s script_json)                a script file's document (below), applied now
//	ScriptResult(s pattern, s result, u count) the next count jobs end with result (0: every job)
//	ScriptDelay(s pattern, d delay, d reply_delay)
//	ScriptFailure(s pattern, s result, s unit_result, i exit_status, u count)  the next count jobs fail so
//	ClearScripts()
//	ScriptConflicts() -> s conflicts_json     the conflicts found as jobs ran, a JSON array
//	SetUnitState(s name, s active_state, s sub_state, s result, a{sv} options)  options exit_status (i),
//	                                          main_pid (u), pids (au): a unit put into a state, no job
//	SetUnitProperties(s name, a(sv) properties)  as Manager.SetUnitProperties, whoever calls
//	MakeSubcgroup(s unit, s sub)              a sub-cgroup ("/payload") of a loaded unit, for AttachProcessesToUnit
//	AddUnitFile(s unit_json)                  one element of a script file's "units"; replaces
//	RemoveUnitFile(s name) -> b removed
//	UnitDirs() -> (s persistent, s runtime)   the unit directories
//	SetVersion(s version)
//	SetReloadDuration(d seconds)
//	SetReexecDuration(d seconds)
//	DaemonReload()
//	Reexecute(a{sv} options) -> (s old_name, s new_name)  options finish, lose (a{us}), forge (au), pending (u)
//	DropConnections()                         every connection but the caller's
//	DropAfterReply(s member, u count)
//	Clients() -> u count                      client connections, the caller's included
//	EmitJobRemoved(u id, o job, s unit, s result)
//	EmitJobRemovedFrom(s sender, u id, o job, s unit, s result)  claiming another sender, bus connections only
//	Unit(s name) -> (b loaded, s load_state, s active_state, s sub_state, s result, b transient, u job_id, au pids)
//	Jobs() -> u count
//	FinishJob(u id, s result) -> b found
//	WaitIdle(d timeout)                       until no job is queued or running; Timeout error
//	GetCalls(s member, s unit) -> s calls_json  the call log, filtered ("" for all; unit a pattern)
//	ClearCalls()
//	Reset()                                   back to the state at start, --script applied again;
//	                                          jobs canceled, clients kept
//
// docs/fakesystemd.md, "The control interface", has the introspection XML
// and what each method does.
//
// # Call log
//
// Every method call systemd receives (on the bus, to
// org.freedesktop.systemd1 or its unique name; every call on the private
// socket) is logged with its answer: the last 10000 in memory, for
// GetCalls, and with --call-log each as a line of JSON once answered (at
// exit for one never answered):
//
//	{"seq": 3, "time": "...", "connection": "bus", "sender": ":1.5", "pid": 4242, "uid": 0,
//	 "path": "/org/freedesktop/systemd1", "interface": "org.freedesktop.systemd1.Manager",
//	 "member": "StartUnit", "signature": "ss", "args": ["app.service", "replace"],
//	 "reply": {"time": "...", "error": "", "signature": "o", "args": ["/org/freedesktop/systemd1/job/7"]}}
//
// "reply" is null while there is no answer; an error reply has its name
// in "error" and its message in "args". Values map to JSON by their D-Bus
// type: b a boolean; integers numbers, written exactly; d a number ("NaN",
// "Infinity" and "-Infinity" strings); s, o, g strings; v
// {"type": SIGNATURE, "value": VALUE}; arrays and structs arrays; dicts
// objects with their keys as text. Calls to the bus driver and to the
// control interface are not logged (--trace shows every message).
//
// # Access control
//
// The fake refuses other users what systemd refuses them
// (fakebus.AccessRoot; docs/fakebus.md has the table, measured
// on systemd 247 to 262): a caller whose uid, as the fake's bus sees it
// (SO_PEERCRED), is not 0 may read (ListUnits, GetUnit, Get, GetAll,
// GetUnitFileState, Subscribe, ...), but starting, stopping, killing,
// enabling or linking units, daemon-reload and SetEnvironment answer
// org.freedesktop.DBus.Error.AccessDenied "Permission denied" (systemctl
// prints "Access denied"), as systemd with no polkit agent does, and what
// the bus policy of systemd keeps from users (EnqueueUnitJob, CleanUnit,
// property writes, Exit, ...) the bus rejects as dbus-daemon does. As on
// the system bus, no client, root included, may own a bus name or call
// another client's methods (signals and replies pass). The user manager
// (--user) treats its own user as privileged, as systemd --user does, and
// its bus allows both. --allow-unprivileged turns all of this off.
//
// Under fakesystemd run as root, CMD is root and may do everything; a
// process in CMD that drops to another uid is refused. Run as a normal
// user, the fake and CMD run in a user namespace that maps the caller to
// itself: the fake sees CMD's uid, not 0, so CMD is refused exactly as
// that user is refused on a real system (systemctl start: "Access
// denied"). This is the point: a program that works under run as a
// normal user also works on a real system as that user. Tests that need
// a normal user to start units pass --allow-unprivileged to run, or use
// run --user.
//
// # User manager
//
// With --user the fake plays a user manager, as systemd 252's reports
// itself (measured: systemctl --user show -p ControlGroup prints
// ControlGroup=/user.slice/user-2000.slice/user@2000.service for uid
// 2000). The sockets are still the ones given: a user manager's private
// socket is $XDG_RUNTIME_DIR/systemd/private (where systemctl --user and
// systemd-run --user connect first), and the session bus its clients
// find the manager on is $XDG_RUNTIME_DIR/bus (busctl --user,
// DBUS_SESSION_BUS_ADDRESS); --unit-dir plays ~/.config/systemd/user and
// --runtime-unit-dir $XDG_RUNTIME_DIR/systemd/user.
//
// fakesystemd run --user -- CMD runs CMD where the fake is the caller's
// user manager (uid 0's, with root's HOME, under sudo), at the paths real
// clients look at:
//
//   - XDG_RUNTIME_DIR=/run/user/UID: a private tmpfs of mode 0700 owned by
//     the caller, as user-runtime-dir@.service makes it, holding the fake's
//     private socket systemd/private, its bus socket bus, and its runtime
//     unit directory systemd/user. CMD gets XDG_RUNTIME_DIR and
//     DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/UID/bus.
//   - $HOME/.config/systemd/user is the fake's unit directory (--unit-dir,
//     or a tmpfs of the namespace), so FragmentPath and the symlinks systemctl
//     --user enable makes are the paths a user manager reports. The
//     home directory is never written: the directory is mounted over the
//     user's, or made in a tmpfs mounted over its nearest existing
//     parent, with the parent's entries bound back. HOME must be set to
//     an existing directory other than /.
//   - The other user unit directories, those systemd searches
//     (/etc/systemd/user, /etc/xdg/systemd/user and the others of
//     $XDG_CONFIG_DIRS, /run/systemd/user, /usr/local/share/systemd/user,
//     /usr/share/systemd/user and the others of $XDG_DATA_DIRS,
//     /usr/local/lib/systemd/user, /usr/lib/systemd/user,
//     ~/.local/share/systemd/user, ~/.config/systemd/user.control), are
//     empty, so client-side reads see only the fake's units.
//   - /sys/fs/cgroup is the fake's cgroup root (--cgroup-root), as for the
//     system manager: an active unit's directory is
//     /sys/fs/cgroup/user.slice/user-UID.slice/user@UID.service/app.slice/NAME.
//   - The system manager's paths stay the host's: /run/dbus, the system bus
//     (DBUS_SYSTEM_BUS_ADDRESS is left as it is), /run/systemd/private and
//     /etc/systemd/system are not the fake's, and CMD reaches the fake only
//     as its user manager. Where the host has no /run/systemd/system, an
//     empty one is made in the namespace: it is what sd_booted() checks,
//     a user manager runs only where systemd booted the machine, and
//     without it systemctl --user enable, disable and is-enabled would
//     change and read the unit files themselves rather than ask the fake.
//
// As for the system manager, nothing on the host changes, and when not
// root CMD and the fake run with the caller's uid in a user namespace.
// --user=UID for another uid than the caller's is a usage error: run
// plays the caller's user manager only. What the fake does not model of
// a user manager is listed in docs/fakebus.md ("The user manager"); for
// example, the Manager's UnitPath and Environment read empty, and its
// sockets' modes are not a user manager's (see fakesystemd's access
// rules).
//
// # Limits
//
// The fake runs in other people's test suites: a buggy or hostile client
// must not take it, or the machine, down. Like dbus-daemon, it bounds what
// clients can make it hold, and a client that passes a limit is
// disconnected, alone (with --trace, a "== limit" line says which and
// why); every other client carries on. --limit NAME=VALUE sets one, by
// dbus-daemon's name where it has one; sizes are bytes, or end in KiB,
// MiB or GiB; "none" lifts a limit:
//
//	max_message_size           8 MiB   the largest message a client may send;
//	                                   one announcing more is cut off at its
//	                                   first 16 bytes (dbus-daemon: 32 MiB)
//	max_incoming_bytes         64 MiB  what one connection's input may hold:
//	                                   bytes read (the buffer grows with the
//	                                   bytes that arrived, never with the
//	                                   length a message announces), the message
//	                                   being handled and its decoded values
//	                                   (dbus-daemon: 127 MiB); apart, the
//	                                   bytes of its messages waiting for
//	                                   other clients: beyond, the fake stops
//	                                   reading it until they are written
//	max_total_incoming_bytes   128 MiB the same for all connections; passing it
//	                                   closes the connection holding the most
//	max_outgoing_bytes         32 MiB  bytes waiting to be written to one
//	                                   connection: beyond, it gets no more
//	                                   messages and stays connected; a call
//	                                   for it is refused with LimitsExceeded,
//	                                   as by dbus-daemon (127 MiB)
//	max_total_outgoing_bytes   128 MiB the same for all connections; passing it
//	                                   closes the connection with the longest
//	                                   queue
//	decode_ratio               16      bytes of memory a message's decoded
//	                                   values may take per byte of the message
//	auth_timeout               10s     the time a connection may take to
//	                                   authenticate (dbus-daemon: 30s)
//	max_incomplete_connections 64      connections authenticating at once; one
//	                                   more closes the oldest (as dbus-daemon)
//	max_completed_connections  512     authenticated connections at once
//	                                   (dbus-daemon: 2048)
//	max_match_rules_per_connection 512 match rules of one connection, a
//	                                   monitor's included; one more is
//	                                   refused with LimitsExceeded, as by
//	                                   dbus-daemon (which does not limit a
//	                                   monitor's)
//	max_names_per_connection   512     names one connection owns, its unique
//	                                   name included (LimitsExceeded)
//	max_replies_per_connection 128     calls of one connection waiting for the
//	                                   fake's answer (LimitsExceeded)
//	max_message_unix_fds       16      unix fds one message may carry; more
//	                                   closes the connection (as dbus-daemon's
//	                                   system bus)
//	max_incoming_unix_fds      64      unix fds of one connection's messages
//	                                   waiting for other clients; beyond,
//	                                   the fake stops reading it (as
//	                                   dbus-daemon)
//	max_outgoing_unix_fds      64      unix fds waiting to be written to one
//	                                   connection; beyond, as
//	                                   max_outgoing_bytes
//
// Only root and the fake's own user may become a monitor (BecomeMonitor),
// as on dbus-daemon; the calls a client leaves with, unanswered, are
// forgotten with it. With the defaults the fake holds at most about 1.3 GiB
// for its clients, whatever they send, announce or ask for (see
// fakebus.Limits).
//
// # Script files
//
// A script file is one JSON object. Unknown fields, typos included, are
// errors; every field is optional, and "comment" fields are ignored:
//
//	{
//	  "comment": "anything",
//	  "scripts": [
//	    {"pattern": "run-*.scope", "result": "failed", "unit_result": "exit-code",
//	     "results": ["failed", "done"],
//	     "delay": "200ms", "reply_delay": "0s",
//	     "faults": ["job-removed-before-reply", "duplicate-job-removed"]},
//	    {"pattern": "web.service", "results": ["failed"], "unit_result": "signal", "exit_status": 9}
//	  ],
//	  "units": [
//	    {"name": "app.service", "masked": false, "active": false,
//	     "properties": {"Type": "s 'oneshot'",
//	                    "ExecStart": "a(sasb) [('/bin/true', ['/bin/true'], false)]",
//	                    "MemoryMax": "t 536870912"}}
//	  ],
//	  "reload_duration": "0s"
//	}
//
// Each entry of "scripts" is a fakebus.Script for the units whose names
// match "pattern" (path.Match syntax), applied in order, a later entry
// winning for the same unit, as Server.Script does:
//
//   - "result": the result of start, restart and reload jobs, whatever the
//     unit would do: done, canceled, timeout, failed, dependency, skipped,
//     invalid, assert, unsupported, collected, once or frozen. done leaves
//     the unit active (a service whose command runs, running it: SubState
//     running), failed and timeout leave it failed, others inactive.
//   - "results": the results of each matching unit's first start, restart
//     and reload jobs, one by one, before "result" applies; "" leaves that
//     job unscripted. ["failed", "done"]: the first start fails, the
//     second succeeds (the reset-failed-and-retry path).
//   - "unit_result": the unit's Result after a scripted failed or timeout
//     (success, protocol, timeout, exit-code, signal, core-dump, watchdog,
//     start-limit-hit, resources, oom-kill, exec-condition; default
//     exit-code, or timeout for "timeout"). Needs "result" or "results"
//     with failed or timeout.
//   - "exit_status": how a service's main process ended in a scripted
//     failed or timeout (ExecMainCode, ExecMainStatus): with unit_result
//     exit-code (the default for failed) its exit status, 1 to 255; with
//     signal the signal that killed it (not SIGHUP, SIGINT, SIGPIPE or
//     SIGTERM, a clean exit of a service); with core-dump a signal that
//     dumps core (fakebus.Script.ExitStatus). 0 is none.
//   - "delay": how long each job stays queued; "reply_delay": how late the
//     method reply is sent. Go durations ("200ms", "1.5s").
//   - "faults": misbehaviours (fakebus.Fault): job-removed-before-reply,
//     duplicate-job-removed, forged-job-removed, wrong-path-job-removed,
//     malformed-job-removed, drop-connection, drop-after-job-removed,
//     bus-timeout, polkit-no-reply.
//
// A result must not contradict what the fake works out from a service's
// commands (see "Faults" in docs/fakebus.md): done (or skipped)
// for a service whose start /bin/false fails (in ExecStartPre=, a oneshot's
// ExecStart=, ExecStartPost=) or whose main process exits non-zero at
// once, failed or timeout for one whose commands all exit 0 at once
// (/bin/true, sh -c 'exit 0'). Commands the fake does not know, and ones
// that run for a while (sleep 5, sleep infinity), leave the job to the
// script. A rule that contradicts a unit of "units" or a unit file in
// --unit-dir is an error naming the rule's step, the unit and the
// command; one that contradicts a unit made later (a transient unit) is
// found as its job runs: the script wins, and stderr gets one line,
//
//	fakesystemd: warning: script.json: scripts[0].results[0]: "failed" contradicts unit t-1.service: with ExecStart=/bin/true (Type=oneshot) its start job 5 succeeds; the script wins
//
// or, with --trace, a "== conflict" line (below).
//
// Each entry of "units" is a fakebus.UnitFile: a unit StartUnit, LoadUnit
// and friends find by name, "aliases" for its other names (Alias=),
// "masked" to make starting it fail with UnitMasked, "active" to have it
// active from the start, as a booted system's units are (a
// systemd-journald.service fixture, say; a service runs its command), and
// "properties"
// with the names and types StartTransientUnit takes: the fake checks each
// name, D-Bus type and value against the release it plays, as it checks a
// transient unit's, and an error names the property's path in the script
// (units[0].properties.MemoryMax: ...). These
// units have no file on disk: they play vendor units, static (or masked;
// indirect when they have aliases), behind the unit directories, and
// ListUnitFiles lists them under /usr/lib/systemd/system, where real unit files (INI syntax, the
// keys listed in docs/fakebus.md, "Unit files") can be linked,
// enabled and masked. "reload_duration" is how long each daemon-reload
// lasts (Server.SetReloadDuration).
//
// Property values are "TYPE VALUE": a D-Bus signature of one complete type,
// one space, and the value in GVariant text format: true/false, integers
// (decimal, 0x hex, 0-prefixed octal), doubles, strings, object paths and signatures in '...' or
// "..." with C escapes and \uXXXX, arrays [a, b], dictionaries {k: v},
// structs (a, b) and variants <TYPE VALUE> (GVariant's <@TYPE VALUE> too):
//
//	"s 'oneshot'"   "b true"   "t 536870912"   "as ['a.service', 'b.service']"
//	"a(sasb) [('/bin/sleep', ['/bin/sleep', '5'], false)]"   "a(ss) [('/dev/null', 'rw')]"
//
// An error names the file and the JSON path of the problem, for example:
//
//	fakesystemd: script.json: scripts[1].faults[0]: unknown fault "dup" (known: ...)
//	fakesystemd: script.json: units[0].properties.MemoryMax: "t lots": column 3: want a uint64, got "lots"
//	fakesystemd: script.json: scripts[0].result: "done" contradicts unit broken.service: with ExecStart=/bin/false (Type=oneshot) its start job fails; give the unit a command the fake does not interpret, or drop the rule
//
// testdata/example.json in the source is a complete example.
//
// # Trace format
//
// With --trace, every message the fake bus receives from or delivers to a
// client is one line on stderr:
//
//	DIR CLIENT KIND [NAME PATH] serial=N [reply_serial=N] [sender=S] [dest=D] (BODY)
//
// DIR is "->" for a message from the client, "<-" for one delivered to it.
// CLIENT is the client's unique name (":1.3"), or "-" when it has none: on
// the private socket, and for a bus client's Hello call. KIND is "call"
// followed by INTERFACE.MEMBER and the object path, "signal" followed by the
// same, "reply", or "error" followed by the error name. serial is the
// message's serial on the client's connection, reply_serial the serial of
// the call answered. sender and dest appear when the message has them and
// they are not CLIENT. BODY is the message's arguments separated by ", ",
// in the style of GVariant text: strings, object paths and signatures
// quoted as in Go (so a line never breaks), numbers and booleans bare,
// variants <v>, arrays [a, b], dictionaries {k: v} sorted by key, structs
// (a, b). A body longer than 300 bytes is cut and ends with "..." instead
// of ")". For example, an sdbus client starting a scope that a script
// makes fail, then busctl starting a slice that exists:
//
//	-> - call org.freedesktop.DBus.Hello /org/freedesktop/DBus serial=1 dest=org.freedesktop.DBus ()
//	<- :1.2 reply serial=1 reply_serial=1 sender=org.freedesktop.DBus (":1.2")
//	-> :1.2 call org.freedesktop.systemd1.Manager.StartTransientUnit /org/freedesktop/systemd1 serial=7 dest=org.freedesktop.systemd1 ("run-t1.scope", "replace", [("PIDs", <[4242]>)], [])
//	<- :1.2 reply serial=3 reply_serial=7 sender=:1.1 ("/org/freedesktop/systemd1/job/1")
//	<- :1.2 signal org.freedesktop.systemd1.Manager.JobRemoved /org/freedesktop/systemd1 serial=4 sender=:1.1 (1, "/org/freedesktop/systemd1/job/1", "run-t1.scope", "failed")
//	-> :1.5 call org.freedesktop.systemd1.Manager.StartTransientUnit /org/freedesktop/systemd1 serial=2 dest=org.freedesktop.systemd1 ("x.slice", "replace", [], [])
//	<- :1.5 error org.freedesktop.systemd1.UnitExists serial=4 reply_serial=2 sender=:1.1 ("Unit x.slice was already loaded or has a fragment file.")
//
// The fake's own notes, on what no message shows, are lines that start
// with "==", a kind, then KEY=VALUE fields, strings quoted as in Go and
// lists separated by commas:
//
//	== script unit=U job=N job_type=T rule=scripts[N] pattern=P step=S result=R [delay=D] [reply_delay=D] [faults=F,...]
//	== conflict unit=U job=N job_type=T rule=scripts[N] pattern=P step=S result=R outcome=O command=C service_type=T
//	== settings unit=U from=F [stored=NAME,...] [ignored=Section.Key,...]
//	== limit client=C pid=N limit=L value=N max=N
//
// "script" is a job a script rule matched as it was queued: the rule
// (scripts[N] of the script file, its pattern), the step that gives the
// job its result ("result", "results[N]"; "-" when the rule gives none,
// for a stop job or a "" step: the unit's commands decide) and the
// result ("-" then), and the rule's delay, reply delay and faults.
// "conflict" is a result that contradicts the unit's commands, found as
// the job ran (the script won): outcome is what the commands give
// (succeeds, fails, or unit-fails: the job is done, then the unit fails),
// command the one that decides it. "settings" names the settings a unit
// got, from StartTransientUnit, SetUnitProperties or its unit file (its
// path; "AddUnitFile" for a unit of the script's "units"), that the fake
// keeps without acting on them (stored: the list in docs/fakebus.md,
// "Settings"), and a unit file's assignments it did not
// use (ignored: an unknown key, a value it cannot use, a section it does
// not read). "limit" is a client disconnected because it passed a limit
// (above): its unique name ("-" before Hello and on the private socket),
// its process, the limit, what it would have reached (bytes, connections,
// nanoseconds for auth_timeout, the message's size for decode_ratio) and
// the limit's value. For example, a transient oneshot service running /bin/true
// that the script's second rule fails:
//
//	== settings unit="t-1.service" from="StartTransientUnit" stored=MemoryMax
//	== script unit="t-1.service" job=5 job_type=start rule=scripts[1] pattern="t-*.service" step=results[0] result=failed
//	== conflict unit="t-1.service" job=5 job_type=start rule=scripts[1] pattern="t-*.service" step=results[0] result=failed outcome=succeeds command="ExecStart=/bin/true" service_type=oneshot
//
// Lines are written whole, never mixed. The messages a client sends are
// traced in the order it sent them; messages delivered to it are traced as
// they are queued, so two queued at nearly the same time by different
// goroutines (a reply and a JobRemoved, say) may appear in either order,
// whatever their order on the wire. Read stderr, or send it to a file,
// while tracing: the fake stalls while a line cannot be written.
//
// # Example
//
//	fakesystemd --socket /tmp/t/bus --print-address &
//	busctl --address=unix:path=/tmp/t/bus call org.freedesktop.systemd1 \
//	    /org/freedesktop/systemd1 org.freedesktop.systemd1.Manager \
//	    StartTransientUnit 'ssa(sv)a(sa(sv))' x.slice replace 0 0
//	# o "/org/freedesktop/systemd1/job/1"
package main
