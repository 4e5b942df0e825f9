// Package layers holds the test of referee's package layering: which
// packages may import which (shared/DESIGN.md, docs/writing-a-suite.md).
// It has no code; its test reads the module with `go list`.
package layers
