// Package report turns a run's results into documents: human text, the
// versioned referee-report/2 JSON, JUnit XML, and a suite's native shape; and
// it holds the exit-code contract.
package report
