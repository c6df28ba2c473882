#!/usr/bin/python3
"""A Python test against fakesystemd through jeepney (Debian's python3-jeepney).

It uses the system bus as any program does; run it where the fake is the
system's systemd:

    fakesystemd run --script examples/fakesystemd/script.json -- python3 examples/fakesystemd/python/test.py

as root; as another user add --allow-unprivileged, or the fake refuses the
calls that start units, as systemd refuses them a normal user.
"""
import sys

from jeepney import DBusAddress, DBusErrorResponse, MatchRule, Properties, message_bus, new_method_call
from jeepney.io.blocking import open_dbus_connection

SYSTEMD = DBusAddress("/org/freedesktop/systemd1", bus_name="org.freedesktop.systemd1",
                      interface="org.freedesktop.systemd1.Manager")


def call(conn, addr, method, signature=None, body=()):
    reply = conn.send_and_get_reply(new_method_call(addr, method, signature, body), timeout=30)
    if reply.header.message_type.name == "error":
        raise DBusErrorResponse(reply)
    return reply.body


def start_and_wait(conn, unit):
    """Starts unit and returns its job's result, from JobRemoved."""
    # Listen before starting: the job may end before StartUnit's reply.
    # (Signals carry the manager's unique name, not org.freedesktop.systemd1,
    # so the rule names no sender: jeepney's local filter compares it as is.)
    rule = MatchRule(type="signal", interface=SYSTEMD.interface, member="JobRemoved",
                     path=SYSTEMD.object_path)
    call(conn, message_bus, "AddMatch", "s", (rule.serialise(),))
    with conn.filter(rule) as signals:
        (job,) = call(conn, SYSTEMD, "StartUnit", "ss", (unit, "replace"))
        while True:
            _id, path, _unit, result = conn.recv_until_filtered(signals, timeout=30).body
            if path == job:
                return result


def unit_property(conn, unit, interface, name):
    (path,) = call(conn, SYSTEMD, "LoadUnit", "s", (unit,))
    reply = conn.send_and_get_reply(Properties(DBusAddress(path, SYSTEMD.bus_name, interface)).get(name), timeout=30)
    return reply.body[0][1]


def main():
    conn = open_dbus_connection(bus="SYSTEM")
    call(conn, SYSTEMD, "Subscribe")
    failures = []

    def check(what, got, want):
        if got != want:
            failures.append(f"{what}: got {got!r}, want {want!r}")

    check("start app.service", start_and_wait(conn, "app.service"), "done")
    check("app.service ActiveState",
          unit_property(conn, "app.service", "org.freedesktop.systemd1.Unit", "ActiveState"), "active")

    # The script fails flaky.service's first start: reset it and retry.
    check("first start of flaky.service", start_and_wait(conn, "flaky.service"), "failed")
    check("flaky.service Result",
          unit_property(conn, "flaky.service", "org.freedesktop.systemd1.Service", "Result"), "exit-code")
    call(conn, SYSTEMD, "ResetFailedUnit", "s", ("flaky.service",))
    check("second start of flaky.service", start_and_wait(conn, "flaky.service"), "done")

    # Errors are systemd's D-Bus errors.
    try:
        call(conn, SYSTEMD, "GetUnit", "s", ("no-such.service",))
        failures.append("GetUnit of an unknown unit succeeded")
    except DBusErrorResponse as e:
        check("GetUnit error", e.name, "org.freedesktop.systemd1.NoSuchUnit")

    conn.close()
    for f in failures:
        print("python example: FAIL:", f, file=sys.stderr)
    if failures:
        return 1
    print("python example: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
