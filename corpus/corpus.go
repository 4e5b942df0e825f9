// Package corpus reads conformance corpora from a directory or an embed.FS,
// pinning their files with a manifest of SHA-256 digests when they carry one.
package corpus

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/refereehq/referee/canon"
	"github.com/refereehq/referee/internal/atomicfile"
	"github.com/refereehq/referee/internal/regularfile"
	"github.com/refereehq/referee/internal/termsafe"
)

// ManifestName is the file, at a corpus's root, that pins its files.
const ManifestName = "manifest.json"

// DefaultMaxFileSize is the size cap on each corpus file, unless the caller
// gives another (--max-file-size).
const DefaultMaxFileSize = regularfile.DefaultLimit

// Corpus is a readable, verified set of corpus files.
type Corpus struct {
	Name     string    // where it came from: a directory path or "embedded:<suite>"
	FS       fs.FS     // the files, rooted at the corpus
	Manifest *Manifest // nil when the corpus has no manifest
	Digest   string    // "sha256:<hex>": of the manifest's bytes, or of the file list when there is none
	files    []string
}

// Manifest is a parsed manifest.json: each relative path's "sha256:<hex>",
// plus the other members, kept as metadata.
type Manifest struct {
	Files map[string]string
	Meta  []canon.Member // members other than "files", in order
}

// Problem is one way a corpus differs from its manifest or breaks the rules.
type Problem struct {
	Path string
	Msg  string
}

// Error lists every problem found in a corpus.
type Error struct {
	Corpus   string
	Problems []Problem
}

// Error lists the problems one a line; a path or message that comes from
// the corpus cannot break or forge a line (termsafe).
func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "corpus %s: ", termsafe.Line(e.Corpus))
	if len(e.Problems) == 1 {
		fmt.Fprintf(&b, "%s: %s", termsafe.Line(e.Problems[0].Path), termsafe.Line(e.Problems[0].Msg))
		return b.String()
	}
	fmt.Fprintf(&b, "%d problems", len(e.Problems))
	for _, p := range e.Problems {
		fmt.Fprintf(&b, "\n  %s: %s", termsafe.Line(p.Path), termsafe.Line(p.Msg))
	}
	return b.String()
}

// problem is err as the problem of the file at p, without naming p twice.
func problem(p string, err error) Problem {
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Path == p {
		err = pe.Err
	}
	return Problem{p, err.Error()}
}

// OpenDir opens the corpus in dir, refusing symlinks that lead out of it,
// and reads each of its files only if it is a regular file of at most
// maxFileSize bytes (regularfile.DefaultLimit when 0): a FIFO, a device or
// a file over the limit is a problem, found before it is read.
func OpenDir(dir string, maxFileSize int64) (*Corpus, error) {
	info, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("corpus %s: %w", dir, err)
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("corpus %s: not a directory", dir)
	}
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil, fmt.Errorf("corpus %s: %w", dir, err)
	}
	return open(regularfile.DirFS(root, maxFileSize), dir, root)
}

// Open opens a corpus held in fsys (an embed.FS or a sub-tree of one).
func Open(fsys fs.FS, name string) (*Corpus, error) { return open(fsys, name, "") }

func open(fsys fs.FS, name, osRoot string) (*Corpus, error) {
	c := &Corpus{Name: name, FS: fsys}
	var problems []Problem
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			problems = append(problems, problem(p, err))
			return nil
		}
		if unsafeName(p) {
			// Check IDs, repro commands and errors are made of file
			// names: one that could begin a line or hide one is refused.
			problems = append(problems, Problem{termsafe.Line(p), "the name holds a control, invisible or invalid character; rename it"})
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.Type()&fs.ModeSymlink != 0 {
			if msg := symlinkProblem(osRoot, p); msg != "" {
				problems = append(problems, Problem{p, msg})
				return nil
			}
			if st, err := fs.Stat(fsys, p); err == nil && st.IsDir() {
				return nil // its files are reached by their real path
			}
		} else if d.IsDir() {
			return nil
		}
		if p != ManifestName {
			c.files = append(c.files, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("corpus %s: %w", name, err)
	}
	sort.Strings(c.files)

	// A manifest the walk refused (a symlink leading out) is not read: its
	// problem says why.
	refused := slices.ContainsFunc(problems, func(pr Problem) bool { return pr.Path == ManifestName })
	var raw []byte
	if !refused {
		raw, err = fs.ReadFile(fsys, ManifestName)
	}
	switch {
	case refused:
	case errors.Is(err, fs.ErrNotExist):
		c.Digest = listDigest(fsys, c.files, &problems)
	case err != nil:
		problems = append(problems, problem(ManifestName, err))
	default:
		m, perr := ParseManifest(raw)
		if perr != nil {
			problems = append(problems, Problem{ManifestName, perr.Error()})
			break
		}
		c.Manifest = m
		problems = append(problems, m.check(fsys, c.files)...)
		c.Digest = digest(raw)
	}
	if len(problems) > 0 {
		return nil, &Error{Corpus: name, Problems: problems}
	}
	return c, nil
}

// unsafeName reports whether a path holds invalid UTF-8 or a character
// termsafe would show escaped.
func unsafeName(p string) bool {
	return !utf8.ValidString(p) || strings.ContainsFunc(p, termsafe.Escaped)
}

// symlinkProblem says why the symlink at p may not be followed, or "".
func symlinkProblem(osRoot, p string) string {
	if osRoot == "" {
		return "symlinks are not allowed here"
	}
	target, err := filepath.EvalSymlinks(filepath.Join(osRoot, filepath.FromSlash(p)))
	if err != nil {
		return "broken symlink: " + err.Error()
	}
	rel, err := filepath.Rel(osRoot, target)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "symlink leads out of the corpus, to " + target
	}
	return ""
}

// ParseManifest reads a manifest.json: an object whose "files" member maps
// relative paths to "sha256:<64 lowercase hex>".
func ParseManifest(raw []byte) (*Manifest, error) {
	v, err := canon.Parse(raw, canon.ReadOptions{})
	if err != nil {
		return nil, err
	}
	if v.Kind != canon.Object {
		return nil, errors.New("manifest is not a JSON object")
	}
	m := &Manifest{}
	for _, mem := range v.Members {
		if mem.Key != "files" {
			m.Meta = append(m.Meta, mem)
			continue
		}
		if mem.Value.Kind != canon.Object {
			return nil, errors.New(`manifest member "files" is not an object`)
		}
		m.Files = make(map[string]string, len(mem.Value.Members))
		for _, f := range mem.Value.Members {
			if f.Value.Kind != canon.String {
				return nil, fmt.Errorf("manifest entry %q is not a string", f.Key)
			}
			m.Files[f.Key] = f.Value.Str
		}
	}
	if m.Files == nil {
		return nil, errors.New(`manifest has no "files" member`)
	}
	return m, nil
}

// check compares the manifest with the files on disk.
func (m *Manifest) check(fsys fs.FS, onDisk []string) []Problem {
	var problems []Problem
	listed := make([]string, 0, len(m.Files))
	for p := range m.Files {
		listed = append(listed, p)
	}
	sort.Strings(listed)
	present := make(map[string]bool, len(onDisk))
	for _, p := range onDisk {
		present[p] = true
	}
	dg := newDigester()
	for _, p := range listed {
		want := m.Files[p]
		switch {
		case !safePath(p):
			problems = append(problems, Problem{p, "path escapes the corpus root or is not a clean relative path"})
		case p == ManifestName:
			problems = append(problems, Problem{p, "the manifest cannot list itself"})
		case !validDigest(want):
			problems = append(problems, Problem{p, fmt.Sprintf("digest %q is not sha256:<64 lowercase hex>", want)})
		case !present[p]:
			problems = append(problems, Problem{p, "listed in the manifest but missing"})
		default:
			got, err := dg.file(fsys, p)
			if err != nil {
				problems = append(problems, problem(p, err))
			} else if got != want {
				problems = append(problems, Problem{p, fmt.Sprintf("digest mismatch: manifest has %s, file has %s", want, got)})
			}
		}
	}
	for _, p := range onDisk {
		if _, ok := m.Files[p]; !ok {
			problems = append(problems, Problem{p, "on disk but not listed in the manifest"})
		}
	}
	return problems
}

func safePath(p string) bool {
	return fs.ValidPath(p) && p != "." && path.Clean(p) == p && !strings.Contains(p, `\`)
}

func validDigest(d string) bool {
	h, ok := strings.CutPrefix(d, "sha256:")
	if !ok || len(h) != 64 {
		return false
	}
	for _, c := range h {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// digester digests files as streams, one after another, with one hash and
// one buffer (a corpus of a few hundred files otherwise makes as many 32 KB
// buffers of garbage).
type digester struct {
	h   hash.Hash
	buf []byte
}

func newDigester() *digester { return &digester{h: sha256.New(), buf: make([]byte, 32<<10)} }

// file digests the file at p.
func (d *digester) file(fsys fs.FS, p string) (string, error) {
	f, err := fsys.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	d.h.Reset()
	if _, err := io.CopyBuffer(d.h, f, d.buf); err != nil {
		return "", err
	}
	return "sha256:" + hex.EncodeToString(d.h.Sum(nil)), nil
}

// listDigest digests a corpus without a manifest: SHA-256 over one line
// "<digest>  <path>\n" per file, in path order.
func listDigest(fsys fs.FS, files []string, problems *[]Problem) string {
	var b bytes.Buffer
	dg := newDigester()
	for _, p := range files {
		d, err := dg.file(fsys, p)
		if err != nil {
			*problems = append(*problems, problem(p, err))
			continue
		}
		fmt.Fprintf(&b, "%s  %s\n", d, p)
	}
	return digest(b.Bytes())
}

// Files returns the corpus's file paths, sorted, the manifest excluded.
// The slice is clipped: appending to it copies it, so callers that share a
// corpus (concurrent loads of an embedded one) never write into each
// other's.
func (c *Corpus) Files() []string { return slices.Clip(c.files) }

// ReadFile reads one corpus file; the error names the corpus and the file.
func (c *Corpus) ReadFile(name string) ([]byte, error) {
	b, err := fs.ReadFile(c.FS, name)
	if err != nil {
		return nil, fmt.Errorf("corpus %s: %w", c.Name, err)
	}
	return b, nil
}

// Has reports whether the corpus holds the file name.
func (c *Corpus) Has(name string) bool {
	i := sort.SearchStrings(c.files, name)
	return i < len(c.files) && c.files[i] == name
}

// Lock writes dir's manifest.json: every file under dir with its digest,
// keeping the existing manifest's other members. It reads files as OpenDir
// does (maxFileSize bytes at most, none but regular files) and returns the
// manifest.
func Lock(dir string, maxFileSize int64) (*Manifest, error) {
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil, fmt.Errorf("corpus %s: %w", dir, err)
	}
	fsys := regularfile.DirFS(root, maxFileSize)
	m := &Manifest{Files: map[string]string{}}
	raw, err := fs.ReadFile(fsys, ManifestName)
	switch {
	case err == nil:
		old, err := ParseManifest(raw)
		if err != nil {
			return nil, fmt.Errorf("corpus %s: %s: %w", dir, ManifestName, err)
		}
		m.Meta = old.Meta
	case !errors.Is(err, fs.ErrNotExist):
		return nil, &Error{Corpus: dir, Problems: []Problem{problem(ManifestName, err)}}
	}
	var problems []Problem
	dg := newDigester()
	err = fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type()&fs.ModeSymlink != 0 {
			if msg := symlinkProblem(root, p); msg != "" {
				problems = append(problems, Problem{p, msg})
				return nil
			}
			if st, err := fs.Stat(fsys, p); err == nil && st.IsDir() {
				return nil // its files are reached by their real path
			}
		} else if d.IsDir() || p == ManifestName {
			return nil
		}
		sum, err := dg.file(fsys, p)
		if err != nil {
			problems = append(problems, problem(p, err))
			return nil
		}
		m.Files[p] = sum
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("corpus %s: %w", dir, err)
	}
	if len(problems) > 0 {
		return nil, &Error{Corpus: dir, Problems: problems}
	}
	if err := atomicfile.Write(filepath.Join(root, ManifestName), m.Encode()); err != nil {
		return nil, fmt.Errorf("corpus %s: %w", dir, err)
	}
	return m, nil
}

// Encode renders the manifest as indented JSON with its files sorted by path.
func (m *Manifest) Encode() []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	for _, mem := range m.Meta {
		k, _ := json.Marshal(mem.Key)
		b.Write(k)
		b.WriteByte(':')
		b.WriteString(mem.Value.String())
		b.WriteByte(',')
	}
	b.WriteString(`"files":{`)
	paths := make([]string, 0, len(m.Files))
	for p := range m.Files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for i, p := range paths {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(p)
		v, _ := json.Marshal(m.Files[p])
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteString("}}")
	var out bytes.Buffer
	if err := json.Indent(&out, b.Bytes(), "", "  "); err != nil {
		return append(b.Bytes(), '\n') // unreachable: b is valid JSON
	}
	out.WriteByte('\n')
	return out.Bytes()
}

// OpenDirOr opens the corpus in dir as OpenDir does, or the embedded one
// when dir is "".
func OpenDirOr(dir string, maxFileSize int64, embedded func() (*Corpus, error)) (*Corpus, error) {
	if dir == "" {
		return embedded()
	}
	return OpenDir(dir, maxFileSize)
}
