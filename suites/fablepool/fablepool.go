// Package fablepool is referee's FablePool suite for the profile
// fablepool-draft-1: canonical JSON by code point with integers only,
// Ed25519 signing, signed operation envelopes attacked by scripted
// mutations, and live outputs compared with recorded ground truth.
//
// The suite is declared to the engine by Definition; Definition.Load builds
// it.
package fablepool

import (
	"embed"
	"io/fs"

	"github.com/refereehq/referee/corpus"
)

// Name is the suite's name, as in `referee run fablepool`.
const Name = "fablepool"

// Version is the suite's own version.
const Version = "1.0.0"

//go:embed corpus
var embedded embed.FS

// Embedded returns referee's own FablePool vectors, verified against their manifest.
func Embedded() (*corpus.Corpus, error) {
	sub, err := fs.Sub(embedded, "corpus")
	if err != nil {
		return nil, err
	}
	return corpus.Open(sub, "embedded:fablepool")
}
