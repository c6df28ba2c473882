"""The python3-dbus client of the differential suite.

Written as a Python program using dbus-python usually is: proxy objects
(which introspect), Subscribe, and a GLib main loop that waits for the
JobRemoved signal of the job it started. Prints steps as scenario.sh does:
"=== python-dbus/STEP", then what the step saw (values, or "error NAME:
MESSAGE").
"""
import sys

import dbus
import dbus.mainloop.glib
from gi.repository import GLib

dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
SD = "org.freedesktop.systemd1"
MGR_IFACE = "org.freedesktop.systemd1.Manager"
bus = dbus.SystemBus()
manager = dbus.Interface(bus.get_object(SD, "/org/freedesktop/systemd1"), MGR_IFACE)
removed = {}


def on_job_removed(jid, job, unit, result):
    removed[str(job)] = (str(unit), str(result))


bus.add_signal_receiver(on_job_removed, "JobRemoved", MGR_IFACE, SD, "/org/freedesktop/systemd1")


def step(name, fn):
    print("=== python-dbus/" + name, flush=True)
    try:
        out = fn()
        if out is not None:
            print(out)
    except dbus.exceptions.DBusException as e:
        print("error %s: %s" % (e.get_dbus_name(), e.get_dbus_message()))
    sys.stdout.flush()


def wait_job(job):
    """Runs the main loop until JobRemoved for job (up to 10 s)."""
    job = str(job)
    loop = GLib.MainLoop()

    def check():
        if job in removed:
            loop.quit()
            return False
        return True

    GLib.timeout_add(20, check)
    GLib.timeout_add(10000, loop.quit)
    loop.run()
    if job not in removed:
        return "no JobRemoved for the job within 10 s"
    unit, result = removed[job]
    return "JobRemoved unit=%s result=%s" % (unit, result)


def props(unit, *names, iface="org.freedesktop.systemd1.Unit"):
    obj = bus.get_object(SD, manager.GetUnit(unit))
    p = dbus.Interface(obj, "org.freedesktop.DBus.Properties")
    return " ".join("%s=%s" % (n, p.Get(iface, n)) for n in names)


def start_and_wait(start):
    job = start()
    return wait_job(job)


sleep_props = dbus.Array([("ExecStart", dbus.Array([("/bin/sleep", ["/bin/sleep", "300"], False)], signature="(sasb)"))], signature="(sv)")
fail_props = dbus.Array([("Type", "oneshot"), ("ExecStart", dbus.Array([("/bin/false", ["/bin/false"], False)], signature="(sasb)"))], signature="(sv)")
slow_props = dbus.Array([("Type", "oneshot"), ("ExecStart", dbus.Array([("/bin/sleep", ["/bin/sleep", "1"], False)], signature="(sasb)"))], signature="(sv)")
no_aux = dbus.Array([], signature="(sa(sv))")

step("subscribe", lambda: manager.Subscribe())
step("start-transient", lambda: start_and_wait(lambda: manager.StartTransientUnit("py-sleep.service", "replace", sleep_props, no_aux)))
step("props", lambda: props("py-sleep.service", "Id", "LoadState", "ActiveState", "SubState"))
step("restart", lambda: start_and_wait(lambda: manager.RestartUnit("py-sleep.service", "replace")))
step("props-after-restart", lambda: props("py-sleep.service", "ActiveState", "SubState"))
step("kill", lambda: manager.KillUnit("py-sleep.service", "all", 9))
def settle(unit):
    """Polls ActiveState while it is active or deactivating (up to 5 s)."""
    for _ in range(50):
        if props(unit, "ActiveState") not in ("ActiveState=active", "ActiveState=deactivating"):
            break
        GLib.usleep(100000)
    return props(unit, "ActiveState", "SubState")


step("props-after-kill", lambda: settle("py-sleep.service"))
step("start-slow-oneshot", lambda: start_and_wait(lambda: manager.StartTransientUnit("py-slow.service", "replace", slow_props, no_aux)))
step("props-slow", lambda: props("py-slow.service", "ActiveState", "SubState"))
step("start-failing", lambda: start_and_wait(lambda: manager.StartTransientUnit("py-fail.service", "replace", fail_props, no_aux)))
step("props-failing", lambda: props("py-fail.service", "ActiveState", "SubState") + " " + props("py-fail.service", "Result", iface="org.freedesktop.systemd1.Service"))
step("system-state", lambda: dbus.Interface(bus.get_object(SD, "/org/freedesktop/systemd1"), "org.freedesktop.DBus.Properties").Get(MGR_IFACE, "SystemState"))
step("reset-failed", lambda: manager.ResetFailedUnit("py-fail.service"))
step("get-unit-after-reset", lambda: manager.GetUnit("py-fail.service"))
step("list-units", lambda: "\n".join(sorted("%s %s %s %s" % (u[0], u[2], u[3], u[4]) for u in manager.ListUnits() if str(u[0]).startswith("py-"))))
step("stop", lambda: start_and_wait(lambda: manager.StopUnit("py-sleep.service", "replace")))
step("get-unit-missing", lambda: manager.GetUnit("py-nosuch.service"))
step("unsubscribe", lambda: manager.Unsubscribe())
