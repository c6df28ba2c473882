// Package conformance holds the test suite that runs unchanged against
// fakebus and against a real systemd (252 in CI), so that every behaviour
// the fake claims is checked against the real thing: whatever fakebus does
// differently from systemd is a fakebus bug.
//
// Against fakebus the suite runs in plain `go test ./...`. Against systemd
// it runs when SDBUS_SANDBOX=1 is set, inside the throwaway sandbox that
// scripts/sandbox boots (scripts/conformance-systemd does both):
//
//	go test -c -race -o conformance.test ./fakebus/internal/conformance
//	scripts/sandbox run --stage conformance.test -- \
//	    sh -c '"$SANDBOX_STAGE"/conformance.test -test.v -test.run TestConformance'
package conformance
