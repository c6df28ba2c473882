package main

import (
	"bytes"
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestLimitsDemo(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), nil, &out); err != nil {
		t.Fatal(err)
	}
	want := `cri-containerd-abc.scope (chain: [cri-containerd-abc.scope kubepods-pod1.slice kubepods.slice -.slice]; memory and tasks walked the slices)
  MemoryMax  536870912 bytes                  set by kubepods-pod1.slice
  MemoryHigh infinity                         nothing limits it
  TasksMax   1024 tasks                       set by kubepods-pod1.slice
  CPUQuota   1000000 µs/s (1.00 CPUs)         set by kubepods-pod1.slice
`
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("output (-want +got):\n%s", diff)
	}
}
