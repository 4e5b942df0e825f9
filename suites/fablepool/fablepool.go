// Package fablepool is referee's FablePool suite for the profile
// fablepool-draft-1: canonical JSON by code point with integers only,
// Ed25519 signing, signed operation envelopes attacked by scripted
// mutations, and live outputs compared with recorded ground truth.
package fablepool

import (
	"embed"
	"fmt"
	"io/fs"
	"os"

	"github.com/refereehq/referee/check"
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

// Options are the suite's own inputs beyond the corpus.
type Options struct {
	Recorded   string    // a recorded.json to compare with instead of the corpus's own
	Wycheproof string    // a Wycheproof Ed25519 verify test file to run too
	Recorder   *Recorder // if set, receives the implementation's outputs
}

// Load builds the suite from a corpus (and opts).
func Load(c *corpus.Corpus, opts Options) (*check.Suite, *Corpus, error) {
	cp, err := ReadCorpus(c)
	if err != nil {
		return nil, nil, err
	}
	truth := cp.Recorded
	if opts.Recorded != "" {
		raw, err := os.ReadFile(opts.Recorded)
		if err != nil {
			return nil, nil, fmt.Errorf("--recorded: %w", err)
		}
		truth = &Recorded{}
		if err := corpus.DecodeJSON(raw, truth); err != nil {
			return nil, nil, fmt.Errorf("--recorded %s: %w", opts.Recorded, err)
		}
		if truth.Format != RecordedFormat {
			return nil, nil, fmt.Errorf("--recorded %s: format %q, want %q", opts.Recorded, truth.Format, RecordedFormat)
		}
	}
	checks := cp.Checks(truth, opts.Recorder)
	if opts.Wycheproof != "" {
		w, err := wycheproofChecks(opts.Wycheproof)
		if err != nil {
			return nil, nil, err
		}
		checks = append(checks, w...)
	}
	return &check.Suite{Name: Name, Version: Version, Corpus: c.Name, CorpusDigest: c.Digest, Checks: checks}, cp, nil
}

// LoadEmbedded builds the suite from its embedded corpus alone.
func LoadEmbedded() (*check.Suite, error) {
	c, err := Embedded()
	if err != nil {
		return nil, err
	}
	s, _, err := Load(c, Options{})
	return s, err
}

// NewRecorder returns a Recorder for --record.
func NewRecorder() *Recorder { return newRecorder() }
