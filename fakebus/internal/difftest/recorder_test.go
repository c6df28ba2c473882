package difftest

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
)

// recorder is a rapid.TB that keeps what a check logged and whether it
// failed, so that a test can run a check that must fail (a planted
// divergence) and look at what rapid shrank it to, and the long run can
// go on after a divergence.
type recorder struct {
	name   string
	failed atomic.Bool
	mu     sync.Mutex // guards log
	log    []string
}

// run calls f on a goroutine of its own (FailNow ends it) and waits.
func (r *recorder) run(f func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	<-done
}

func (r *recorder) text() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.log, "\n")
}

func (r *recorder) Helper()      {}
func (r *recorder) Name() string { return r.name }
func (r *recorder) Logf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.log = append(r.log, fmt.Sprintf(format, args...))
}
func (r *recorder) Log(args ...any)                   { r.Logf("%s", fmt.Sprintln(args...)) }
func (r *recorder) Skipf(format string, args ...any)  { r.Logf(format, args...); runtime.Goexit() }
func (r *recorder) Skip(args ...any)                  { r.Log(args...); runtime.Goexit() }
func (r *recorder) SkipNow()                          { runtime.Goexit() }
func (r *recorder) Errorf(format string, args ...any) { r.Logf(format, args...); r.Fail() }
func (r *recorder) Error(args ...any)                 { r.Log(args...); r.Fail() }
func (r *recorder) Fatalf(format string, args ...any) { r.Errorf(format, args...); runtime.Goexit() }
func (r *recorder) Fatal(args ...any)                 { r.Error(args...); runtime.Goexit() }
func (r *recorder) FailNow()                          { r.Fail(); runtime.Goexit() }
func (r *recorder) Fail()                             { r.failed.Store(true) }
func (r *recorder) Failed() bool                      { return r.failed.Load() }
