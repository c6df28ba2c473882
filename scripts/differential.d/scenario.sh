#!/usr/bin/env bash
# The differential suite's scenario, run as root where systemd (or
# fakesystemd) is the system's: inside `fakesystemd run` and inside
# `scripts/sandbox run`. It prints the raw transcript on stdout: for every
# step a header line "=== CLIENT/STEP", what the step printed (stdout and
# stderr, merged in order), then "exit N" for shell steps. The Python and
# Node clients print their own steps in the same form. Normalization is the
# driver's (scripts/differential), never done here; a step only chooses what
# it prints: where a reply holds run-dependent values in bulk (GetAll,
# introspection data) it prints their names, types or count, and listings
# are cut to the client's own units (each such choice is commented at its
# step).
#
#   scenario.sh DIR     (DIR: this directory, with node_modules reachable
#                        through $NODE_PATH)
#
# Every client works on units of its own (ctl-*, run-*, bus-*, gd-*, py-*,
# js-*), so a step's outcome does not depend on another client's steps.
set -u
dir=$1
export SYSTEMD_PAGER=cat SYSTEMD_COLORS=0 LC_ALL=C.UTF-8 COLUMNS=200

# step NAME CMD...: one step, its output and exit status.
step() {
	local name=$1
	shift
	echo "=== $name"
	"$@" </dev/null 2>&1
	echo "exit $?"
}

# settle UNIT: waits (up to 5 s) until UNIT is no longer active,
# activating, deactivating or reloading, as a shell test would, then prints
# its state as `systemctl is-active` does. The wait only lets systemd's
# asynchronous work finish on a loaded machine; a unit that stays active
# still prints "active".
settle() {
	local i
	for ((i = 0; i < 50; i++)); do
		case $(systemctl is-active "$1") in
		active | activating | deactivating | reloading) sleep 0.1 ;;
		*) break ;;
		esac
	done
	systemctl is-active "$1"
}

# until_active UNIT: waits (up to 5 s) until UNIT is active, then prints
# its state.
until_active() {
	local i
	for ((i = 0; i < 50; i++)); do
		[[ $(systemctl is-active "$1") == active ]] && break
		sleep 0.1
	done
	systemctl is-active "$1"
}

# until_no_job UNIT_PATH: the busctl way of waiting for a job: polls the
# unit's Job property until it is (0, "/") (up to 5 s).
until_no_job() {
	local i
	for ((i = 0; i < 50; i++)); do
		[[ $(busctl get-property org.freedesktop.systemd1 "$1" org.freedesktop.systemd1.Unit Job) == '(uo) 0 "/"' ]] && return 0
		sleep 0.1
	done
	echo "the unit still has a job after 5 s"
}

units=/etc/systemd/system
cat >"$units/ctl-file.service" <<'UNIT'
[Unit]
Description=differential: a file unit
[Service]
ExecStart=/bin/sleep 300
Environment=A=1
[Install]
WantedBy=multi-user.target
UNIT
cat >"$units/ctl-fail.service" <<'UNIT'
[Unit]
Description=differential: a failing oneshot
[Service]
Type=oneshot
ExecStart=/bin/false
UNIT
cat >"$units/ctl-slow.service" <<'UNIT'
[Unit]
Description=differential: a slow start
[Service]
Type=oneshot
RemainAfterExit=yes
ExecStartPre=/bin/sleep 1
ExecStart=/bin/true
UNIT
cp "$units/ctl-file.service" "$units/bus-file.service"

# --- systemctl
step systemctl/daemon-reload systemctl daemon-reload
step systemctl/start-file systemctl start ctl-file.service
step systemctl/is-active systemctl is-active ctl-file.service
step systemctl/show systemctl show -p Id,LoadState,ActiveState,SubState,Type,Result,Description,FragmentPath,UnitFileState ctl-file.service
step systemctl/show-exec systemctl show -p ExecStart,Environment,DropInPaths ctl-file.service
step systemctl/status systemctl status -n0 --no-pager ctl-file.service
step systemctl/cat systemctl cat ctl-file.service
step systemctl/restart systemctl restart ctl-file.service
step systemctl/is-active-after-restart systemctl is-active ctl-file.service
step systemctl/list-units systemctl list-units --all --no-legend --plain 'ctl-*'
step systemctl/kill systemctl kill ctl-file.service
step systemctl/is-active-after-kill settle ctl-file.service
step systemctl/start-again systemctl start ctl-file.service
step systemctl/stop systemctl stop ctl-file.service
step systemctl/is-active-after-stop systemctl is-active ctl-file.service
step systemctl/start-failing systemctl start ctl-fail.service
step systemctl/is-failed systemctl is-failed ctl-fail.service
step systemctl/show-failed systemctl show -p ActiveState,SubState,Result ctl-fail.service
step systemctl/is-system-running-degraded systemctl is-system-running
step systemctl/list-units-failed systemctl list-units --failed --no-legend --plain 'ctl-*'
step systemctl/reset-failed systemctl reset-failed ctl-fail.service
step systemctl/is-failed-after-reset systemctl is-failed ctl-fail.service
step systemctl/is-system-running systemctl is-system-running
step systemctl/start-slow-no-block systemctl start --no-block ctl-slow.service
step systemctl/is-active-slow systemctl is-active ctl-slow.service
step systemctl/list-jobs systemctl list-jobs --no-legend 'ctl-*'
step systemctl/start-slow systemctl start ctl-slow.service
step systemctl/is-active-slow-after systemctl is-active ctl-slow.service
step systemctl/enable systemctl enable ctl-file.service
step systemctl/is-enabled systemctl is-enabled ctl-file.service
step systemctl/disable systemctl disable ctl-file.service
step systemctl/is-enabled-after-disable systemctl is-enabled ctl-file.service
step systemctl/status-missing systemctl status -n0 --no-pager ctl-nosuch.service
step systemctl/get-default systemctl get-default

# --- systemd-run
step systemd-run/service systemd-run --unit=run-sleep sleep 300
step systemd-run/show systemctl show -p LoadState,ActiveState,SubState,Type run-sleep.service
step systemd-run/stop systemctl stop run-sleep.service
step systemd-run/wait-true systemd-run --wait --unit=run-true true
step systemd-run/wait-false systemd-run --wait --unit=run-false false
step systemd-run/oneshot systemd-run -p Type=oneshot --unit=run-oneshot sleep 1
step systemd-run/oneshot-after systemctl is-active run-oneshot.service
step systemd-run/scope systemd-run --scope --unit=run-scope true
step systemd-run/scope-after settle run-scope.scope
scope_bg() {
	systemd-run --scope --unit=run-scope-bg sleep 2 &
	until_active run-scope-bg.scope
	wait $!
}
step systemd-run/scope-bg scope_bg
step systemd-run/scope-bg-after settle run-scope-bg.scope
step systemd-run/no-block systemd-run --no-block --unit=run-noblock sleep 300
step systemd-run/no-block-stop systemctl stop run-noblock.service
# A transient timer and its service, as systemd-run makes them: one an
# hour away waits; one due at once runs its service and is then elapsed.
step systemd-run/on-active systemd-run --on-active=3600 --unit=run-timer true
step systemd-run/on-active-show systemctl show -p LoadState,ActiveState,SubState,Result run-timer.timer run-timer.service
step systemd-run/on-active-now systemd-run --on-active=0 --timer-property=RemainAfterElapse=yes --unit=run-timernow true
step systemd-run/on-active-now-after sh -c 'for i in $(seq 50); do [ "$(systemctl show -P SubState run-timernow.timer)" = elapsed ] && break; sleep 0.1; done
	systemctl show -p ActiveState,SubState run-timernow.timer; systemctl show -p ActiveState,ExecMainCode,ExecMainStatus run-timernow.service'

# --- busctl
M=(org.freedesktop.systemd1 /org/freedesktop/systemd1 org.freedesktop.systemd1.Manager)
step busctl/get-unit-missing busctl call "${M[@]}" GetUnit s bus-nosuch.service
step busctl/start-unit busctl call "${M[@]}" StartUnit ss bus-file.service replace
step busctl/get-unit busctl call "${M[@]}" GetUnit s bus-file.service
step busctl/wait-job until_no_job /org/freedesktop/systemd1/unit/bus_2dfile_2eservice
step busctl/get-property sh -c 'busctl get-property org.freedesktop.systemd1 /org/freedesktop/systemd1/unit/bus_2dfile_2eservice org.freedesktop.systemd1.Unit ActiveState SubState LoadState'
step busctl/list-units-by-names busctl call "${M[@]}" ListUnitsByNames as 1 bus-file.service
step busctl/system-state busctl get-property "${M[@]}" SystemState
# The interfaces and their methods and signals, with signatures, in the
# introspection data's order; property values are run-dependent.
step busctl/introspect-unit-members sh -c 'busctl introspect --no-pager org.freedesktop.systemd1 /org/freedesktop/systemd1/unit/bus_2dfile_2eservice | awk "\$2 == \"method\" || \$2 == \"signal\" || \$2 == \"interface\" {print \$1, \$2, \$3}"'
# Only the reply's signature and its number of properties: the values
# (PIDs, timestamps, limits of the machine) are not the fake's to copy.
step busctl/getall-empty bash -o pipefail -c 'busctl call org.freedesktop.systemd1 /org/freedesktop/systemd1/unit/bus_2dfile_2eservice org.freedesktop.DBus.Properties GetAll s "" | cut -d" " -f1,2'
step busctl/stop-unit busctl call "${M[@]}" StopUnit ss bus-file.service replace
step busctl/unit-self sh -c 'systemd-run --scope --unit=bus-self busctl get-property org.freedesktop.systemd1 /org/freedesktop/systemd1/unit/self org.freedesktop.systemd1.Unit Id'

# --- gdbus (GLib), a shell test that polls its job until it is gone
"$dir/gdbus.sh"

# --- python3-dbus, with a GLib main loop, waits for JobRemoved
/usr/bin/python3 "$dir/pydbus.py" 2>&1

# --- node dbus-next, proxy objects, waits for JobRemoved
node "$dir/dbusnext.js" 2>&1
exit 0
