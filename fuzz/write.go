package fuzz

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/refereehq/referee/canon"
	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/corpus"
	"github.com/refereehq/referee/internal/atomicfile"
	"github.com/refereehq/referee/internal/regularfile"
)

// provenanceKey is the name of the manifest member that says where a
// fuzzed corpus came from (its format: corpus.FuzzProvenanceFormat).
const provenanceKey = corpus.FuzzProvenanceKey

// Provenance is the "fuzz" member of a fuzzed corpus's manifest: the seed
// and count that regenerate its inputs, who made it, against what, and
// where each vector came from.
type Provenance struct {
	Format  string `json:"format"`
	Suite   string `json:"suite"`
	Referee string `json:"referee"` // name and version
	Seed    string `json:"seed"`    // decimal, as a string: it may exceed 2^53
	Inputs  int    `json:"inputs"`
	// Corpus names the corpus the reference and the generators were drawn
	// from, with its digest, when it was not the embedded one (--corpus).
	Corpus          string           `json:"corpus,omitempty"`
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
	// Flaky marks a divergence that did not happen again when its input
	// was sent once more (its vector holds the input as generated), and
	// Rerun says what that second answer was.
	Flaky bool   `json:"flaky,omitempty"`
	Rerun string `json:"rerun,omitempty"`
	Text  string `json:"text,omitempty"` // for a gap: the input, when it is UTF-8
	Hex   string `json:"hex,omitempty"`  // for a gap: the input in hex, when it is not
}

// checkOut refuses, before the first input, an output directory that
// cannot be written (it is not a directory; it does not exist and neither
// does its parent; nothing can be made in it or, when new, in its parent),
// or that holds anything but a corpus an earlier fuzz run wrote, as it
// wrote it (see previous). It returns that corpus's files.
func checkOut(dir string) ([]string, error) {
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		parent := filepath.Dir(dir)
		pst, err := os.Stat(parent)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil, errOut(dir, fmt.Errorf("the directory %s does not exist", parent))
		case err != nil:
			return nil, errOut(dir, err)
		case !pst.IsDir():
			return nil, errOut(dir, fmt.Errorf("%s is not a directory", parent))
		}
		return nil, probe(dir, parent)
	case err != nil:
		return nil, errOut(dir, err)
	case !st.IsDir():
		return nil, errOut(dir, errors.New("not a directory"))
	}
	if err := probe(dir, dir); err != nil {
		return nil, err
	}
	return previous(dir)
}

// probe makes a directory in where and removes it: the corpus is written
// to a directory of its own in --out before it takes the old one's place.
func probe(dir, where string) error {
	d, err := os.MkdirTemp(where, stagePrefix+"check-")
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return errOut(dir, fmt.Errorf("cannot write in %s: %w", where, err))
	}
	return os.Remove(d)
}

// stagePrefix begins the names of the directories referee fuzz makes in
// --out while it writes (and removes before it returns).
const stagePrefix = ".referee-fuzz-"

// previous returns the files an earlier fuzz run wrote to dir that are
// still there, its manifest last, or an error when dir holds anything
// else, or anything of that corpus is not as it was written: only files
// that pass every test here are ever removed. A file the manifest lists
// must be at a clean relative path inside dir, reached through no symlink,
// a regular file whose SHA-256 is still the one listed; a listed file that
// is gone is no matter.
func previous(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, errOut(dir, err)
	}
	if len(entries) == 0 {
		return nil, nil
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, errOut(dir, err)
	}
	defer root.Close()
	if st, err := root.Lstat(corpus.ManifestName); err != nil || !st.Mode().IsRegular() {
		return nil, errOut(dir, errForeign)
	}
	raw, err := regularfile.ReadFile(filepath.Join(dir, corpus.ManifestName), regularfile.DefaultLimit)
	if err != nil {
		return nil, errOut(dir, errForeign)
	}
	m, err := corpus.ParseManifest(raw)
	if err != nil || !slices.ContainsFunc(m.Meta, func(mem canon.Member) bool { return mem.Key == provenanceKey }) {
		return nil, errOut(dir, errForeign)
	}
	var files []string
	for _, f := range slices.Sorted(maps.Keys(m.Files)) {
		if !cleanPath(f) || f == corpus.ManifestName {
			return nil, errOut(dir, fmt.Errorf("%s lists %q, not a clean relative path inside the directory: %w", corpus.ManifestName, f, errNotOurs))
		}
		switch err := pinned(root, f, m.Files[f]); {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			return nil, errOut(dir, fmt.Errorf("%s: %w: %w", f, err, errNotOurs))
		default:
			files = append(files, f)
		}
	}
	var foreign error
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if _, ok := m.Files[rel]; !ok && rel != corpus.ManifestName && foreign == nil {
			foreign = errOut(dir, fmt.Errorf("%s: %w", rel, errForeign))
		}
		return nil
	})
	if err != nil {
		return nil, errOut(dir, err)
	}
	if foreign != nil {
		return nil, foreign
	}
	return append(files, corpus.ManifestName), nil
}

// cleanPath reports whether p is a clean relative path with slashes, every
// element of it a name (no "..", no ".", no empty one, no backslash).
func cleanPath(p string) bool {
	return fs.ValidPath(p) && p != "." && path.Clean(p) == p && !strings.Contains(p, `\`)
}

// pinned checks the file at p in root: every directory on its way a
// directory, not a symlink; it a regular file whose digest is want. A
// missing file is fs.ErrNotExist.
func pinned(root *os.Root, p, want string) error {
	for i := range len(p) {
		if p[i] != '/' {
			continue
		}
		st, err := root.Lstat(p[:i])
		if err != nil {
			return err
		}
		if !st.IsDir() {
			return fmt.Errorf("%s is not a directory (a symlink?)", p[:i])
		}
	}
	st, err := root.Lstat(p)
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() {
		return errors.New("not a regular file (a symlink?)")
	}
	f, err := root.Open(p)
	if err != nil {
		return err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return err
	}
	if got := "sha256:" + hex.EncodeToString(h.Sum(nil)); got != want {
		return errors.New("changed since referee fuzz wrote it (its digest is not the manifest's)")
	}
	return nil
}

// writeFile writes one file of a corpus; tests replace it to make a write fail.
var writeFile = atomicfile.Write

// write writes the findings' vectors to dir as a corpus of the suite's
// format, with a manifest pinning every file and holding the provenance,
// loads it back through the suite to prove it replays, and only then puts
// it in the place of the corpus an earlier run left there. The new corpus
// is written to a directory of its own inside dir: a write that fails (a
// full disk) leaves the earlier corpus as it was. A run that found nothing
// writes the suite's files with no vector and the manifest all the same:
// a step that keeps dir finds it, a later fuzz --out accepts it, and run
// --corpus refuses it as holding no check (corpus.Manifest.FuzzFoundNothing).
func (e *engine) write(dir string) ([]string, error) {
	old, err := checkOut(dir)
	if err != nil {
		return nil, err
	}
	if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, errOut(dir, err)
	}
	stage, err := os.MkdirTemp(dir, stagePrefix+"new-")
	if err != nil {
		return nil, errOut(dir, err)
	}
	defer os.RemoveAll(stage)
	files, err := e.stage(stage)
	if err != nil {
		return nil, err
	}
	if err := swapIn(dir, filepath.Base(stage), old, files); err != nil {
		return nil, errOut(dir, fmt.Errorf("putting the new corpus in place of the old one: %w", err))
	}
	return files, nil
}

// writeEntries writes entries into dir as the files of a corpus of the
// suite's format (FuzzSpec.Files), each atomically, and returns their
// paths, sorted.
func (e *engine) writeEntries(dir string, entries []any) ([]string, error) {
	files, err := e.spec.Files(entries)
	if err != nil {
		return nil, err
	}
	var paths []string
	for p, b := range files {
		if !cleanPath(p) || p == corpus.ManifestName {
			return nil, fmt.Errorf("%s: the fuzz declaration lays out %q, not a clean relative path (a bug in referee)", e.def.Name, p)
		}
		name := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			return nil, err
		}
		if err := writeFile(name, b); err != nil {
			return nil, err
		}
		paths = append(paths, p)
	}
	sort.Strings(paths)
	return paths, nil
}

// stage writes the corpus to dir, a new directory, and proves it loads; it
// returns its files, the manifest last.
func (e *engine) stage(dir string) ([]string, error) {
	var entries []any
	seen := map[string]bool{}
	for _, f := range e.sum.Findings {
		if !seen[f.Name] {
			seen[f.Name] = true
			entries = append(entries, f.Vector.Entry)
		}
	}
	files, err := e.writeEntries(dir, entries)
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
		if !cleanPath(f) || f == corpus.ManifestName {
			return nil, fmt.Errorf("%s: the fuzz hook wrote %q, not a clean relative path (a bug in referee)", e.def.Name, f)
		}
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f)))
		if err != nil {
			return nil, err
		}
		sum := sha256.Sum256(b)
		m.Files[f] = "sha256:" + hex.EncodeToString(sum[:])
	}
	if err := writeFile(filepath.Join(dir, corpus.ManifestName), m.Encode()); err != nil {
		return nil, fmt.Errorf("writing %s: %w", corpus.ManifestName, err)
	}
	if len(entries) == 0 {
		// Nothing to replay: a suite's reader may refuse a corpus of no
		// vector, and run refuses it before reading it, by its manifest.
		if !m.FuzzFoundNothing() {
			return nil, fmt.Errorf("%s: the manifest of the empty corpus written to %s does not say it is empty (a bug in referee)", e.def.Name, dir)
		}
		return append(files, corpus.ManifestName), nil
	}
	if _, err := e.def.Load(check.LoadOptions{Corpus: dir}); err != nil {
		return nil, fmt.Errorf("%s: the corpus written to %s does not load (a bug in referee): %w", e.def.Name, dir, err)
	}
	return append(files, corpus.ManifestName), nil
}

// swapIn moves the old corpus's files (old, each checked by previous) out
// of dir into a directory of its own there, then the new corpus's files
// from stage (a directory in dir) into their places, the manifests last
// out and last in, and removes the old files. Every step is a rename
// within dir, through an os.Root of dir: nothing outside it is touched.
// When a step fails, what was moved is moved back.
func swapIn(dir, stage string, old, files []string) (err error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	aside := ""
	var out, in []string // moved aside, moved in
	defer func() {
		if err != nil {
			for _, f := range slices.Backward(in) {
				root.Rename(f, path.Join(stage, f))
			}
			for _, f := range slices.Backward(out) {
				root.Rename(path.Join(aside, f), f)
			}
		}
		if aside != "" {
			root.RemoveAll(aside)
		}
		pruneDirs(root, old)
	}()
	if len(old) > 0 {
		d, err := os.MkdirTemp(dir, stagePrefix+"old-")
		if err != nil {
			return err
		}
		aside = filepath.Base(d)
		// The manifest (old's last) first: while the old files are moved,
		// none is claimed.
		for _, f := range append([]string{corpus.ManifestName}, old[:len(old)-1]...) {
			if err := moveTo(root, f, path.Join(aside, f)); err != nil {
				return err
			}
			out = append(out, f)
		}
	}
	for _, f := range files {
		if err := moveTo(root, path.Join(stage, f), f); err != nil {
			return err
		}
		in = append(in, f)
	}
	return nil
}

// moveTo renames from to to in root, making to's directories.
func moveTo(root *os.Root, from, to string) error {
	if d := path.Dir(to); d != "." {
		if err := root.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	return root.Rename(from, to)
}

// pruneDirs removes the directories of files in root that are left empty,
// deepest first.
func pruneDirs(root *os.Root, files []string) {
	var dirs []string
	for _, f := range files {
		for d := path.Dir(f); d != "."; d = path.Dir(d) {
			dirs = append(dirs, d)
		}
	}
	slices.SortFunc(dirs, func(a, b string) int { return strings.Count(b, "/") - strings.Count(a, "/") })
	for _, d := range slices.Compact(dirs) {
		root.Remove(d) // fails, as it should, when it is not empty
	}
}

// provenance describes the run for the manifest.
func (e *engine) provenance() Provenance {
	p := Provenance{
		Format: corpus.FuzzProvenanceFormat, Suite: e.def.Name, Referee: strings.TrimSpace(e.o.Tool.Name + " " + e.o.Tool.Version),
		Seed: strconv.FormatUint(e.o.Seed, 10), Inputs: e.sum.Inputs, Corpus: e.corpus,
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
			Flaky: f.Flaky, Rerun: f.Rerun,
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
