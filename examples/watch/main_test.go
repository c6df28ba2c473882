package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// The demo unit is seen starting, running and stopping, in that order,
// ending inactive.
func TestWatchDemo(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var out bytes.Buffer
	if err := run(ctx, nil, &out); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	at := 0
	for _, want := range []string{"activating/start", "active/exited", "inactive/dead result=success\n"} {
		i := strings.Index(text[at:], want)
		if i < 0 {
			t.Fatalf("%q missing after offset %d in:\n%s", want, at, text)
		}
		at += i
	}
	if !strings.HasSuffix(text, "demo.service: inactive/dead result=success\n") {
		t.Errorf("the last state is not inactive without a job:\n%s", text)
	}
}
