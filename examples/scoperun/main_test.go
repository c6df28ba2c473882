package main

import (
	"bytes"
	"context"
	"sync"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// syncBuffer is a bytes.Buffer the command's output copier and the
// program may write at the same time.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestScopeRun(t *testing.T) {
	var stdout, stderr syncBuffer
	code, err := run(context.Background(), []string{"-unit", "run-test.scope", "-memory", "268435456", "-tasks", "8", "-cpus", "0.5",
		"--", "sh", "-c", "echo hello; exit 3"}, &stdout, &stderr)
	if err != nil {
		t.Fatal(err)
	}
	if code != 3 || stdout.String() != "hello\n" || stderr.String() != "Running as unit: run-test.scope\n" {
		t.Errorf("code %d, stdout %q, stderr %q", code, stdout.String(), stderr.String())
	}
	if _, err := run(context.Background(), nil, &stdout, &stderr); err == nil {
		t.Error("no command accepted")
	}
}
