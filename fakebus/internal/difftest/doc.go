// Package difftest is the differential tester of fakebus: it runs the
// same sequences of operations on a real systemd and on fakebus playing
// the same release, and reports the first step where they differ.
//
// A sequence ([]Op) works on a pool of units of each type (two services,
// two scopes, a slice, a socket, a timer, a target) named after a prefix
// of its own, on their unit files (written from the grammar of files.go
// into the manager's unit directories or a directory of the run's own,
// linked, enabled, masked, reloaded), and on processes it spawns as the
// tester's children (live, exited but not reaped, reaped), so sequences
// never meet and a PID means the same process to both backends when they
// run in the same sandbox. Run
// executes a sequence on a Backend and returns one Step per operation:
// the reply, the job signals, the queued jobs and the pool's states and
// read-back settings once they settled (stayed the same over
// Backend.Settle, and on real systemd no service's main process was
// about to end and no scope had an empty control group soon after a
// spawned process died: Backend.LivePIDs). Its only normalizations (docs/fakesystemd.md lists
// them too): job ids become J1, J2, ... by appearance, spawned PIDs P0,
// P1, ..., other PIDs in GetUnitProcesses PID, Exec* times and PIDs are
// shown as set or 0, the unit directories and the run's own directory as
// $CONFIG, $RUNTIME and $DIR, and listed unit files sorted.
//
// The tests (TestDifferential, TestDifferentialEdges) run inside the
// systemd sandbox (scripts/conformance-systemd, make differential-fuzz);
// sequences are drawn and shrunk with pgregory.net/rapid. Differences
// that are not fixed are the known list (Known), each documented in
// docs/fakesystemd.md.
package difftest
