package cli

import (
	"os"
	"runtime/debug"
)

// throughputGCPercent is the GOGC that fuzz and serve run with when the
// user set none: they allocate fast and keep little, and collecting when
// the heap has grown by twice what is live, not once, spends a fifth to a
// third less CPU on a fuzz run (docs/fuzzing.md#throughput), for a peak
// still below run's (bench/fuzzmem.sh).
const throughputGCPercent = 200

// collectForThroughput sets throughputGCPercent, unless GOGC is set.
func collectForThroughput() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(throughputGCPercent)
	}
}
