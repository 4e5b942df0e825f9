package cgpvectors

import (
	_ "embed" // ops.json

	"github.com/refereehq/referee/check"
)

// opsJSON declares the ops the suite sends to an adapter, each with JSON
// Schemas for its args, ok value and err (check.OpsFrom); the documents
// docs/suites/*.ops.json are rendered from it.
//
//go:embed ops.json
var opsJSON []byte

// ops is Definition.Ops.
var ops = check.OpsFrom(opsJSON)
