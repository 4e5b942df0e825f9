package fuzz

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/refereehq/referee/canon"
	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/corpus"
	"github.com/refereehq/referee/internal/atomicfile"
)

// ProvenanceFormat names the manifest member that says where a fuzzed
// corpus came from.
const ProvenanceFormat = "referee-fuzz/1"

// provenanceKey is that member's name in manifest.json.
const provenanceKey = "fuzz"

// Provenance is the "fuzz" member of a fuzzed corpus's manifest: the seed
// and count that regenerate its inputs, who made it, against what, and
// where each vector came from.
type Provenance struct {
	Format          string           `json:"format"`
	Suite           string           `json:"suite"`
	Referee         string           `json:"referee"` // name and version
	Seed            string           `json:"seed"`    // decimal, as a string: it may exceed 2^53
	Inputs          int              `json:"inputs"`
	Targets         []string         `json:"targets"`
	Implementations []ProvenanceImpl `json:"implementations"`
	Vectors         []ProvenanceItem `json:"vectors"`
	Gaps            []ProvenanceItem `json:"gaps,omitempty"`
}

// ProvenanceImpl is an implementation fuzzed.
type ProvenanceImpl struct {
	Name    string `json:"name"`
	Hello   string `json:"hello"` // the name it gave in its hello
	Version string `json:"version"`
}

// ProvenanceItem is where one vector (or gap) came from.
type ProvenanceItem struct {
	Name            string   `json:"name"`
	Target          string   `json:"target"`
	Input           uint64   `json:"input"` // the number of the generated input it was shrunk from
	Implementations []string `json:"implementations"`
	Check           string   `json:"check"`
	Level           string   `json:"level"`
	Status          string   `json:"status"`
	Reason          string   `json:"reason"`
	Signature       string   `json:"signature"`
	Seen            int      `json:"seen"`
	Text            string   `json:"text,omitempty"` // for a gap: the input, when it is UTF-8
	Hex             string   `json:"hex,omitempty"`  // for a gap: the input in hex, when it is not
}

// checkOut refuses an output directory that holds anything referee fuzz
// did not write, and returns the files an earlier fuzz run wrote there.
func checkOut(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case err != nil:
		return nil, errOut(dir, err)
	case len(entries) == 0:
		return nil, nil
	}
	return previous(dir)
}

// previous returns the files an earlier fuzz run wrote to dir (its
// manifest included), or an error when dir holds anything else.
func previous(dir string) ([]string, error) {
	raw, err := os.ReadFile(filepath.Join(dir, corpus.ManifestName))
	if err != nil {
		return nil, errOut(dir, errForeign)
	}
	m, err := corpus.ParseManifest(raw)
	if err != nil {
		return nil, errOut(dir, errForeign)
	}
	ours := false
	for _, mem := range m.Meta {
		ours = ours || mem.Key == provenanceKey
	}
	if !ours {
		return nil, errOut(dir, errForeign)
	}
	files := []string{corpus.ManifestName}
	known := map[string]bool{corpus.ManifestName: true}
	for f := range m.Files {
		files = append(files, f)
		known[f] = true
	}
	var foreign error
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if !known[filepath.ToSlash(rel)] {
			foreign = errOut(dir, fmt.Errorf("%s: %w", rel, errForeign))
		}
		return nil
	})
	if err != nil {
		return nil, errOut(dir, err)
	}
	return files, foreign
}

// write writes the findings' vectors to dir as a corpus of the suite's
// format, with a manifest pinning every file and holding the provenance,
// then loads it back through the suite to prove it replays.
func (e *engine) write(dir string) ([]string, error) {
	old, err := checkOut(dir)
	if err != nil {
		return nil, err
	}
	for _, f := range old {
		if err := os.Remove(filepath.Join(dir, filepath.FromSlash(f))); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, errOut(dir, err)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, errOut(dir, err)
	}
	var vectors []check.FuzzVector
	seen := map[string]bool{}
	for _, f := range e.sum.Findings {
		if !seen[f.Name] {
			seen[f.Name] = true
			vectors = append(vectors, f.Vector)
		}
	}
	files, err := e.spec.Write(dir, vectors)
	if err != nil {
		return nil, fmt.Errorf("%s: writing the found vectors to %s: %w", e.def.Name, dir, err)
	}
	prov, err := json.Marshal(e.provenance())
	if err != nil {
		return nil, err
	}
	pv, err := canon.Parse(prov, canon.ReadOptions{})
	if err != nil {
		return nil, err
	}
	m := &corpus.Manifest{Files: map[string]string{}, Meta: []canon.Member{{Key: provenanceKey, Value: pv}}}
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f)))
		if err != nil {
			return nil, errOut(dir, err)
		}
		sum := sha256.Sum256(b)
		m.Files[f] = "sha256:" + hex.EncodeToString(sum[:])
	}
	if err := atomicfile.Write(filepath.Join(dir, corpus.ManifestName), m.Encode()); err != nil {
		return nil, errOut(dir, err)
	}
	if _, err := e.def.Load(check.LoadOptions{Corpus: dir}); err != nil {
		return nil, fmt.Errorf("%s: the corpus written to %s does not load (a bug in referee): %w", e.def.Name, dir, err)
	}
	return append(files, corpus.ManifestName), nil
}

// provenance describes the run for the manifest.
func (e *engine) provenance() Provenance {
	p := Provenance{
		Format: ProvenanceFormat, Suite: e.def.Name, Referee: strings.TrimSpace(e.o.Tool.Name + " " + e.o.Tool.Version),
		Seed: strconv.FormatUint(e.o.Seed, 10), Inputs: e.sum.Inputs,
		Targets: []string{}, Implementations: []ProvenanceImpl{}, Vectors: []ProvenanceItem{},
	}
	for _, t := range e.targets {
		p.Targets = append(p.Targets, t.Name)
	}
	for _, i := range e.sum.Impls {
		p.Implementations = append(p.Implementations, ProvenanceImpl{Name: i.Name, Hello: i.Hello.Name, Version: i.Hello.Version})
	}
	item := func(f *Finding) ProvenanceItem {
		return ProvenanceItem{
			Name: f.Name, Target: f.Target, Input: f.Index, Implementations: f.Impls, Check: f.Check,
			Level: string(f.Level), Status: string(f.Status), Reason: f.Reason, Signature: f.Signature, Seen: f.Seen,
		}
	}
	for _, f := range e.sum.Findings {
		p.Vectors = append(p.Vectors, item(f))
	}
	for _, f := range e.sum.Gaps {
		g := item(f)
		if utf8.Valid(f.Input) {
			g.Text = string(f.Input)
		} else {
			g.Hex = hex.EncodeToString(f.Input)
		}
		p.Gaps = append(p.Gaps, g)
	}
	return p
}
