//go:build linux

package adapter_test

import (
	"context"
	"os/exec"
	"testing"
	"time"

	"github.com/refereehq/referee/adapter"
	"github.com/refereehq/referee/adapter/adaptertest"
)

// TestGrandchildHoldingOutput runs the fake behind a shell that leaves a
// grandchild in a session of its own, holding the adapter's stdout and
// stderr: referee must not wait for it.
func TestGrandchildHoldingOutput(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("setsid not found")
	}
	cfg := adaptertest.Process(t, adaptertest.Good)
	cfg.Argv = append([]string{"sh", "-c", `setsid sleep 30 & exec "$0" "$@"`}, cfg.Argv...)
	c := dial(t, cfg, adapter.Options{})
	if _, _, err := c.Call(context.Background(), "echo", []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	c.Close()
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("Close took %s: it waited for the grandchild", d)
	}
}
