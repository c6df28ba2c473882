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
// # What it models
//
// The manager follows systemd's rules for what clients can observe, and the
// conformance suite (fakebus/internal/conformance) checks each of them
// against systemd 252:
//
//   - Units with load, active and sub states and the type's Result;
//     transient services, scopes, slices and sockets (a socket listens in
//     name only, never triggers its service, and keeps that service
//     loaded; it is running while that service runs, listening
//     otherwise, as systemd's socket_trigger_notify has it); sockets,
//     timers, paths, mounts, automounts and swaps from unit files, which
//     load the unit they trigger, and devices (see Unit files); slices created implicitly with their parents; the units of
//     a booted system always active and never stopped: -.slice,
//     system.slice, -.mount (SetUnitProperties takes its cgroup settings)
//     and init.scope, which holds PID 1 (GetUnitByPID(1)); systemd's
//     standard targets as vendor unit files (boot.go: sysinit.target,
//     basic.target, shutdown.target, the targets of each unit type, the
//     file-system, network and time targets), those a boot to
//     multi-user.target pulls in active, the others loadable and
//     inactive, with the played release's descriptions (a unit file of
//     the same name replaces one); the system manager's units of the
//     system bus and of the journal, dbus.socket, dbus.service,
//     systemd-journald.service and the sockets it takes
//     (systemd-journald.socket, systemd-journald-dev-log.socket, and
//     systemd-journald-audit.socket before 257), static vendor unit files
//     of the release's Debian packages, all active and running from the
//     start, as a booted Debian system has them (boot.go): no process
//     plays their services (MainPID 0), and started again by a client
//     they run as other services do; unit files declared Active
//     (UnitFile.Active) are active from the start too, a service running
//     its command (a systemd-journald.service fixture).
//   - A process's unit (GetUnitByPID; GetUnitByPID(0) and
//     /org/freedesktop/systemd1/unit/self for the caller's PID from its
//     bus credentials): the unit that
//     recorded the PID, or that recorded a live ancestor of it (a forked
//     process stays in its parent's control group); none for PID 1's
//     other descendants. SystemState is "degraded" while a unit is
//     failed, "running" otherwise ("stopping" and "maintenance" while
//     shutdown.target, rescue.target or emergency.target is active or
//     queued); the fake starts booted, never "starting".
//   - A failed transient unit stays loaded, keeping its name (UnitExists),
//     until ResetFailedUnit, unless CollectMode is inactive-or-failed;
//     inactive transient units are unloaded. A name with a file or a mask
//     is UnitExists too; a unit loaded without either and without a job
//     (a slice started with no file, a dependency's target no file
//     defines, loaded as not-found while a unit names it) becomes the
//     transient unit, as systemd's unit_is_pristine lets it.
//   - Jobs: JobNew before the reply, the reply before JobRemoved; a job
//     runs from a run queue after the call that queued it has replied, as
//     systemd runs its run queue at idle priority in a later event-loop
//     iteration: only once no other call is pending at the manager (one
//     that was waiting when the job was queued, or the calling
//     connection's next message, already read or still in the socket),
//     so such a call sees the unit with its job queued; a client that
//     answers the reply with its next call sees the job done. The queue
//     lets at most 16 callers in a row go first, then runs, so a steady
//     stream of calls cannot starve it (fakebus/runqueue.go). Merging of
//     a job into a queued job of the same type (the same path for every
//     caller); a conflicting job canceled synchronously, before the reply
//     of the job that replaced it (or TransactionIsDestructive with mode
//     fail); Requires=, BindsTo= and a unit's slice pulled in and waited
//     for, with the dependency result when they fail; Wants= pulled in;
//     a Requires=, BindsTo= or Requisite= unit that cannot be loaded fails
//     the call (NoSuchUnit, UnitMasked); Requisite= units that are not
//     active (or starting) end the start with dependency, starting
//     nothing (a verify-active job); Conflicts=, either way round, stops
//     the other unit first; a stop job also stops the units that
//     Require=, are BoundTo= or PartOf= its unit, before it; a restart
//     (RestartUnit, and TryRestartUnit, ReloadOrRestartUnit,
//     ReloadOrTryRestartUnit when they restart) queues a try-restart, a
//     restart job, for each active unit that Requires=, is BoundTo= or
//     PartOf= its unit, transitively, ending done, or dependency when a
//     requirement's restart fails (the unit then ends stopped); Wants=
//     does not propagate, nor does anything under the modes
//     ignore-requirements and ignore-dependencies; a unit that stops or
//     fails by itself stops the units BoundTo= it (Requires= does not);
//     Condition*= (done, unit stays inactive) and Assert*= (assert),
//     tested in that order at each start: assertions only when the
//     conditions hold, each result recorded with when it was tested
//     (ConditionResult, ConditionTimestamp, AssertResult,
//     AssertTimestamp; false and never until a start tests them).
//   - Services run a few commands it understands: /bin/true, /bin/false,
//     /bin/sleep N, and sh -c 'exit N' or 'sleep N'; other commands run
//     until they are stopped. A start job lasts as long as the start
//     commands would, with the unit activating meanwhile: ExecStartPre=
//     commands run in turn (activating/start-pre; sleep N takes N
//     seconds, sleep infinity until the unit is stopped, a command it does
//     not know ends at once with 0), and a Type=oneshot start job ends
//     when its ExecStart= does; canceling the job leaves the start going
//     on. RemainAfterExit, exit codes (Result exit-code), a service
//     stopped during ExecStartPre= or a oneshot during ExecStart= (Result
//     signal). There is no sd_notify: a Type=notify service counts as
//     started once its main process runs, unless that is a command the
//     fake interprets and that keeps running (sleep N, which never
//     notifies): then it stays activating until TimeoutStartUSec=, as on
//     systemd (the same for Type=forking). ExecStartPost=, ExecReload=,
//     ExecStop= and ExecStopPost= commands run at once, in order, with the
//     exit status the same language gives them (a command it does not
//     know exits 0, a sleep takes no time):
//     one that fails without a "-" prefix fails the start (the unit fails,
//     Result exit-code), the reload job (the unit keeps running) or the
//     stop (the job is done, the unit ends failed, Result exit-code).
//     ExecCondition= is kept, not run. KillUnit with SIGTERM or SIGINT
//     ends a service's main process cleanly (the unit goes inactive, as
//     after exit 0; SuccessExitStatus= has them by default), SIGKILL fails
//     it (Result signal); ExecMainPID,
//     ExecMainCode and ExecMainStatus (an exit, or the signal that ended
//     the process: 15 when stopped) and their timestamps.
//   - daemon-reload: Reloading(true), JobRemoved held back until
//     Reloading(false); calls received meanwhile are answered after it,
//     as systemd reads no message while it reloads (a daemon-reexec
//     ends a reload under way first). daemon-reexec: private connections dropped, the
//     manager moves to a new unique name, jobs survive with their
//     requesters. On every release the old instance releases
//     org.freedesktop.systemd1 (NameOwnerChanged old → ""), the new one
//     connects, then takes it ("" → new); that the new instance can end
//     a job in between (as 262 was seen to do) is up to the test
//     (Reexecute with Reexec.Finish), whatever the release. As on
//     dbus-daemon, the calls on the bus the old instance has not answered
//     get NoReply ("Message recipient disconnected from message bus
//     without replying") right after it released its names, and the
//     manager never acts on those it had not read; SetReexecDuration
//     keeps it serializing (reading nothing) for a while first, as
//     systemd takes 0.1 to 0.5 s.
//   - Subscribe/Unsubscribe (AlreadySubscribed, NotSubscribed),
//     PropertiesChanged on state changes, UnitNew and UnitRemoved.
//   - Who gets signals, as systemd decides it: direct (private socket)
//     connections get every signal; on the bus, unit and manager signals
//     (PropertiesChanged, UnitNew, UnitRemoved, Reloading) go out only
//     while some client is subscribed, and a job's JobNew and JobRemoved
//     while some client is subscribed or the job has a requester (the
//     client that asked for it and every client whose request merged into
//     it; one that disconnects stops counting; requesters survive
//     daemon-reload and daemon-reexec). Jobs pulled in as dependencies
//     have no requester. Subscriptions end with their connection.
//   - Aliases (UnitFile.Aliases, as Alias= or symlinks give them): once the
//     unit is loaded every name finds it (GetUnit, LoadUnit, the job
//     methods, Get and GetAll on the alias's own object path), but replies
//     and signals use the primary name and its object path only:
//     PropertiesChanged, JobRemoved, ListUnits, Id; Names lists every name.
//   - Properties of the Manager, Unit, Service, Scope and Slice interfaces
//     (Get, GetAll), loading a unit read by path; StartTransientUnit and
//     SetUnitProperties check each property's name, signature and value
//     against the configured release (WithVersion, WithBackport), refusing
//     unknown ones with PropertyReadOnly as systemd does. The
//     repository's one per-version table (fakebus/internal/sdversions,
//     which the conformance suite derives its expectations from too)
//     holds every difference between releases: when properties, values
//     (CPUWeight=0), job modes and Manager methods came (or went), and
//     what 258 and later leave out of GetAll and introspection while Get
//     still answers it (measured on 262). List properties
//     append (DeviceAllow rules are read back newest first, as systemd
//     prepends them), except that an empty DeviceAllow or per-device IO
//     list clears the list.
//   - Real processes placed in a unit (a scope's PIDs=,
//     AttachProcessesToUnit) by the process itself or by an ancestor of it
//     are watched, with a pidfd where the kernel has one (procwatch.go): a
//     PID leaves its unit when its process ends, and a scope whose last
//     process has ended goes inactive/dead (Result success, no job) and is
//     collected, as systemd does when the scope's control group empties.
//     Any other PID (one that names an unrelated process, or with
//     WithMadeUpPIDs none) is recorded, never watched, and keeps its unit
//     running. A zombie placed in a scope joins it not at all; a scope of
//     zombies only runs until stopped or, from 252, until the next
//     daemon-reload or daemon-reexec, after which systemd finds its
//     control group empty (procwatch.go's catchupLocked).
//   - AttachProcessesToUnit with systemd's checks in its order: the
//     sub-cgroup absolute and normalized, the unit delegated (Delegate= or
//     DelegateControllers=, services and scopes), not inactive or failed,
//     the sub-cgroup existing (Server.MakeSubcgroup creates one, as a
//     delegated payload would, and so does a directory made below the
//     unit's under WithCgroupRoot), PID 1 refused, PID 0 the caller. A
//     process attached to a sub-cgroup is listed by GetUnitProcesses with
//     that cgroup's path, attached again it moves.
//   - More Manager methods, with systemd 252's checks and errors:
//     GetUnitByInvocationID (answering the unit's object path by
//     invocation ID, which Get and GetAll serve too),
//     GetUnitByControlGroup (the unit whose group contains the path),
//     GetUnitProcesses (the main process, with its ExecStart= command
//     line, and the recorded PIDs), RefUnit and UnrefUnit (a referenced
//     unit is not unloaded until its clients let go or disconnect),
//     ClearJobs, GetJobAfter and GetJobBefore, StartUnitReplace,
//     AbandonScope, SetEnvironment, UnsetEnvironment and
//     UnsetAndSetEnvironment (the Environment property), Dump,
//     EnableUnitFilesWithFlags and DisableUnitFilesWithFlags (runtime and
//     force as flags 1 and 2), EnqueueUnitJob (every job type systemd
//     252 takes, with the job, its unit, the collapsed job type and the
//     other jobs the call queued, as measured on systemd 247-262:
//     verify-active ends done on an active unit and skipped on an
//     inactive one; nop ends done; reload-or-start is a reload of an
//     active unit and a start of an inactive one, try-reload and
//     try-restart a reload or restart of an active unit and a nop of an
//     inactive one; a reload of a unit without ExecReload= is
//     JobTypeNotApplicable),
//     SetExitCode and SetShowStatus (checked, then without effect: the
//     fake has no ExitCode or ShowStatus property). Reboot,
//     PowerOff, Halt, KExec, SwitchRoot, Exit and SoftReboot (254+)
//     answer AccessDenied, as systemd answers a caller that is not root,
//     whoever calls: the fake never ends.
//   - The Manager methods of later releases, where the release has them
//     (UnknownMethod elsewhere), with the checks, order and errors
//     measured on systemd 252, 257 and 262: StartUnitWithFlags (250+;
//     flags 0 is StartUnit, any other InvalidArgs, as no release
//     measured accepts a flag), EnqueueMarkedJobs (248+; the fake has no
//     Markers=, so no unit is marked: an empty list), QueueSignalUnit
//     (254+; KillUnit's checks, a realtime signal only; the signal is
//     recorded, no process ends), EnqueueUnitJobMany (258+; every unit
//     checked before any job is queued, the jobs of the named units in
//     the reply, reply faults of scripts not applied), KillUnitSubgroup
//     (258+; delegated units, whom cgroup or cgroup-fail; a signal to the
//     unit's own cgroup, "" or "/", is KillUnit's, one to a sub-cgroup
//     ends none of the processes attached there, and cgroup-fail is
//     refused where none is) and RemoveSubgroupFromUnit (258+;
//     forgets the sub-cgroup, System.Error.EOWNERDEAD for a unit that is
//     not running, as its control group is gone). What the fake cannot
//     do it answers as systemd answers where it cannot either:
//     BindMountUnit and MountImageUnit (248+) check the unit (and on 252
//     the paths) and answer that it is not running in a private mount
//     namespace, as the fake runs no service in one; GetUnitByPIDFD
//     (253+) and StartAuxiliaryScope (255 to 257; with no process, after
//     the name checks) take file descriptors (pidfds): systemd fails to
//     read such a call without its descriptors and answers
//     InconsistentMessage "Bad message" (measured on 257 and 262), and
//     so does the fake, with them too (it resolves no pidfd).
//   - CleanUnit with systemd's checks in its order (resource types,
//     "fdstore" from 254; unit types that can be cleaned: service, socket,
//     mount, swap, others NotSupported; UnitBusy for a unit that is not
//     inactive or failed or has a job). The fake models no
//     RuntimeDirectory=, StateDirectory=, CacheDirectory=, LogsDirectory=,
//     ConfigurationDirectory= or FileDescriptorStoreMax=, so a unit it
//     would clean answers NothingToClean, as systemd does for a unit
//     without them; for the same reason DumpUnitFileDescriptorStore
//     (254+) answers FileDescriptorStoreDisabled for a service.
//   - Dump and DumpUnitsMatchingPatterns (250+; shell patterns on unit
//     names, only the matching units' blocks) answer text in the layout
//     of systemd-analyze dump whose content differs: far fewer settings,
//     no timestamps. DumpByFileDescriptor and
//     DumpUnitsMatchingPatternsByFileDescriptor (250+) reply with a file
//     descriptor holding the same text, made as systemd 252 makes it: a
//     memfd named "data-fd" at offset 0, sealed (F_GET_SEALS 0xf), or
//     /dev/null when there is nothing. The fake's unix sockets pass file
//     descriptors as dbus-daemon does (they answer NEGOTIATE_UNIX_FD with
//     AGREE_UNIX_FD; a Pipe and Conn's in-memory connections do not);
//     systemd never replies to a connection that cannot take them
//     (measured on 247, 252 and 262, through dbus-daemon and on the
//     private socket), so neither does the fake: the caller's timeout
//     ends the call.
//   - Dynamic users: the fake has none. GetDynamicUsers answers an empty
//     list, LookupDynamicUserByName and LookupDynamicUserByUID answer
//     NoSuchDynamicUser, or InvalidArgs for a name or UID systemd does not
//     take (an empty or numeric name, UID 65535 or 4294967295).
//   - The errors systemd answers with: UnitExists, NoSuchUnit, NoSuchJob,
//     UnitMasked, OnlyByDependency, JobTypeNotApplicable, InvalidArgs for
//     bad modes and values, NoUnitForPID, NoSuchProcess, UnitBusy,
//     NothingToClean, BadUnitSetting, NoSuchDynamicUser,
//     FileDescriptorStoreDisabled, NoIsolation, InconsistentMessage for a
//     call whose file descriptors could not come with it, UnknownMethod
//     for methods the release lacks.
//   - Unit files on disk: two unit directories (WithUnitDir,
//     WithRuntimeUnitDir; temporary ones by default) play
//     /etc/systemd/system and /run/systemd/system. The unit-file methods
//     (LinkUnitFiles, EnableUnitFiles, DisableUnitFiles,
//     ReenableUnitFiles, MaskUnitFiles, UnmaskUnitFiles, PresetUnitFiles,
//     PresetUnitFilesWithMode and PresetAllUnitFiles (the fake's preset
//     policy enables everything, so disable-only changes nothing),
//     RevertUnitFiles (drop-in directories, and for a unit with a vendor
//     version every file or symlink of its name there, with the symlinks
//     to them), GetUnitFileLinks (what DisableUnitFiles would remove;
//     none for a unit without a file, and on a 247 user manager, which
//     looks in the system's directories; System.Error.EUCLEAN, on 247
//     InvalidArgs, for a bad
//     name), GetDefaultTarget and SetDefaultTarget (default.target in the
//     persistent directory, to a target's file in a unit directory; a
//     linked or alias name answers UnitLinked, a vendor unit without a
//     file NotSupported), GetUnitFileState, ListUnitFiles,
//     ListUnitFilesByPatterns, AddDependencyUnitFiles (a .wants/ or
//     .requires/ symlink to a target as if the unit's [Install] said so;
//     type Wants or Requires, an invalid target BadUnitSetting, on 247
//     InvalidArgs), DisableUnitFilesWithFlagsAndInstallInfo (254+:
//     DisableUnitFiles and whether a unit has an [Install] section or is
//     linked; force refused)) change and
//     read symlinks there with systemd's change lists, states and errors
//     (from 252 an enable into a WantedBy=/RequiredBy= target without a
//     unit file adds a "destination not present" change after its
//     symlink, also when the symlink is there already);
//     units load from the unit files there ([Unit], the type's section and
//     [Install], with the keys listed under Unit files below), masked ones refuse
//     to start (UnitMasked), .wants/ and .requires/ symlinks add
//     dependencies, daemon-reload re-reads file-loaded units, and an
//     inactive unit loaded from a file (or transient) is unloaded unless a
//     loaded unit that must stay refers to it (mark and sweep, as
//     systemd's garbage collector). Units given with WithUnitFile or
//     AddUnitFile play vendor units without a file, behind the
//     directories; ListUnitFiles lists them under /usr/lib/systemd/system.
//   - WithUserManager plays a user manager (systemd --user) as measured on
//     247 to 262: its ControlGroup is /user.slice/user-UID.slice/user@UID.service,
//     every unit's control group lies below it, services and scopes go to
//     app.slice by default, and it is reached on its private socket (a
//     user manager has no bus of its own; the conformance suite runs its
//     user cases on it through PrivateConn). Its standard targets are a
//     user manager's (default.target, basic.target, sockets.target,
//     timers.target and paths.target active, shutdown.target; no
//     sysinit.target or multi-user.target: enabling into one adds a
//     "destination not present" change from 252, as everywhere for a
//     missing target), its services require basic.target instead of
//     sysinit.target, and an unprivileged user's manager (uid not 0)
//     fails a scope given another user's process, Result resources, with
//     its start job, as systemd does when it cannot move the process
//     (only the watched processes are checked: those placed by themselves or
//     an ancestor, see "Real processes placed in a unit").
//     UnitDir and RuntimeUnitDir play ~/.config/systemd/user and
//     $XDG_RUNTIME_DIR/systemd/user. Not modelled: the user manager's
//     other vendor units (exit.target, the graphical-session targets, the
//     units of dbus-user-session and the like).
//   - PID 1 in a unit's PIDs is refused ("Process 1 is a manager process,
//     refusing.", InvalidArgs), as by systemd's system and user managers,
//     and so is a PID no process has (UnixProcessIdUnknown "Process with
//     ID N does not exist.", from 257 "No such process";
//     sdbus.ErrNoSuchProcess), in PIDs= and in
//     AttachProcessesToUnit, unless WithMadeUpPIDs: a test places the PID
//     of a process it started (a zombie counts: see "Real processes
//     placed in a unit").
//   - On the private socket, messages carry the sender
//     org.freedesktop.systemd1, as systemd 252 sets it, and the
//     authentication is read as systemd reads it, into 256 bytes: a first
//     message that came whole in the read that brought BEGIN waits, unread,
//     until the client sends more (GetAll of the Manager sent with BEGIN:
//     never answered on 247, 252, 257 and 262 until a second message came).
//     A client that sends a small first call right behind BEGIN hangs on
//     the fake as it would on systemd; sdbus opens with a longer message.
//
// # Access control
//
// A caller is privileged when systemd would treat it so: its uid, as the
// fake's bus knows it, is 0 (or, for WithUserManager, the manager's own
// user, whom systemd --user trusts). The bus knows a unix socket client's
// uid from the kernel (SO_PEERCRED; a different uid named in AUTH
// EXTERNAL is refused) and a Pipe client's from what it names in AUTH
// EXTERNAL (godbus and sdbus name the process's own). By default
// (AccessOwner) the uid the fake's own process runs as is privileged
// too: Conn, Dial, RawConn and Pipe, and any client of the test's uid on
// Address, act as the root that the code under test is in production,
// whoever runs the tests; a client running as another uid is refused as
// systemd refuses it. WithAccess(AccessRoot) trusts uid 0 only (as
// fakesystemd does); WithAccess(AccessEveryone) lets every caller do
// everything.
//
// What an unprivileged caller gets is what systemd 247 to 262 answer uid
// 65534 through dbus-daemon with no polkit agent (access.go; checked on
// both backends by the conformance case UnprivilegedAccess):
//
//   - reads are answered: lookups, lists, Dump, GetUnitFileState and the
//     other unit-file reads, the dynamic users, Subscribe, UnrefUnit,
//     Properties.Get and GetAll, a unit's GetProcesses, a job's GetAfter
//     and GetBefore;
//   - what changes something asks polkit, answered AccessDenied
//     "Permission denied": the job methods and the Unit interface's,
//     StartTransientUnit, KillUnit, ResetFailedUnit, ResetFailed,
//     SetUnitProperties, RefUnit, CancelJob, ClearJobs, Reload,
//     Reexecute, SetShowStatus (on 247 sd-bus's "Access to ... not
//     permitted."), the unit-file methods that change files, and where
//     the release's bus policy lets users send them the environment
//     methods, EnableUnitFilesWithFlags and DisableUnitFilesWithFlags
//     (257+), QueueSignalUnit (257+), FreezeUnit and ThawUnit (262);
//     the checks systemd makes before it asks come first (a unit name,
//     a job mode, KillUnit's whom and signal, a job or unit that does
//     not exist, a unit without delegation, a preset mode or flags,
//     environment assignments, a live mount's missing namespace from
//     257);
//   - the rest is kept from users by systemd's bus policy
//     (org.freedesktop.systemd1.conf) and rejected on the bus with
//     dbus-daemon's AccessDenied "Rejected send message, 2 matched rules;
//     ...": EnqueueUnitJob, CleanUnit, AbandonScope, StartUnitWithFlags,
//     SetExitCode, Exit, Reboot and the like, every Properties.Set. The
//     private socket has no bus policy (systemd's is root's only).
//
// Besides calling systemd, the system bus's policy holds for every
// client, root included (measured on 252; the conformance case
// BusPolicy): no client may own a bus name (RequestName answers
// AccessDenied "... is not allowed to own the service ... due to
// security policies in the configuration file"; root asking for
// org.freedesktop.systemd1 gets EXISTS) or call another client's methods
// ("Rejected send message, 1 matched rules; ..."); signals and replies
// pass. Real programs ship policy files for that, which the fake does not
// read. A user manager's bus is a session bus, which allows both;
// AccessEveryone lifts the policy too.
//
// With the release's polkit installed (its default rules) and no agent,
// systemd 252 and later answer InteractiveAuthorizationRequired instead
// of "Permission denied", whether or not the call allows interactive
// authorization (measured on 247 to 262 with Debian's polkit of each:
// sdversions.PolkitInteractive): WithPolkit makes the fake answer so.
//
// # Unit files
//
// The fake reads unit files in systemd.unit(5) syntax: the [Unit], the
// type's ([Service], [Slice], ...) and the [Install] sections
// (comments with # or ;, continuation lines ending in a backslash). The
// keys the fake understands become the properties StartTransientUnit
// would set:
//
//   - [Unit] Description=, Documentation=, the dependency lists Wants=,
//     Requires=, Requisite=, BindsTo=, PartOf=, Conflicts=, Before=,
//     After=, OnFailure=, the booleans DefaultDependencies=,
//     RefuseManualStart=, RefuseManualStop=, AllowIsolate=,
//     StopWhenUnneeded=, and CollectMode=;
//   - in the type's section: ExecStart=, ExecStartPre=, ExecStartPost=,
//     ExecStop=, ExecStopPost=, ExecReload=, ExecCondition= (a leading "-"
//     ignores failure; the prefixes "@", "+", "!", ":" are dropped),
//     Environment=, and every other setting whose name is that of a
//     string, boolean or string-list property StartTransientUnit takes for
//     the type (Type=, RemainAfterExit=, Restart=, Slice=, User=, KillMode=,
//     Delegate=, ...);
//   - in the type's section of a socket: ListenStream=, ListenDatagram=,
//     ListenSequentialPacket=, ListenFIFO=, ListenSpecial=,
//     ListenNetlink=, ListenMessageQueue=, ListenUSBFunction= (Listen,
//     addresses as written), Service=, Accept=, FileDescriptorName=; of a
//     timer: OnActiveSec=, OnBootSec=, OnStartupSec=, OnUnitActiveSec=,
//     OnUnitInactiveSec= (TimersMonotonic), OnCalendar= (TimersCalendar,
//     in systemd's normalized form, calendar.go; a spec systemd would
//     refuse is ignored),
//     Unit=, Persistent=, WakeSystem=, RemainAfterElapse=, AccuracySec=,
//     RandomizedDelaySec=; of a path unit: PathExists=, PathExistsGlob=,
//     PathChanged=, PathModified=, DirectoryNotEmpty= (Paths), Unit=,
//     MakeDirectory=; of a mount: What=, Where=, Type=, Options=; of a
//     swap: What=, Options=; of an automount: Where=;
//   - [Install] WantedBy=, RequiredBy= and Alias=, which EnableUnitFiles
//     and DisableUnitFiles act on.
//
// Like systemd, the fake ignores keys it does not know and assignments
// whose value it cannot use; an empty assignment resets a list. It says
// so: WithNotes gets a NoteSettings naming them ("Section.Key") as the
// unit loads. As systemd, it loads with LoadState bad-setting a service
// with neither ExecStart= nor ExecStop=, a socket without a Listen
// setting, a timer without a timer, a path unit without a path, a mount
// without What=, a mount or automount whose Where= is not the path its
// name stands for (a mount's and an automount's Where, a swap's What,
// default to that path).
//
// Loading a socket, timer, path unit or automount loads the unit it
// triggers (Triggers, and that unit's TriggeredBy): a socket's Service=,
// else the service of its name (none with Accept=yes); a timer's or path
// unit's Unit=, else the service of its name; an automount's mount of its
// name. A timer's monotonic values elapse and start its unit (timer.go:
// running while the unit runs, then waiting, elapsed or dead); its calendar
// values never do. The fake listens on no socket, watches no path and
// mounts nothing: started, such a unit is active in its type's sub-state
// (listening, waiting, mounted) and never triggers its unit. A device unit needs no file (its Description is
// its path). The fake plays systemd where its releases were measured, a
// container: devices (no udev), swaps and automounts are unit types it
// does not support there, so such a unit loads, CanStart and CanStop are
// false, and its start job ends unsupported.
//
// A unit's dependency lists (Requires, After, ...) are systemd's: what
// its settings name, the dependencies systemd adds by itself (its slice;
// the mount units of the paths it needs, RequiresMountsFor; the unit it
// triggers; systemd-journald.socket for a unit that logs to the journal;
// with DefaultDependencies=yes its type's default dependencies on
// sysinit.target, basic.target, shutdown.target, sockets.target,
// local-fs.target, umount.target and the like, as systemd adds them in a
// container), and the inverse of every other loaded unit's (RequiredBy,
// WantedBy, ConsistsOf, ...). The targets they name are the standard
// ones (boot.go), loaded as a client reads them, and so is
// systemd-journald.socket, a booted system's; a unit no file defines
// (syslog.socket, systemd-remount-fs.service) stays unloaded,
// where systemd loads it as not-found. Only the dependencies that
// settings name drive jobs: starting shutdown.target stops nothing.
//
// Drop-ins apply as in systemd: the *.conf files of NAME.d/ (for each of
// the unit's names), of its template's (a@.service.d/), of its name's
// prefixes' (a-b-.service.d/ and a-.service.d/ for a-b-c.service) and of
// its type's (service.d/) directories in both unit directories, the
// persistent one first; of drop-ins with the same file name only the
// first found counts (one symlinked to /dev/null reads empty); they apply
// after the unit file, sorted by file name, each from its own first
// section header, and an [Install] section in one counts for enabling.
// A unit loaded from a file shows it as systemd does (systemctl show,
// status and cat read these): FragmentPath is the file's path on the
// unit path (a linked file's symlink, a masked unit's symlink to
// /dev/null: /dev/null itself on 247), DropInPaths the drop-ins in the
// order they apply (before 257 a masked unit's too, which apply),
// UnitFileState the state GetUnitFileState gives when first read, kept
// until the unit is loaded again (daemon-reload), and UnitFilePreset
// "enabled" (the fake's
// preset policy enables everything, as Debian's does what no rule names;
// from 262 only units loaded from a file have a preset). A transient
// unit's FragmentPath is /run/systemd/transient/NAME (a user manager's
// /run/user/UID/systemd/transient/NAME), where systemd writes
// its settings (the fake writes no file there); that of a unit added
// with AddUnitFile, which has no file, is "".
// NeedDaemonReload says whether the unit file or its drop-ins changed on
// disk since the unit was loaded (modified, removed, a drop-in added or
// removed; before 257 a drop-in in a directory made since then goes
// unseen, as on systemd), until daemon-reload; from 257 it is true for
// every unit, transient ones too, once a unit-file method changed a
// file.
//
// # Settings
//
// Every setting StartTransientUnit and SetUnitProperties take, and unit
// files and UnitFile carry, is modelled (it changes what the fake does:
// jobs, states, checks), stored only, or refused (PropertyReadOnly or
// InvalidArgs; in a unit file, a line ignored as above). Stored-only
// settings are checked and kept, and Get reads back those the fake has a
// property for (the resource limits sum up in the Effective* ones), but
// the fake never acts on them. WithNotes gets a NoteSettings listing the
// ones each unit got (fakesystemd --trace: a "== settings" line), from
// StartTransientUnit, SetUnitProperties or its unit file. They are:
//
//	AccuracyUSec After AllowedCPUs AllowedMemoryNodes Before
//	BlockIOAccounting BlockIOWeight CPUAccounting CPUQuotaPerSecUSec
//	CPUQuotaPeriodUSec CPUShares CPUWeight DefaultDependencies
//	DelegateSubgroup DeviceAllow DisableControllers Documentation
//	Environment ExecCondition FinalKillSignal FixedRandomDelay
//	IOAccounting IODeviceLatencyTargetUSec IODeviceWeight
//	IOReadBandwidthMax IOReadIOPSMax IOWeight IOWriteBandwidthMax
//	IOWriteIOPSMax IPAccounting JobTimeoutUSec KillMode KillSignal
//	LimitCORE LimitMEMLOCK LimitNPROC Listen ManagedOOMMemoryPressure
//	ManagedOOMMemoryPressureDurationUSec ManagedOOMMemoryPressureLimit
//	ManagedOOMPreference ManagedOOMSwap MemoryAccounting MemoryHigh
//	MemoryHighScale MemoryLimit
//	MemoryLow MemoryMax MemoryMaxScale MemoryMin MemorySwapMax
//	MemoryZSwapMax Nice OOMPolicy OOMScoreAdjust OnActiveSec OnBootSec
//	OnCalendar OnClockChange OnFailure OnStartupSec OnTimezoneChange
//	OnUnitActiveSec OnUnitInactiveSec PartOf Persistent
//	RandomizedDelayUSec RemainAfterElapse Restart RestartUSec SendSIGHUP
//	SendSIGKILL StandardError StandardOutput StartLimitBurst
//	StartLimitIntervalUSec StartupAllowedCPUs StartupCPUWeight
//	StartupIOWeight StopWhenUnneeded TasksAccounting TasksMax
//	TasksMaxScale TimeoutStartUSec TimeoutStopUSec TimersCalendar
//	TimersMonotonic WakeSystem
//
// The others are modelled: Description, the dependencies Wants=,
// Requires=, Requisite=, BindsTo= and Conflicts=, RefuseManualStart=,
// RefuseManualStop=, AllowIsolate=, CollectMode=, Conditions, Asserts,
// Slice=, Type= and BusName= (a Type=dbus service waits for its name,
// which a program the fake knows never takes), the Exec* commands but
// ExecCondition=, RemainAfterExit=,
// a scope's PIDs, Delegate= and DelegateControllers=, a service's User=,
// Group=, DevicePolicy=, WorkingDirectory= and LimitNOFILE= (its main
// process fails before it runs, as systemd's does, with status 208/STDIN
// for DevicePolicy=strict and 203/EXEC for LimitNOFILE=0, and, in a
// transient unit, 217/USER for a user no account here has, 216/GROUP,
// 200/CHDIR for a missing directory, 203/EXEC for a program that does not
// exist here; a unit file's service describes the system the fake stands
// in for; the start job fails with it for every type but simple and
// idle, which do not wait for the program to run), RuntimeMaxUSec= (a
// service or scope
// active that long fails with result timeout), and a transient
// unit's AddRef= (a reference held by the client that made the unit, as
// RefUnit's: the unit stays loaded after it ends until that client
// disconnects, across a daemon-reexec too, and Refs lists the client;
// refused with InvalidArgs on the private socket, where a client has no
// bus name to track, as on 247, 252 and 262), and a service's
// StandardInputFileDescriptor=, StandardOutputFileDescriptor= and
// StandardErrorFileDescriptor= (systemd-run --pipe: StandardInput= and the
// others read "fd"; the fake keeps no descriptor, and takes them only for
// commands it interprets, which read and write nothing; for any other
// program, which it would have to pretend to run, NotSupported).
//
// # Faults
//
// Script scripts the jobs of units matching a pattern: a result, a delay,
// a late reply, and Faults: JobRemoved before the reply, duplicate,
// forged (another sender), misplaced (another path) or malformed
// JobRemoved signals, a connection dropped mid-job
// (FaultDropConnection) or right after the job's JobRemoved
// (FaultDropAfterJobRemoved: reply, JobRemoved, EOF, in that order), the
// bus's reply timeout (FaultBusTimeout: NoReply "Message did not receive a
// reply (timeout by message bus)", systemd still on the bus), or systemd
// forwarding polkit's NoReply with dbus-daemon's own text
// (FaultPolkitNoReply: a refusal, nothing done). DropConnections,
// FinishJob, EmitJobRemoved and EmitJobRemovedFrom do the same on demand.
// WithNotes gets a NoteScript for each job a rule matches: the rule
// (Rule: its index, pattern and step, "results[1]" say), the job and the
// result the rule gives it.
//
// A script result must not contradict what the fake works out from a
// service's commands. The fake decides a job alone when the commands it
// runs exit at once with a status it knows (/bin/true, /bin/false,
// sh -c 'exit N', sleep 0, in ExecStartPre=, ExecStart=, ExecStartPost=
// and, for reload jobs, ExecReload=, failures of "-" commands ignored):
// the start fails (a failing ExecStartPre=, ExecStartPost= or oneshot
// ExecStart=), is done and the unit then fails (a failing ExecStart= of
// another Type), or succeeds. done or skipped where the start fails or
// the unit fails, and failed or timeout where it succeeds, contradict
// it; other results (canceled, dependency, ...) describe what happened
// around a job and never do. A command the fake does not know, or one
// that runs for a while (sleep 5, sleep infinity), leaves the job to the
// script: give a unit such a command to script its failures. Script
// refuses a contradicting rule with a *ScriptConflict naming the unit,
// the rule's step and the deciding command when it can see the unit (a
// loaded unit, a UnitFile, a unit file in the unit directories), and so
// does AddUnitFile for a unit a rule already matches; for a unit it sees
// only later (a transient unit), the job's check lets the script win and
// records the conflict: ScriptConflicts, a NoteConflict, and New fails
// the test.
//
// Faults in a client connection's life:
//
//   - DropAfterReply(member, n) ends the connections of the next n calls
//     of a method right after their replies, bus driver methods (Hello,
//     AddMatch, GetNameOwner) and manager methods (Subscribe, GetUnit,
//     ...) alike: a client's connection can be cut between any two steps
//     of its setup, e.g. a reconnecting client's second connection.
//   - Reexecute(Reexec{...}) runs a daemon-reexec on demand (the name is
//     released, then taken by the new instance, as real systemd does),
//     and can end jobs (Finish) between the new instance connecting and it
//     owning org.freedesktop.systemd1, so that their JobRemoved come from
//     a unique name that does not own the name yet, and have a forger
//     (Forge) send JobRemoved from a unique name that never will. A match
//     rule naming org.freedesktop.systemd1 as sender matches the new
//     instance in that gap, as clients of systemd 262 observe. Pending
//     makes the old instance wait until that many calls are left unread
//     (they get NoReply), and Begun says when to send them.
//   - Clients counts the connections the fake serves, so that a test can
//     wait until the fake has forgotten a closed one.
//
// # Limits
//
// The fake's bus bounds what its clients can make it hold, as
// dbus-daemon's <limit> settings do, so that a buggy or hostile client
// cannot take it, or the machine, down: a client that passes a limit on
// what it sends, on time or on connections is disconnected, alone, with a
// NoteLimit (WithNotes); every other client carries on. WithLimits changes them; the defaults (dbus-daemon's for
// comparison):
//
//   - Input: a connection's read buffer grows with the bytes that arrived,
//     never with the length a message announces. MaxMessageSize 8 MiB per
//     message (32 MiB), refused at its first 16 bytes; MaxIncomingBytes 64
//     MiB per connection (127 MiB), counting the bytes read, the message
//     being handled and its decoded values; MaxTotalIncomingBytes 128 MiB
//     for all connections, passing which closes the connection holding the
//     most; DecodeRatio 16, the bytes of memory a message's decoded values
//     may take per byte of the message. A client's messages waiting for
//     other clients count apart, up to MaxIncomingBytes and
//     MaxIncomingUnixFDs 64 (64): beyond, the fake stops reading the
//     client until they are written, as dbus-daemon does.
//   - Output: MaxOutgoingBytes 32 MiB waiting for one connection (127
//     MiB), MaxOutgoingUnixFDs 64 (64): as on dbus-daemon, a connection
//     whose queue holds more gets no more messages and stays connected; a
//     method call for it is refused with LimitsExceeded ("Rejected:
//     destination has a full message queue, ..."), anything else is
//     dropped. So a client that stops reading misses messages, as it
//     would on dbus-daemon; one sender alone is slowed down instead.
//     MaxTotalOutgoingBytes 128 MiB for all (busd's own), passing which
//     closes the connection with the longest queue.
//   - Connections: AuthTimeout 10 s to authenticate (30 s);
//     MaxIncompleteConnections 64 authenticating at once, one more closing
//     the oldest (64); MaxConnections 512 authenticated (2048).
//   - Per connection, as dbus-daemon's system bus: MaxMatchRules 512 (a
//     monitor's included; dbus-daemon does not limit those), MaxNames 512
//     (the unique name included), MaxPendingReplies 128; one more is
//     refused with LimitsExceeded and dbus-daemon's message. Only root and
//     the fake's own user may BecomeMonitor, and the calls a client
//     leaves with are forgotten with it.
//
// With the defaults the bus holds at most the two totals plus 384 KiB of
// buffers and 1.8 MiB of rules, names and pending calls per connection,
// about 1.3 GiB in all, whatever clients send, announce or ask for (512
// connections at every limit at once measured 1.4 MiB each; what the
// manager keeps of their calls aside).
//
// # The D-Bus surface
//
// Each D-Bus interface is one table (vtable.go), as sd-bus's vtables are
// in systemd: each method with its signatures and argument names, each
// signal. The tables drive the dispatch (one dispatcher, dbus.go), the
// release gating (a Manager method the played release lacks answers
// UnknownMethod; sdversions.Methods), the signature check (InvalidArgs,
// "Invalid arguments 'i' to call org.freedesktop.systemd1.Manager.GetUnit(),
// expecting 's'.", as sd-bus words it) and Introspect. Properties are
// declared as the played release declares them: their order, access and
// annotations are the captured introspection data's (vtable.go,
// declaredLocked), so Introspect equals the captured releases' line for
// line for the manager, units, jobs and the inner nodes of the tree, with
// their child nodes (busctl tree; TestIntrospectCaptured), and GetAll
// answers in systemd's order (TestGetAllOrder). The methods
// of unit objects (org.freedesktop.systemd1.Unit.Start, Stop, Kill,
// EnqueueJob, SetProperties, ...; Service, Scope, Slice, Socket, Mount and
// Swap's GetProcesses, AttachProcesses, RemoveSubgroup, Abandon, ...) and of
// job objects (Job.Cancel, GetAfter, GetBefore) are answered as the
// Manager method each stands for (StartUnit, KillUnit, CancelJob, ...),
// on the object the path resolved to (object.go): a unit no file defines
// is loaded for the call, so Ref holds it and ResetFailed and Kill succeed
// on its path, as on systemd, where the Manager methods answer NoSuchUnit.
// Properties.GetAll with the empty interface name answers all the
// object's interfaces. The manager, each unit and each job answer every
// property the captured release nearest the played one has
// (sdversions.CapturedObject; TestPropertiesCaptured): those the fake
// models with its own values; a unit's setting (unit file, transient or
// runtime property; ExecStart and the other commands as a unit that has
// not run them shows them) where it has the release's type; the others as
// measured on a unit of the same type (a service from a file that never
// ran, for a service from a file), or, where the value varies (timestamps,
// PIDs, counts, what the host decides) or names the captured unit itself
// (paths, listen addresses), with systemd's "never" value (zero, empty).
// A unit's accounting settings default as the release's do (CPU, memory
// and tasks accounting on); TasksMax is the manager's DefaultTasksMax
// (a slice's infinity), which is 15% of the tasks the host allows, as
// systemd reckons it (the smaller of kernel.threads-max and
// kernel.pid_max minus one; a container's pids.max is not read).
// internal/sdversions/cmd/fakediff gives the figures.
//
// # Where each thing lives
//
// The files follow systemd's src/core: dbus_X.go answers dbus-X.c, a file
// named after a concept answers that concept's .c.
//
//   - dbus.go: the one entry point (HandleCall), the routing of a call to
//     its object's interfaces, error replies, signal sending and
//     subscriptions.
//   - object.go: what an object path names, resolved once per call and
//     read by methods, Properties and Introspect alike (a job that does
//     not exist is UnknownObject for all of them; a unit path of a valid
//     name loads the unit, found or not), with the table of answers
//     measured on 247–262.
//   - vtable.go: the table types, the signature check, release gating, and
//     the routing of unit and job methods to the Manager's handlers.
//   - dbus_introspect.go: org.freedesktop.DBus.Introspectable.
//   - dbus_properties.go: org.freedesktop.DBus.Properties (Get, GetAll,
//     GetAll(""), Set) and which properties each object has.
//   - dbus_manager.go: org.freedesktop.systemd1.Manager: its table, its
//     properties, and one handler per method, named for it (getUnit
//     answers GetUnit), which checks the arguments as systemd does and
//     calls the model (see The Manager's methods below).
//   - dbus_manager_unitfiles.go: the Manager's unit-file methods, one
//     handler each (Enable, Disable, Link, Mask, Preset, Revert,
//     AddDependency, GetUnitFileState, ListUnitFiles, ...; listed below);
//     the work on the unit directories is in install.go.
//   - dbus_unit.go: org.freedesktop.systemd1.Unit (its table and
//     properties) and the control-group methods every type shares.
//   - dbus_service.go, dbus_scope.go: the Service and Scope tables;
//     dbus_unit_type.go: the other types' tables and every type's
//     properties; dbus_job.go: org.freedesktop.systemd1.Job;
//     dbus_log_control.go: /org/freedesktop/LogControl1.
//   - dbus_unit_set.go: the properties SetUnitProperties and
//     StartTransientUnit accept, and their checks.
//   - The model, under the manager's one lock: manager.go (the manager,
//     its lock's rule, daemon-reload, lookups, the environment), runqueue.go
//     (PID 1's one thing at a time), unit.go (states, loading, garbage
//     collection, start, stop, reset-failed, freeze, clean), job.go (jobs,
//     their end and signals), transaction.go (checks, requirements,
//     conflicts, propagation, merging), dependencies.go (the dependency
//     lists as systemd shows them: implicit, default and inverse ones),
//     boot.go (the standard targets and the boot to multi-user.target),
//     service.go, trigger.go (sockets, timers, paths and automounts, the
//     units they trigger; what a mount's, swap's or device's name stands
//     for; which files load as bad-setting), timer.go (a transient
//     timer's settings), exec.go, condition.go,
//     cgroup.go, kill.go, transient.go, aliases.go, dynamicusers.go,
//     dump.go, reexec.go.
//   - Unit files on disk: install.go (the unit directories, enable,
//     disable, presets, masks, links, revert), load_fragment.go (parsing,
//     with the settings of each type's section and time spans),
//     calendar.go (calendar specs, as OnCalendar= takes them).
//   - server.go: Server, New, Start, options, connections; control.go: the
//     test-side controls (AddUnitFile, Unit, Jobs, FinishJob, ...);
//     script.go, scriptcheck.go: scripted job results; notes.go: notes;
//     release.go: the played release.
//
// # The Manager's methods
//
// Each Manager method's handler is in dbus_manager.go (the unit-file
// methods' in dbus_manager_unitfiles.go), and does its work in the model:
//
//   - GetUnit, LoadUnit, GetUnitByPID, GetUnitByInvocationID,
//     GetUnitByControlGroup, GetUnitByPIDFD: lookups in manager.go,
//     aliases.go and cgroup.go, loading in unit.go.
//   - StartUnit, StartUnitWithFlags, StartUnitReplace, StopUnit,
//     ReloadUnit, RestartUnit, TryRestartUnit, ReloadOrRestartUnit,
//     ReloadOrTryRestartUnit, EnqueueUnitJob, EnqueueUnitJobMany:
//     transaction.go, then job.go.
//   - KillUnit, KillUnitSubgroup, QueueSignalUnit: kill.go.
//   - CleanUnit, FreezeUnit, ThawUnit, ResetFailedUnit, ResetFailed,
//     RefUnit, UnrefUnit, AbandonScope: unit.go.
//   - SetUnitProperties: dbus_unit_set.go; StartTransientUnit:
//     transient.go; BindMountUnit, MountImageUnit: service.go.
//   - GetUnitProcesses, AttachProcessesToUnit, RemoveSubgroupFromUnit:
//     cgroup.go.
//   - GetJob, GetJobAfter, GetJobBefore, CancelJob, ClearJobs, ListJobs:
//     job.go.
//   - ListUnits, ListUnitsFiltered, ListUnitsByPatterns, ListUnitsByNames:
//     dbus_manager.go itself.
//   - Subscribe, Unsubscribe: dbus.go says who then receives what.
//   - Dump, DumpUnitsMatchingPatterns, DumpByFileDescriptor,
//     DumpUnitsMatchingPatternsByFileDescriptor: dump.go.
//   - Reload: manager.go; Reexecute: reexec.go.
//   - Exit, Reboot, SoftReboot, PowerOff, Halt, KExec, SwitchRoot:
//     refused, as systemd refuses a caller that is not root.
//   - SetEnvironment, UnsetEnvironment, UnsetAndSetEnvironment: manager.go.
//   - LookupDynamicUserByName, LookupDynamicUserByUID, GetDynamicUsers:
//     dynamicusers.go.
//   - EnqueueMarkedJobs, SetExitCode, SetShowStatus,
//     DumpUnitFileDescriptorStore, StartAuxiliaryScope: nothing to model;
//     answered as systemd answers for the fake's units.
//   - ListUnitFiles, ListUnitFilesByPatterns, GetUnitFileState,
//     EnableUnitFiles, DisableUnitFiles, EnableUnitFilesWithFlags,
//     DisableUnitFilesWithFlags, DisableUnitFilesWithFlagsAndInstallInfo,
//     ReenableUnitFiles, LinkUnitFiles, PresetUnitFiles,
//     PresetUnitFilesWithMode, MaskUnitFiles, UnmaskUnitFiles,
//     RevertUnitFiles, SetDefaultTarget, GetDefaultTarget,
//     PresetAllUnitFiles, AddDependencyUnitFiles, GetUnitFileLinks:
//     install.go.
//
// The methods of unit and job objects (Unit.Start, Service.BindMount,
// Scope.Abandon, Job.Cancel, ...) are answered by the handler of the
// Manager method each stands for (vtable.go), so they live where it does.
//
// # What it does not model
//
// Deliberately left out, because clients of the job API do not observe
// them or because they need a real system:
//
//   - Processes, cgroups and resource limits: PIDs are recorded and
//     watched, not moved, and never signalled (stopping or killing a unit
//     leaves its real processes running);
//     limits are stored and reported, never enforced; MemoryCurrent and
//     friends read as unknown (2^64-1). Effective* limits exist from 256
//     (or with WithBackport) and are the minimum over the slice chain.
//   - Generators, templates (an instance such as a@b.service does not
//     load from a@.service; drop-ins apply to it, a@.service.d/'s too, as
//     under Unit files), preset files (the preset policy
//     enables everything, systemd's default), [Install] Also= and
//     DefaultInstance=, and unit file settings other than those listed
//     under Unit files (ignored, as systemd ignores unknown keys). Transient
//     paths, mounts and swaps are refused; a transient socket takes
//     Listen= only; a transient timer takes the timer settings
//     systemd-run sends (timer.go). A timer's calendar values never
//     elapse.
//   - The full job-type merge matrix (only jobs of the same type merge; any
//     other pair conflicts), isolate (a unit without AllowIsolate=yes is
//     refused it, as on systemd; one with it starts as with replace),
//     OnFailure=, ordering without a
//     requirement (requirements are ordered as with After=), restart rate
//     limits, timeouts and Restart=.
//   - systemd garbage-collects units from a queue its main loop runs
//     before each event-loop iteration: after the job that ended was
//     announced (JobRemoved) and before it reads the next message. The
//     fake collects at once, after JobRemoved, which no client can tell
//     apart.
//   - PropertiesChanged of job objects (a job's State), which systemd sends
//     to the job's requesters; references on units (Unit.Ref, AddRef=),
//     which make systemd send a unit's signals without Subscribe.
//   - polkit itself: where systemd asks polkit, the fake answers as
//     systemd does when polkit cannot authorize ("Access control").
package fakebus
