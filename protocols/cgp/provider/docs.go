package provider

import (
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

//go:embed all:docs
var docsFS embed.FS

// WriteDocs writes the embedded default docs folder, sidecar included, into dir, creating it if need be.
func WriteDocs(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("creating docs folder %s: %w", dir, err)
	}
	entries, err := fs.ReadDir(docsFS, "docs")
	if err != nil {
		return fmt.Errorf("reading the embedded docs: %w", err)
	}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		data, err := docsFS.ReadFile("docs/" + e.Name())
		if err != nil {
			return fmt.Errorf("reading embedded docs/%s: %w", e.Name(), err)
		}
		path := filepath.Join(dir, e.Name())
		if err := os.WriteFile(path, data, 0o644); err != nil {
			return fmt.Errorf("writing %s: %w", path, err)
		}
	}
	return nil
}
