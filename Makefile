# sdbus: the two commands a fresh machine needs are `make demo` and
# `make check`; the other targets are parts of `check` or extras.

GO          ?= go
BIN         := $(CURDIR)/.bin
STATICCHECK := $(BIN)/staticcheck
STATICCHECK_VERSION := v0.8.2
# Seconds per fuzz target: short in `make check`, longer with `make fuzz`.
FUZZTIME    ?= 60s
CHECK_FUZZTIME ?= 3s

.PHONY: demo check fakebus-then-fuzz test go-test lint vet fmt staticcheck fuzz fuzz-short bench soak conformance conformance-fakebus conformance-systemd gosystemd-suite fakesystemd-examples differential differential-fuzz tools dist dist-install-test

demo:
	$(GO) run ./examples/demo

# fakesystemd for machines without Go: a static binary and the Debian
# package dist/fakesystemd_VERSION_ARCH.deb (the program, its man page, docs
# and examples), versioned from the module's version of the commit (see
# scripts/dist); `sudo apt install ./dist/fakesystemd_*.deb` installs it.
dist:
	@scripts/dist dist

check: lint
	@$(MAKE) --no-print-directory -j2 --output-sync=target go-test fakebus-then-fuzz
	@$(MAKE) --no-print-directory conformance-systemd gosystemd-suite fakesystemd-examples dist-install-test differential

# What `check` runs beside go-test: the conformance suite on fakebus, then
# the short fuzz runs. Each of the two keeps about one core of two busy
# (go-test's packages, the fakes' cases, wait on timers much of the
# time), so `check` runs them at once, each target's output printed
# whole when it ends.
fakebus-then-fuzz: conformance-fakebus
	@$(MAKE) --no-print-directory fuzz-short

# Every test package with -race, the conformance suite on fakebus
# included: go-test runs all but TestConformanceFakebus, which
# conformance-fakebus runs and counts (so `check` runs it once). The bench
# module (its own go.mod) has tests too: go-systemd against fakesystemd,
# and benchtab; its benchmarks run only with `make bench`.
test: go-test conformance-fakebus

go-test:
	$(GO) test -race -count=1 -timeout 30m -skip '^TestConformanceFakebus$$' ./...
	cd bench && $(GO) test -race -count=1 ./...

lint: vet fmt staticcheck

vet:
	$(GO) vet ./...
	cd bench && $(GO) vet ./...

fmt:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

staticcheck: $(STATICCHECK)
	$(STATICCHECK) ./...
	cd bench && $(STATICCHECK) ./...

$(STATICCHECK):
	GOBIN=$(BIN) $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)

tools: $(STATICCHECK)

# Every native fuzz target, each for FUZZTIME.
fuzz:
	@scripts/fuzz $(FUZZTIME)

fuzz-short:
	@scripts/fuzz $(CHECK_FUZZTIME)

# Every benchmark of BENCHMARKS.md, interleaved over 5 rounds (~15 minutes);
# prints the results table. Groups and rounds: see the header of bench/run.
bench:
	bench/run

# Many goroutines on one reconnecting Conn for 10 minutes per target while
# the manager re-executes every 5 s, reloads, loses its bus every 30 s and
# sees bursts of other units; every outcome checked against the manager's record, one line per
# target (fakebus, systemd 252 and 262 by default; root for the real ones).
# Not part of `check`. Settings: see scripts/soak.
soak:
	@scripts/soak

# The conformance suite on both backends, with its pass counts: on
# fakebus playing 247, 252, 257 and 262 and their user managers (one line
# each; the eight run at once, their cases mostly waiting on the fakes'
# timers), and on those real releases.
conformance: conformance-fakebus conformance-systemd

conformance-fakebus:
	@$(GO) test -race -count=1 -v -parallel 8 -run '^TestConformanceFakebus$$' ./fakebus/internal/conformance >.conformance-fakebus.out 2>&1 \
		|| { cat .conformance-fakebus.out; rm -f .conformance-fakebus.out; exit 1; }
	@grep -o 'conformance on fakebus[^:]*: .*' .conformance-fakebus.out; rm -f .conformance-fakebus.out

# The same suite against real systemd releases booted in throwaway
# sandboxes: the host's (Debian 12's 252), and Debian's 247, 257 and 262 (their roots
# are built once, about a minute with network, and cached in
# /var/cache/sdbus-sandbox/roots). One line per release; root only, prints
# one line and succeeds where the sandbox cannot run.
conformance-systemd:
	@scripts/conformance-systemd

# go-systemd's own dbus test package (the version bench/go.mod requires),
# unmodified, against fakesystemd and against systemd 252 in the sandbox:
# the outcome of every test on both and one line per backend; fails when a
# test passes on systemd 252 but not on fakesystemd (about 20 s; the
# systemd 252 line says SKIPPED where the sandbox cannot run).
gosystemd-suite:
	@scripts/gosystemd-suite

# The shell, Python (jeepney) and Node (dbus-next) examples of
# examples/fakesystemd, each run inside `fakesystemd run`; the clients are
# installed first where missing (scripts/ensure-clients). One line per
# example; SKIPPED where the kernel refuses the namespaces.
fakesystemd-examples:
	@scripts/fakesystemd-examples

# The package of `make dist`, built into a temporary directory, installed
# with dpkg on a Debian 12 without Go (the bookworm root of scripts/sandbox
# with python3-jeepney, built once and cached; an overlay of it in private
# namespaces, chrooted), where the installed fakesystemd run runs the
# Python and shell examples it ships; then purged. One line (a few seconds;
# the root's first build about a minute); SKIPPED where the sandbox cannot run.
dist-install-test:
	@scripts/dist-install-test

# The differential suite: one scenario through systemctl, systemd-run,
# busctl, gdbus, python3-dbus and node's dbus-next, inside `fakesystemd run`
# and on systemd 252 in the sandbox; prints one line per client and
# "clients on fakesystemd: S/N steps as on systemd 252"; fails when a step
# listed in scripts/differential.d/matching stops matching (rewrite the list
# with `scripts/differential --update`). About a minute; SKIPPED where the
# sandbox or the namespaces cannot run.
differential:
	@scripts/differential

# The differential tester's long run: drawn sequences on each release and
# on fakebus playing it for DURATION (default 30m) per release, from SEED;
# each shrunk divergence is written to OUT (default .differential-fuzz/).
# `make check` runs a fixed seed per release (scripts/conformance-systemd).
differential-fuzz:
	@DURATION=$(DURATION) SEED=$(SEED) OUT=$(OUT) scripts/differential-fuzz $(RELEASES)
