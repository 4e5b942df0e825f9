package fuzz_test

import (
	"testing"
	"time"

	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/fuzz"
	"github.com/refereehq/referee/report"
	"github.com/refereehq/referee/suites"
)

// BenchmarkFuzz fuzzes each fuzzable suite's honest built-in
// implementation in process and over stdio (this test binary serving it,
// as `referee serve SUITE` does), and reports inputs/s: one op is one
// generated input, judged on the reference and on the implementation, its
// requests pipelined up to the adapter's declared concurrency.
func BenchmarkFuzz(b *testing.B) {
	for _, def := range suites.All() {
		if def.Fuzz == nil || def.Live {
			continue // a live suite's sessions: BenchmarkFuzzSessions (package cgplive)
		}
		for _, transport := range []string{"in-process", "stdio"} {
			b.Run(def.Name+"/"+transport, func(b *testing.B) {
				spec := check.Spec{}
				if transport == "stdio" {
					spec = child(b, def.Name, "")
				}
				start := time.Now()
				s, err := fuzz.Campaign(b.Context(), def, []fuzz.Impl{{Spec: spec}}, fuzz.Options{Seed: 1, Count: b.N})
				if err != nil {
					b.Fatal(err)
				}
				// A handful of inputs may all be ones the corpus cannot hold
				// (testing.B starts with one): nothing judged, exit 3.
				if s.Judged == 0 && s.Inputs >= 100 || s.Judged > 0 && s.ExitCode() == report.ExitIncomplete {
					b.Fatalf("exit %d, %d judged of %d", s.ExitCode(), s.Judged, s.Inputs)
				}
				b.ReportMetric(float64(s.Inputs)/time.Since(start).Seconds(), "inputs/s")
				// The honest implementation should not diverge from itself;
				// when its adapter transport does, say so.
				b.ReportMetric(float64(s.Impls[0].Divergent), "divergent")
				for _, f := range s.Findings {
					b.Logf("%s diverges from itself over %s: %s: %s", def.Name, transport, f.Check, f.Reason)
				}
			})
		}
	}
}
