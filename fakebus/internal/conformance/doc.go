// Package conformance holds the test suite that runs unchanged against
// fakebus and against real systemd releases (the host's, and 247, 252, 257
// and 262 in `make check`), so that every behaviour the fake claims is
// checked against the real thing: whatever fakebus does differently from
// systemd is a fakebus bug. What differs between releases the suite expects
// from the table in fakebus/internal/sdversions, for the release its
// manager reports.
//
// Against fakebus the suite runs in plain `go test ./...`, once per release
// the sandbox runs (the fake playing it with WithVersion), so that the fake
// and the real run of each release can be compared case by case. Against systemd
// it runs when SDBUS_SANDBOX=1 is set, inside the throwaway sandbox that
// scripts/sandbox boots; scripts/conformance-systemd [host|247|252|257|262]
// builds the test binary and runs it on each release.
package conformance
