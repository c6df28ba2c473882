package sdbus_test

import (
	"context"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// leakCheck verifies, after every other cleanup of t (fake servers,
// connections) has run, that no goroutine started by the test is left.
func leakCheck(t *testing.T) {
	t.Helper()
	base := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, base) })
}

// testCtx returns a context that ends well before the test binary's
// timeout, so that a hang fails one test with a clear message.
func testCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}
