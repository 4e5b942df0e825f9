package cdc

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/refereehq/referee/corpus"
	"github.com/refereehq/referee/internal/privatedir"
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

// copies bounds the copies of one corpus in the cache: the first, and
// those written beside it when an earlier one was found damaged.
const copies = 10

// materialise gives the embedded corpus a directory on disk, for adapters
// that read the schemas themselves, and returns it. The directory is in
// the user's cache (with neither XDG_CACHE_HOME nor HOME, the temporary
// directory's referee-<uid>), private to the user (privatedir), and named
// by the corpus digest: cdc-<digest>, or cdc-<digest>-<n> when the earlier
// names hold a copy that is damaged or not the user's alone. A copy is
// used only when it verifies against the manifest and no one else can
// change it; one is written through a uniquely named temporary directory
// renamed into place, which fails if another run's copy got there first
// (that one is then verified and used). No copy is ever removed or
// replaced: another run may have handed it to its adapter.
func materialise(c *corpus.Corpus) (string, error) {
	root, err := cacheRoot()
	if err != nil {
		return "", fmt.Errorf("the embedded cdc corpus: %w", err)
	}
	name := "cdc-" + strings.TrimPrefix(c.Digest, "sha256:")[:16]
	var refused []error
	for n := range copies {
		dir := filepath.Join(root, name)
		if n > 0 {
			dir += "-" + strconv.Itoa(n)
		}
		if _, err := os.Lstat(dir); errors.Is(err, fs.ErrNotExist) {
			if err := writeCopy(root, dir, c); err != nil {
				return "", fmt.Errorf("the embedded cdc corpus: %w", err)
			}
		}
		// This run's copy, another run's that took the name first, or
		// one that was there: it is used only if it verifies.
		err := usable(dir, c)
		if err == nil {
			return dir, nil
		}
		refused = append(refused, err) // damaged, or not private: left as it is
	}
	return "", fmt.Errorf("the embedded cdc corpus: no usable copy among %s-*; remove them: %w", filepath.Join(root, name), errors.Join(refused...))
}

// cacheRoot returns the directory the copies go in, made private to the
// user: referee under the user's cache directory, or referee-<uid> under
// the temporary directory, shared by every user. One of another user's is
// refused.
func cacheRoot() (string, error) {
	root := filepath.Join(os.TempDir(), privatedir.UserName("referee"))
	if base, err := os.UserCacheDir(); err == nil && base != "" {
		root = filepath.Join(base, "referee")
	}
	if err := privatedir.Make(root); err != nil {
		return "", fmt.Errorf("%w (remove it, or set XDG_CACHE_HOME to a directory of your own)", err)
	}
	return root, nil
}

// usable returns nil when dir holds the corpus c, verified against its
// manifest, and no one but the user can change it.
func usable(dir string, c *corpus.Corpus) error {
	if err := privatedir.CheckTree(dir); err != nil {
		return fmt.Errorf("not private: %w", err)
	}
	d, err := corpus.OpenDir(dir, corpus.DefaultMaxFileSize)
	if err != nil {
		return err
	}
	if d.Digest != c.Digest {
		return fmt.Errorf("%s: digest %s, want %s", dir, d.Digest, c.Digest)
	}
	return nil
}

// writeCopy writes c to a new temporary directory in root and renames it to
// dir. A rename that fails because dir exists by then (another run's copy)
// is no error: the temporary directory, this call's own, is removed.
func writeCopy(root, dir string, c *corpus.Corpus) error {
	tmp, err := os.MkdirTemp(root, ".cdc-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp) // after a successful rename, nothing is left to remove
	for _, name := range append(c.Files(), corpus.ManifestName) {
		b, err := c.ReadFile(name)
		if err != nil {
			return err
		}
		p := filepath.Join(tmp, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			return err
		}
	}
	if err := os.Rename(tmp, dir); err != nil {
		if _, serr := os.Lstat(dir); serr == nil {
			return nil // another run's copy is there: the caller verifies it
		}
		return err
	}
	return nil
}
