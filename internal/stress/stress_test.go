package stress

import (
	"sync/atomic"
	"testing"
	"time"
)

func TestFor(t *testing.T) {
	t.Setenv(Env, "")
	if got := For(t, time.Second); got != time.Second {
		t.Errorf("unset: %v, want the short 1s", got)
	}
	t.Setenv(Env, "90s")
	if got := For(t, time.Second); got != 90*time.Second {
		t.Errorf("%s=90s: %v", Env, got)
	}
}

func TestPauserRepeatsItsSeed(t *testing.T) {
	a, b := NewPauser(7), NewPauser(7)
	for range 100 {
		if x, y := a.IntN(1000), b.IntN(1000); x != y {
			t.Fatalf("same seed, %d and %d", x, y)
		}
	}
}

// TestWaves: waves run calls until stop says so, with several calls of one
// wave in flight at once at some point, and none after stop.
func TestWaves(t *testing.T) {
	var calls, inFlight, most atomic.Int64
	var stopped atomic.Bool
	NewPauser(1).Waves(time.Hour, 20, stopped.Load, func(int) {
		n := inFlight.Add(1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		time.Sleep(100 * time.Microsecond)
		inFlight.Add(-1)
		if calls.Add(1) == 500 {
			stopped.Store(true)
		}
	})
	if got := calls.Load(); got < 500 || got > 500+8 {
		t.Errorf("%d calls; stop came at the 500th, and at most a wave's in-flight calls may finish after it", got)
	}
	if most.Load() < 2 {
		t.Error("no two calls of a wave were ever in flight at once")
	}
	calls.Store(0)
	NewPauser(1).Waves(time.Hour, 20, func() bool { return true }, func(int) { calls.Add(1) })
	if calls.Load() != 0 {
		t.Errorf("%d calls with stop true from the start", calls.Load())
	}
}
