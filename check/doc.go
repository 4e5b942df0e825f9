// Package check is referee's run engine: checks with stable hierarchical IDs,
// their four statuses and evidence, selection by ID pattern, and running a
// suite's checks against an adapter with bounded parallelism.
package check
