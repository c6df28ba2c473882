#!/bin/sh
# A shell test that drives fakesystemd through its control interface
# (io.github.sdbus_go.FakeSystemd, with busctl) and checks what systemctl and
# systemd-run asked of it, in the fake's memory (GetCalls) and in its call log
# file (--call-log). Run it where the fake is the system's systemd, with the
# call log where this script reads it:
#
#   fakesystemd run --call-log /run/fakesystemd-calls.jsonl -- sh examples/fakesystemd/shell/controls.sh
#
# (a path below /run is the namespace's own tmpfs: the log goes with it; set
# CALL_LOG to read another path). As root; as another user add
# --allow-unprivileged, or the fake refuses the starts, as systemd would.
#
# JSON is checked with python3's json module (any python3: only the standard
# library is used), so nothing beyond Debian's python3 is needed.
set -eu

CALL_LOG=${CALL_LOG:-/run/fakesystemd-calls.jsonl}

fail() {
	echo "shell controls example: FAIL: $*" >&2
	exit 1
}

# ctl METHOD SIGNATURE ARGS...: a call to the fake's control interface.
ctl() {
	busctl call io.github.sdbus_go.FakeSystemd /io/github/sdbus_go/FakeSystemd \
		io.github.sdbus_go.FakeSystemd1 "$@"
}

# calls MEMBER UNIT: the calls the fake kept in memory, as a JSON array (""
# selects all). busctl --json=short wraps the reply, {"type":"s","data":[S]};
# S is the array itself.
calls() {
	busctl --json=short call io.github.sdbus_go.FakeSystemd /io/github/sdbus_go/FakeSystemd \
		io.github.sdbus_go.FakeSystemd1 GetCalls ss "$1" "$2" |
		python3 -c 'import json, sys; print(json.load(sys.stdin)["data"][0])'
}

# expect WHAT PYTHON-EXPRESSION: fails unless the expression, over `calls`
# (the JSON array read from stdin), is true; prints the calls when it is not.
expect() {
	python3 -c '
import json, sys
calls = json.load(sys.stdin)
if not eval("(" + sys.argv[2] + ")"):
    print("not true: " + sys.argv[2], file=sys.stderr)
    for c in calls:
        print("  call %d %s %s -> %s" % (c["seq"], c["member"], json.dumps(c["args"]), c["reply"]), file=sys.stderr)
    sys.exit(1)
' "$1" "$2" || fail "$1"
}

[ -f "$CALL_LOG" ] || fail "no call log at $CALL_LOG: run this with fakesystemd run --call-log $CALL_LOG"

# A unit for the test, without writing a unit file (AddUnitFile: a vendor
# unit of the fake's), and a failure for its next start only.
ctl AddUnitFile s '{"name": "worker.service", "properties": {"ExecStart": "a(sasb) [(\"/usr/bin/worker\", [\"/usr/bin/worker\"], false)]"}}'
ctl ScriptResult ssu worker.service failed 1

if systemctl start worker.service 2>/dev/null; then fail "systemctl start worker.service succeeded; the script fails it"; fi
[ "$(systemctl is-failed worker.service || true)" = failed ] || fail "worker.service is not failed"

# systemctl asked for the start once, with job mode replace; the call itself
# succeeded (its reply is the job), the job failed.
calls StartUnit worker.service | expect "one StartUnit of worker.service, answered with a job" '
len(calls) == 1 and calls[0]["args"] == ["worker.service", "replace"]
and calls[0]["reply"]["error"] == "" and calls[0]["reply"]["args"][0].startswith("/org/freedesktop/systemd1/job/")'

# ClearCalls empties the fake's memory, not the call log file. The retry
# (ScriptResult's count 1 is used up) succeeds.
ctl ClearCalls
calls '' '' | expect "no call after ClearCalls" 'calls == []'
systemctl reset-failed worker.service
systemctl start worker.service || fail "the retry of worker.service failed"
calls '' worker.service | expect "ResetFailedUnit then StartUnit of worker.service, nothing from before ClearCalls" '
[c["member"] for c in calls if c["member"] in ("ResetFailedUnit", "StartUnit")] == ["ResetFailedUnit", "StartUnit"]'

# systemd-run passes its -p settings in StartTransientUnit: the call shows the
# property with its D-Bus type (MemoryMax=256M is the uint64 268435456).
ctl ScriptResult ssu batch.service failed 0
if systemd-run --unit=batch -p MemoryMax=256M /bin/sleep 60 >/dev/null 2>&1; then
	fail "systemd-run --unit=batch succeeded; the script fails it"
fi
calls StartTransientUnit batch.service | expect "StartTransientUnit of batch.service with MemoryMax 256M" '
len(calls) == 1 and ["MemoryMax", {"type": "t", "value": 268435456}] in calls[0]["args"][2]'

# The call log file has every call, one JSON line each, those before
# ClearCalls too: here the first, failed start of worker.service and the
# StartTransientUnit, each with the job its reply named.
expect "the call log has both starts of worker.service and the StartTransientUnit" '
[c["args"][0] for c in calls if c["member"] in ("StartUnit", "StartTransientUnit")]
== ["worker.service", "worker.service", "batch.service"]' <<EOF
[$(paste -sd, "$CALL_LOG")]
EOF

echo "shell controls example: ok"
