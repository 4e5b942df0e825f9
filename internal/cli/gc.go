package cli

import (
	"os"
	"runtime/debug"
)

// The collector's settings for fuzz and serve, unless GOGC and GOMEMLIMIT
// say otherwise. They allocate fast and keep little: collecting when the
// heap has grown by twice what is live, not once, spends a fifth to a
// third less CPU on a fuzz run. The soft limit keeps the heap that lets
// grow below run's peak: a heap past it is collected as it is reached
// (docs/fuzzing.md#throughput, bench/fuzzmem.sh).
const (
	throughputGCPercent   = 200
	throughputMemoryLimit = 160 << 20
)

// collectForThroughput sets the collector's settings for fuzz and serve.
func collectForThroughput() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(throughputGCPercent)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(throughputMemoryLimit)
	}
}
