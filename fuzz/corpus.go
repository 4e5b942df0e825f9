package fuzz

import (
	"bytes"
	"path/filepath"
	"sort"
	"testing/fstest"

	"github.com/refereehq/referee/corpus"
	"github.com/refereehq/referee/report"
)

// CorpusOf returns an in-memory corpus of files (path to content), for a
// suite's fuzz hook to load one vector through the suite's own reader.
func CorpusOf(files map[string][]byte) (*corpus.Corpus, error) {
	fsys := fstest.MapFS{}
	for p, b := range files {
		fsys[p] = &fstest.MapFile{Data: b, Mode: 0o644}
	}
	return corpus.Open(fsys, "fuzz")
}

// MarshalJSON renders v as a corpus file: indented JSON, with <, > and &
// as they are, ending in a newline.
func MarshalJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	if err := report.WriteNative(&b, v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// WriteFiles writes files (path relative to dir, to content) into dir,
// each atomically, and returns their paths, sorted.
func WriteFiles(dir string, files map[string][]byte) ([]string, error) {
	var paths []string
	for p, b := range files {
		if err := writeFile(filepath.Join(dir, filepath.FromSlash(p)), b); err != nil {
			return nil, err
		}
		paths = append(paths, p)
	}
	sort.Strings(paths)
	return paths, nil
}
