package adapter_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/refereehq/referee/adapter"
	"github.com/refereehq/referee/adapter/adaptertest"
	"github.com/refereehq/referee/internal/stress"
)

// TestStressStdio: the real client against adapter.Serve in a child
// process, through pipes, with random pauses on both sides (the jitter
// fake reads, handles and writes at random pace; the client pauses where
// calls and the reading of stdout hand over, and its callers between
// calls, in waves of 1 to 8 at once, so that a lone call reads its own
// reply as often as the reading goroutine does): every call gets its own
// reply, none times out.
func TestStressStdio(t *testing.T) {
	d := stress.For(t, 2*time.Second)
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	pause := stress.NewPauser(seed)
	cfg := adapter.WithPause(adaptertest.Process(t, adaptertest.Jitter), pause.Pause)
	c := dial(t, cfg, adapter.Options{Timeout: 5 * time.Second, MaxFaults: 1})
	var calls atomic.Int64
	var failed atomic.Bool
	pause.Waves(d, 40, failed.Load, func(wave int) {
		k := calls.Add(1)
		want := fmt.Sprintf(`{"n":%d}`, k)
		start := time.Now()
		r, _, err := c.Call(context.Background(), "echo", []byte(want))
		if err != nil {
			if !failed.Swap(true) {
				t.Errorf("call %d (wave %d) after %s: %v", k, wave, time.Since(start).Round(time.Millisecond), err)
			}
			return
		}
		if got := r.OK.String(); got != want {
			t.Errorf("call %d got %s, want %s", k, got, want)
		}
	})
	t.Logf("%d calls in %s", calls.Load(), d)
}
