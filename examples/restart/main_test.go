package main

import (
	"bytes"
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestRestart(t *testing.T) {
	for _, tc := range []struct {
		args      []string
		out, fail string
	}{
		{[]string{"app.service"}, "app.service restarted (done)\n", ""},
		{[]string{"broken.service"}, "", "Job for broken.service failed because the control process exited with error code.\n" +
			`See "systemctl status broken.service" and "journalctl -xeu broken.service" for details.`},
		{[]string{"-timeout", "50ms", "slow.service"}, "", "slow.service did not restart within 50ms; the job was canceled"},
		{[]string{"missing.service"}, "", "failed to restart missing.service: sdbus: RestartUnit missing.service: Unit missing.service not found. (org.freedesktop.systemd1.NoSuchUnit)"},
	} {
		var out bytes.Buffer
		err := run(context.Background(), tc.args, &out)
		fail := ""
		if err != nil {
			fail = err.Error()
		}
		if diff := cmp.Diff(tc.fail, fail); diff != "" {
			t.Errorf("%v: error (-want +got):\n%s", tc.args, diff)
		}
		if diff := cmp.Diff(tc.out, out.String()); diff != "" {
			t.Errorf("%v: output (-want +got):\n%s", tc.args, diff)
		}
	}
}
