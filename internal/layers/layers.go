// Package layers holds the tests of the house's rules: which packages may
// import which (shared/DESIGN.md, docs/writing-a-suite.md), and that no
// suite calls an op by hand where check.Expect does it. It has no code;
// its tests read the module with `go list` and go/parser.
package layers
