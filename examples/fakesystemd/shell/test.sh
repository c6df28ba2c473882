#!/bin/sh
# A shell test against fakesystemd through systemctl and busctl, unmodified.
# Run it where the fake is the system's systemd:
#
#   fakesystemd run --script examples/fakesystemd/script.json -- sh examples/fakesystemd/shell/test.sh
#
# as root; as another user add --allow-unprivileged, or the fake refuses the
# calls that start units, as systemd refuses them a normal user.
set -eu

fail() { echo "shell example: FAIL: $*" >&2; exit 1; }

# Units of the script file start as they would on systemd.
systemctl start app.service
[ "$(systemctl is-active app.service)" = active ] || fail "app.service is not active"

# The script makes flaky.service's first start fail: the test sees the
# failure, resets it and retries, as it would on a real system.
if systemctl start flaky.service 2>/dev/null; then fail "the first start of flaky.service succeeded"; fi
[ "$(systemctl is-failed flaky.service)" = failed ] || fail "flaky.service is not failed"
result=$(busctl get-property org.freedesktop.systemd1 /org/freedesktop/systemd1/unit/flaky_2eservice \
	org.freedesktop.systemd1.Service Result)
[ "$result" = 's "exit-code"' ] || fail "Result is $result"
systemctl reset-failed flaky.service
systemctl start flaky.service
[ "$(systemctl is-active flaky.service)" = active ] || fail "flaky.service is not active after the retry"

# /etc/systemd/system is the fake's: a unit file written there is loaded,
# enabled and started, and the host's directory never sees it.
cat >/etc/systemd/system/hello.service <<'UNIT'
[Unit]
Description=hello
[Service]
ExecStart=/bin/sleep infinity
[Install]
WantedBy=multi-user.target
UNIT
systemctl daemon-reload
systemctl enable hello.service 2>/dev/null
[ "$(systemctl is-enabled hello.service)" = enabled ] || fail "hello.service is not enabled"
systemctl start hello.service
[ "$(systemctl is-active hello.service)" = active ] || fail "hello.service is not active"
systemctl stop hello.service
[ "$(systemctl is-active hello.service || true)" = inactive ] || fail "hello.service is still active"

echo "shell example: ok"
