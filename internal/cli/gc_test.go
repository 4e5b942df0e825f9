package cli

import (
	"math"
	"runtime/debug"
	"testing"
)

// TestCollectForThroughput: without GOGC and GOMEMLIMIT, fuzz and serve
// collect at GOGC=200 under a soft limit; either variable set is left to
// the runtime.
func TestCollectForThroughput(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))

	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	collectForThroughput()
	if p, l := debug.SetGCPercent(100), debug.SetMemoryLimit(math.MaxInt64); p != throughputGCPercent || l != throughputMemoryLimit {
		t.Errorf("GOGC %d and limit %d, want %d and %d", p, l, throughputGCPercent, throughputMemoryLimit)
	}

	t.Setenv("GOGC", "100")
	t.Setenv("GOMEMLIMIT", "1GiB")
	collectForThroughput()
	if p, l := debug.SetGCPercent(100), debug.SetMemoryLimit(math.MaxInt64); p != 100 || l != math.MaxInt64 {
		t.Errorf("with GOGC and GOMEMLIMIT set: GOGC %d and limit %d, want them untouched", p, l)
	}
}
