#!/usr/bin/python3
"""Python tests with a fresh fakesystemd per test, in the style of pytest fixtures.

The program under test is start_worker() below: it asks systemd for a
transient service with a memory limit and reports how its start job ended.
Each test gets its own fake (the `fake` fixture): fakesystemd serving a bus
socket in a temporary directory, with its call log in a file there. The test
drives the fake through its control interface (io.github.sdbus_go.FakeSystemd:
ScriptResult, Unit, GetCalls, ClearCalls) and reads the call log file.

Run it with pytest (Debian's python3-pytest) or without, as a script, where
main() below plays the part of pytest for the fixture:

    /usr/bin/python3 -m pytest -q examples/fakesystemd/python/test_controls.py
    /usr/bin/python3 examples/fakesystemd/python/test_controls.py

The fake is the program `fakesystemd` on the PATH, or the one $FAKESYSTEMD
names. No `fakesystemd run` is needed: the tests talk to the fake's socket.

Which python: the D-Bus module used here, dbus-python (`import dbus`, with
GLib's main loop from `gi`), comes from Debian's python3-dbus and python3-gi,
installed for /usr/bin/python3 only. A pyenv or venv python does not see
them (a venv does with --system-site-packages); the test stops at once, with
a message saying so, when the module is missing. jeepney (python3-jeepney,
or pip) works as well: see the note at private_connection().

The singleton trap: dbus.SystemBus() (and dbus.SessionBus()) return one
shared connection per process, made the first time and kept. With a fake per
test, the second test's dbus.SystemBus() is still the first test's
connection, to a fake that is gone, whatever DBUS_SYSTEM_BUS_ADDRESS says by
then. So the program under test takes its connection as an argument, and
tests give it a private one (dbus.bus.BusConnection(address)); a program
that must call dbus.SystemBus() itself can only be tested with one fake for
the whole process (or a process per test: fakesystemd run -- python3 ...).
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import traceback

try:
    import dbus
    import dbus.bus
    from dbus.mainloop.glib import DBusGMainLoop
    from gi.repository import GLib
except ImportError as e:
    sys.exit(f"test_controls.py: {sys.executable} cannot import {e.name!r}: this example needs dbus-python "
             "and PyGObject, which Debian's python3-dbus and python3-gi install for /usr/bin/python3; "
             "run it with /usr/bin/python3 (a pyenv or venv python does not see them)")

if "pytest" in sys.modules:  # collected by pytest: the fixture is pytest's
    import pytest
    fixture = pytest.fixture
else:  # run as a script: main() below sets the fixture up and tears it down
    def fixture(f):
        return f

SYSTEMD = "org.freedesktop.systemd1"
MANAGER_PATH = "/org/freedesktop/systemd1"
MANAGER = "org.freedesktop.systemd1.Manager"
TIMEOUT = 30  # seconds, for any one wait


# ---------------------------------------------------------------------------
# The program under test.

def start_worker(conn, name, memory_max):
    """Starts NAME as a transient service running /bin/sleep 600, limited to
    MEMORY_MAX bytes, and returns its start job's result ("done", "failed",
    ...), from systemd's JobRemoved signal. conn is a dbus-python connection
    made with a GLib main loop."""
    results = {}

    def job_removed(_id, job, _unit, result):
        results[str(job)] = str(result)

    # Listen before starting: the job may end before StartTransientUnit's
    # reply comes back.
    match = conn.add_signal_receiver(job_removed, signal_name="JobRemoved", dbus_interface=MANAGER,
                                     path=MANAGER_PATH)
    try:
        try:  # subscribe, as systemd's clients do, for the manager's job signals
            conn.call_blocking(SYSTEMD, MANAGER_PATH, MANAGER, "Subscribe", "", ())
        except dbus.DBusException as e:
            if e.get_dbus_name() != "org.freedesktop.systemd1.AlreadySubscribed":
                raise
        properties = [
            ("MemoryMax", dbus.UInt64(memory_max, variant_level=1)),
            ("ExecStart", dbus.Array([("/bin/sleep", ["/bin/sleep", "600"], False)], signature="(sasb)",
                                     variant_level=1)),
        ]
        job = conn.call_blocking(SYSTEMD, MANAGER_PATH, MANAGER, "StartTransientUnit", "ssa(sv)a(sa(sv))",
                                 (name, "fail", properties, []))
        wait_until(lambda: str(job) in results, f"JobRemoved of {job}")
        return results[str(job)]
    finally:
        match.remove()


def wait_until(condition, what, timeout=TIMEOUT):
    """Runs GLib's main loop, which delivers the signals, until condition()
    is true; fails after timeout seconds."""
    context = GLib.MainContext.default()
    deadline = time.monotonic() + timeout
    tick = GLib.timeout_add(100, lambda: True)  # wakes the loop to look at the deadline
    try:
        while not condition():
            if time.monotonic() > deadline:
                raise AssertionError(f"no {what} in {timeout}s")
            context.iteration(True)  # waits for a message (or the tick), handles it
    finally:
        GLib.source_remove(tick)


# ---------------------------------------------------------------------------
# The fixture: one fake per test.

def private_connection(address):
    """A connection of its own to the bus at ADDRESS, never the process-wide
    dbus.SystemBus() (see the singleton trap above). With jeepney:
    jeepney.io.blocking.open_dbus_connection(bus=address)."""
    return dbus.bus.BusConnection(address, mainloop=DBusGMainLoop())


class Fake:
    """A running fakesystemd: its bus address, a private connection to it,
    its control interface and its call log file."""

    def __init__(self, address, conn, call_log):
        self.address = address
        self.conn = conn
        self.call_log = call_log

    def control(self, method, signature="", *args):
        """Calls METHOD of the control interface and returns its reply's
        values (None, one value, or a tuple of them)."""
        return self.conn.call_blocking("io.github.sdbus_go.FakeSystemd", "/io/github/sdbus_go/FakeSystemd",
                                       "io.github.sdbus_go.FakeSystemd1", method, signature, args)

    def calls(self, member="", unit=""):
        """The calls the fake received and keeps in memory (GetCalls): dicts,
        oldest first; "" selects all."""
        return json.loads(self.control("GetCalls", "ss", member, unit))

    def logged_calls(self):
        """Every call of the call log file, ClearCalls or not."""
        with open(self.call_log) as f:
            return [json.loads(line) for line in f]


@fixture
def fake():
    program = os.environ.get("FAKESYSTEMD") or shutil.which("fakesystemd")
    if not program:
        raise RuntimeError("no fakesystemd on the PATH; set FAKESYSTEMD to the program")
    with tempfile.TemporaryDirectory(prefix="fakesystemd-test-") as d:
        args = [program, "--socket", os.path.join(d, "bus"), "--print-address",
                "--call-log", os.path.join(d, "calls.jsonl")]
        if os.geteuid() != 0:
            # As systemd, the fake lets only root start units; a test run as
            # a normal user stands in for a program that runs as root.
            args.append("--allow-unprivileged")
        proc = subprocess.Popen(args, stdout=subprocess.PIPE, text=True)
        try:
            # fakesystemd prints the address once it accepts connections
            # (nothing if it failed: it said why on stderr and exited).
            address = proc.stdout.readline().strip()
            if not address:
                raise RuntimeError(f"fakesystemd exited with status {proc.wait()}")
            conn = private_connection(address)
            try:
                yield Fake(address, conn, os.path.join(d, "calls.jsonl"))
            finally:
                conn.close()
        finally:
            proc.terminate()  # SIGTERM: it closes its socket and exits 0
            proc.wait(timeout=TIMEOUT)


# ---------------------------------------------------------------------------
# The tests.

MIB = 1024 * 1024


def test_failed_start_is_reported(fake):
    # The next start of worker-1.service fails, as if its program exited 1.
    fake.control("ScriptResult", "ssu", "worker-*.service", "failed", 1)

    assert start_worker(fake.conn, "worker-1.service", 256 * MIB) == "failed"

    # The fake's view of the unit (the control interface's Unit: loaded,
    # load, active and sub state, result, ...).
    loaded, _load, active, _sub, result, transient, _job, _pids = fake.control("Unit", "s", "worker-1.service")
    assert (bool(loaded), str(active), str(result), bool(transient)) == (True, "failed", "exit-code", True)

    # What the program asked for: one StartTransientUnit, with the memory
    # limit it was given, as a D-Bus uint64.
    (call,) = fake.calls("StartTransientUnit", "worker-1.service")
    assert call["args"][0] == "worker-1.service"
    assert ["MemoryMax", {"type": "t", "value": 256 * MIB}] in call["args"][2]
    assert call["reply"]["error"] == ""  # the call succeeded; its job failed

    # The call log file has the same call, under the same number.
    assert call["seq"] in [c["seq"] for c in fake.logged_calls() if c["member"] == "StartTransientUnit"]


def test_retry_after_reset_failed(fake):
    fake.control("ScriptResult", "ssu", "worker-*.service", "failed", 1)
    assert start_worker(fake.conn, "worker-1.service", 64 * MIB) == "failed"

    # Forget what came before; only the retry's calls are kept from here.
    fake.control("ClearCalls")
    assert fake.calls() == []

    # The failed unit stays loaded: reset it, then start it again. The
    # script's one failure is used up, so this start succeeds.
    fake.conn.call_blocking(SYSTEMD, MANAGER_PATH, MANAGER, "ResetFailedUnit", "s", ("worker-1.service",))
    assert start_worker(fake.conn, "worker-1.service", 64 * MIB) == "done"
    assert [c["member"] for c in fake.calls("", "worker-1.service")] == ["ResetFailedUnit", "StartTransientUnit"]

    # The call log file keeps both starts: ClearCalls empties only the
    # fake's memory.
    starts = [c for c in fake.logged_calls() if c["member"] == "StartTransientUnit"]
    assert len(starts) == 2


def test_each_test_has_a_fresh_fake(fake):
    # Nothing of the tests above is left: no script, no unit, no call.
    assert fake.calls() == []
    assert not fake.control("Unit", "s", "worker-1.service")[0]
    assert start_worker(fake.conn, "worker-1.service", 64 * MIB) == "done"


# ---------------------------------------------------------------------------
# Without pytest: run each test_* function with a fixture of its own, as
# pytest would, and print one line per test.

def main():
    if not __debug__:
        sys.exit("test_controls.py: run without python -O, which drops the assert statements that check")
    failed = 0
    tests = [(name, f) for name, f in globals().items() if name.startswith("test_") and callable(f)]
    for name, test in tests:
        setup = fake()  # the fixture, a generator: up to its yield, then the rest
        try:
            test(next(setup))
            print(f"{name}: ok")
        except Exception as e:  # noqa: BLE001 (a test's failure, reported)
            failed += 1
            print(f"{name}: FAIL: {type(e).__name__}: {e}", file=sys.stderr)
            traceback.print_exc()
        finally:
            setup.close()  # runs the fixture's finally blocks: the fake is stopped
    print(f"{len(tests) - failed}/{len(tests)} passed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
