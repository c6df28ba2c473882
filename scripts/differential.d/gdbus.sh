#!/usr/bin/env bash
# The GLib client of the differential suite: gdbus(1) calls, as a shell test
# would write them, waiting for a job by polling its object until it is
# gone. Prints steps as scenario.sh does ("=== gdbus/STEP", output, "exit N").
set -u
SD=(--system -d org.freedesktop.systemd1)
MGR=(-o /org/freedesktop/systemd1)
M=org.freedesktop.systemd1.Manager
P=org.freedesktop.DBus.Properties

step() {
	local name=$1
	shift
	echo "=== gdbus/$name"
	"$@" </dev/null 2>&1
	echo "exit $?"
}

# wait_job JOBPATH: polls the job's State until the object is gone (up to
# 10 s); prints the error that ended it.
wait_job() {
	local i out
	for ((i = 0; i < 100; i++)); do
		if ! out=$(gdbus call "${SD[@]}" -o "$1" -m $P.Get org.freedesktop.systemd1.Job State 2>&1); then
			echo "job gone: ${out%%:*}: $(sed -n 's/^[^:]*: \(GDBus.Error:[^ ]*\).*/\1/p' <<<"$out")"
			return 0
		fi
		sleep 0.1
	done
	echo "job still there after 10 s"
	return 1
}

# start_transient NAME PROPS: StartTransientUnit; prints the reply; sets job.
start_transient() {
	local out
	out=$(gdbus call "${SD[@]}" "${MGR[@]}" -m $M.StartTransientUnit "$1" replace "$2" '@a(sa(sv)) []' 2>&1)
	local rc=$?
	echo "$out"
	job=$(sed -n "s/^(objectpath '\(.*\)',)$/\1/p" <<<"$out")
	return $rc
}

unit_path() { echo "/org/freedesktop/systemd1/unit/$(sed 's/-/_2d/g; s/\./_2e/g' <<<"$1")"; }
job=""
step start-transient start_transient gd-sleep.service "[('ExecStart', <[('/bin/sleep', ['/bin/sleep', '300'], false)]>)]"
step wait-job wait_job "$job"
step get-active-state gdbus call "${SD[@]}" -o "$(unit_path gd-sleep.service)" -m $P.Get org.freedesktop.systemd1.Unit ActiveState
# Whether GetAll("") answers, not its values (PIDs, timestamps).
step getall-empty sh -c "gdbus call --system -d org.freedesktop.systemd1 -o $(unit_path gd-sleep.service) -m $P.GetAll '' >/dev/null"
# The interfaces and the names of their methods and signals, in the
# introspection data's order; property values are run-dependent.
step introspect-members sh -c "gdbus introspect --system -d org.freedesktop.systemd1 -o $(unit_path gd-sleep.service) | sed -n 's/^ *\(interface [^ ]*\) {$/\1/p; s/^ *\([A-Z][A-Za-z]*\)(.*/  \1/p'"
step kill gdbus call "${SD[@]}" "${MGR[@]}" -m $M.KillUnit gd-sleep.service all 15
# settle UNIT_PATH: polls ActiveState while it is active or deactivating
# (up to 5 s), then prints it.
settle() {
	local i
	for ((i = 0; i < 50; i++)); do
		case $(gdbus call "${SD[@]}" -o "$1" -m $P.Get org.freedesktop.systemd1.Unit ActiveState 2>&1) in
		*"'active'"* | *"'deactivating'"*) sleep 0.1 ;;
		*) break ;;
		esac
	done
	gdbus call "${SD[@]}" -o "$1" -m $P.Get org.freedesktop.systemd1.Unit ActiveState
}
step get-active-state-after-kill settle "$(unit_path gd-sleep.service)"
step start-failing start_transient gd-fail.service "[('Type', <'oneshot'>), ('ExecStart', <[('/bin/false', ['/bin/false'], false)]>)]"
step wait-job-failing wait_job "$job"
step get-result gdbus call "${SD[@]}" -o "$(unit_path gd-fail.service)" -m $P.Get org.freedesktop.systemd1.Service Result
step list-units-by-patterns sh -c "gdbus call --system -d org.freedesktop.systemd1 -o /org/freedesktop/systemd1 -m $M.ListUnitsByPatterns '@as []' \"['gd-*']\" | grep -o \"('gd-[^']*', '[^']*', '[^']*', '[^']*', '[^']*'\""
step reset-failed gdbus call "${SD[@]}" "${MGR[@]}" -m $M.ResetFailedUnit gd-fail.service
step get-unit-after-reset gdbus call "${SD[@]}" "${MGR[@]}" -m $M.GetUnit gd-fail.service
step get-unit-missing gdbus call "${SD[@]}" "${MGR[@]}" -m $M.GetUnit gd-nosuch.service
exit 0
