package cdc

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/refereehq/referee/corpus"
)

// The embedded corpus is the published release of the contract, npm
// @cognitive-delivery/contract 1.0.2, byte for byte (corpus/PROVENANCE.json).
//
//go:embed corpus
var embedded embed.FS

// EmbeddedRelease names the release the suite embeds.
const EmbeddedRelease = "@cognitive-delivery/contract 1.0.2"

// Embedded returns the embedded release, verified against its manifest.
func Embedded() (*corpus.Corpus, error) {
	sub, err := fs.Sub(embedded, "corpus")
	if err != nil {
		return nil, err
	}
	return corpus.Open(sub, "embedded:cdc")
}

// materialise gives the embedded corpus a directory on disk, for adapters
// that read the schemas themselves: a directory under the user's cache (or
// the temporary directory) named by the corpus digest, written once through
// a temporary directory renamed into place and verified on every use.
func materialise(c *corpus.Corpus) (string, error) {
	base, err := os.UserCacheDir()
	if err != nil || base == "" {
		base = os.TempDir()
	}
	dir := filepath.Join(base, "referee", "cdc-"+strings.TrimPrefix(c.Digest, "sha256:")[:16])
	if d, err := corpus.OpenDir(dir, corpus.DefaultMaxFileSize); err == nil && d.Digest == c.Digest {
		return dir, nil
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return "", fmt.Errorf("the embedded cdc corpus: %w", err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), ".cdc-*")
	if err != nil {
		return "", fmt.Errorf("the embedded cdc corpus: %w", err)
	}
	defer os.RemoveAll(tmp) // after a successful rename, nothing is left to remove
	for _, name := range append(c.Files(), corpus.ManifestName) {
		b, err := c.ReadFile(name)
		if err != nil {
			return "", err
		}
		p := filepath.Join(tmp, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			return "", fmt.Errorf("the embedded cdc corpus: %w", err)
		}
	}
	if err := os.Rename(tmp, dir); err != nil {
		// Another run may have written it first; use it if it verifies.
		if d, derr := corpus.OpenDir(dir, corpus.DefaultMaxFileSize); derr == nil && d.Digest == c.Digest {
			return dir, nil
		}
		// A stale or broken copy: replace it.
		if rerr := os.RemoveAll(dir); rerr != nil {
			return "", fmt.Errorf("the embedded cdc corpus: %w", errors.Join(err, rerr))
		}
		if err := os.Rename(tmp, dir); err != nil {
			return "", fmt.Errorf("the embedded cdc corpus: %w", err)
		}
	}
	return dir, nil
}
