package provider

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/refereehq/referee/internal/lazyregexp"
	"github.com/refereehq/referee/internal/regularfile"
	"github.com/refereehq/referee/protocols/cgp"
)

// SidecarName is the optional docs-folder file mapping file names to {kind, title, valid_from, valid_to, id}.
const SidecarName = ".cgp.json"

// RecordedAt is the fixed recorded_at of every frame and issued_at of every attestation.
const RecordedAt = "2026-07-20T18:00:00Z"

// Fingerprint is the declared embedding model: a hashed bag-of-words of Dims dimensions, L2-normalised.
const Fingerprint = "referee-bow/64/l2"

// Dims is the length of a Fingerprint embedding.
const Dims = 64

// scoreFloor is the least score a frame gets, so that every frame scores.
const scoreFloor = 0.1

// sidecarEntry is one file's entry in the sidecar; every member is optional.
type sidecarEntry struct {
	Kind      *string `json:"kind"`
	Title     *string `json:"title"`
	ValidFrom *string `json:"valid_from"`
	ValidTo   *string `json:"valid_to"`
	ID        *string `json:"id"`
}

// doc is one file of the folder as a frame, with what ranking needs.
type doc struct {
	name  string           // the file name
	frame cgp.ContextFrame // honest, score 0
	terms map[string]bool  // the terms of title and content
	vec   [Dims]float64    // the title and content's embedding
	from  *time.Time       // valid_from as an instant
	to    *time.Time       // valid_to as an instant
	// signed, when set, is the frame the attestations are made over instead
	// of frame (swap-content).
	signed *cgp.ContextFrame
}

// corpus is the folder as read at one moment, in file-name order.
type corpus struct {
	docs []*doc
	byID map[string]*doc
}

// timestampPattern is F4: UTC only, uppercase T and Z, optional fraction.
var timestampPattern = lazyregexp.New(`^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?Z$`)

// parseTimestamp reads an F4 timestamp as an instant.
func parseTimestamp(s string) (time.Time, error) {
	if !timestampPattern.MatchString(s) {
		return time.Time{}, fmt.Errorf("%q is not an RFC 3339 UTC timestamp (YYYY-MM-DDTHH:MM:SSZ)", s)
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("%q is not a real instant: %v", s, err)
	}
	return t, nil
}

// loadCorpus reads every regular file of dir whose name does not start with
// a dot, and the sidecar if there is one.
func loadCorpus(dir string) (*corpus, error) {
	// Files are read through an os.Root: a symlink cannot reach outside dir.
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("opening docs folder %s: %w", dir, err)
	}
	defer root.Close()
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("reading docs folder %s: %w", dir, err)
	}
	side := map[string]sidecarEntry{}
	sidePath := filepath.Join(dir, SidecarName)
	if data, err := readRegular(root, SidecarName); err == nil {
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&side); err != nil {
			return nil, fmt.Errorf("%s: %w", sidePath, err)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("reading %s: %w", sidePath, err)
	}
	c := &corpus{byID: map[string]*doc{}}
	seen := map[string]bool{}
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") || !utf8.ValidString(name) {
			continue // a name that is not UTF-8 cannot travel in a frame
		}
		path := filepath.Join(dir, name)
		data, err := readRegular(root, name)
		switch {
		case errors.Is(err, regularfile.ErrNotRegular), errors.Is(err, fs.ErrNotExist):
			continue // a directory, a device, a symlink out of dir, or gone since ReadDir
		case err != nil:
			return nil, fmt.Errorf("reading %s: %w", path, err)
		}
		d, err := newDoc(path, name, data, side[name])
		if err != nil {
			return nil, err
		}
		if prev, dup := c.byID[d.frame.ID]; dup {
			return nil, fmt.Errorf("%s: frame id %q is already the id of %s", path, d.frame.ID, prev.name)
		}
		seen[name] = true
		c.docs = append(c.docs, d)
		c.byID[d.frame.ID] = d
	}
	for name := range side {
		if !seen[name] {
			return nil, fmt.Errorf("%s: names %q, which is not a file served from %s", sidePath, name, dir)
		}
	}
	return c, nil
}

// maxDoc is the largest file served: a bigger frame could not travel in one
// 16 MiB envelope line anyway.
const maxDoc = 8 << 20

// readRegular reads a regular file of root, at most maxDoc bytes. It opens
// without blocking, so a FIFO cannot hang the provider; a symlink that
// leaves root is refused by the root.
func readRegular(root *os.Root, name string) ([]byte, error) {
	f, err := root.OpenFile(name, os.O_RDONLY|regularfile.NonBlock, 0)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		return nil, fmt.Errorf("%w: %v", regularfile.ErrNotRegular, err)
	}
	defer f.Close()
	return regularfile.Read(f, maxDoc, "a frame may hold")
}

// newDoc makes the honest frame of one file.
func newDoc(path, name string, data []byte, meta sidecarEntry) (*doc, error) {
	if !utf8.Valid(data) {
		return nil, fmt.Errorf("%s: not valid UTF-8, so it cannot be a frame's content", path)
	}
	content := string(data)
	ext := strings.ToLower(filepath.Ext(name))
	markdown := ext == ".md" || ext == ".markdown"

	kind := "snippet"
	if markdown || ext == ".txt" {
		kind = "doc"
	}
	if meta.Kind != nil {
		if cgp.IsBlank(*meta.Kind) {
			return nil, fmt.Errorf("%s: the sidecar gives a blank kind", path)
		}
		kind = *meta.Kind
	}
	title := name
	if cgp.IsBlank(title) {
		title = "untitled file"
	}
	if markdown {
		if h := firstHeading(content); h != "" {
			title = h
		}
	}
	if meta.Title != nil {
		if cgp.IsBlank(*meta.Title) {
			return nil, fmt.Errorf("%s: the sidecar gives a blank title", path)
		}
		title = *meta.Title
	}
	id := "frm_" + strings.ReplaceAll(strings.TrimSuffix(name, filepath.Ext(name)), "-", "_")
	if meta.ID != nil {
		if cgp.IsBlank(*meta.ID) {
			return nil, fmt.Errorf("%s: the sidecar gives a blank id", path)
		}
		id = *meta.ID
	}
	d := &doc{name: name}
	if meta.ValidFrom != nil {
		t, err := parseTimestamp(*meta.ValidFrom)
		if err != nil {
			return nil, fmt.Errorf("%s: sidecar valid_from: %w", path, err)
		}
		d.from = &t
	}
	if meta.ValidTo != nil {
		t, err := parseTimestamp(*meta.ValidTo)
		if err != nil {
			return nil, fmt.Errorf("%s: sidecar valid_to: %w", path, err)
		}
		d.to = &t
	}
	if d.from != nil && d.to != nil && !d.from.Before(*d.to) {
		return nil, fmt.Errorf("%s: sidecar valid_to %s is not after valid_from %s", path, *meta.ValidTo, *meta.ValidFrom)
	}

	uri := (&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}).String()
	fileLink := cgp.Link{Type: "file", URI: cgp.Str(uri), Method: cgp.Str("file-read"), By: cgp.Str(Name)}
	label := name
	if n := len(cgp.Lines(data)); n > 0 {
		r := "L1-" + strconv.Itoa(n)
		addressed, err := cgp.RangeBytes(data, r, true)
		if err != nil {
			return nil, fmt.Errorf("%s: range %s: %w", path, r, err)
		}
		fileLink.Range = cgp.Str(r)
		fileLink.Digest = cgp.Str(cgp.DigestOf(addressed))
		label = name + " " + r
	} else {
		// An empty file has no line to name: the link addresses the whole resource.
		fileLink.Digest = cgp.Str(cgp.DigestOf(data))
	}
	d.frame = cgp.ContextFrame{
		ID:            id,
		Kind:          kind,
		Title:         title,
		Content:       cgp.Str(content),
		ContentDigest: cgp.Str(cgp.DigestOf(data)),
		URI:           cgp.Str(uri),
		TokenCost:     cgp.TokenCost(content),
		ValidFrom:     meta.ValidFrom,
		ValidTo:       meta.ValidTo,
		RecordedAt:    cgp.Str(RecordedAt),
		Provenance: []cgp.Link{
			fileLink,
			{Type: "derivation", Method: cgp.Str("frame-extraction"), By: cgp.Str(Name + "/" + Version)},
		},
		CitationLabel: cgp.Str(label),
		Relations: []cgp.Relation{{
			Rel:         "doc.documents",
			TargetURI:   "symbol:///docs/" + url.PathEscape(name) + "#overview",
			DisplayName: cgp.Str(title),
		}},
	}
	text := title + "\n" + content
	d.terms = map[string]bool{}
	for _, t := range terms(text) {
		d.terms[t] = true
	}
	d.vec = bagOfWords(text)
	return d, nil
}

// firstHeading returns the text of a Markdown document's first ATX heading
// outside a fenced code block, or "".
func firstHeading(content string) string {
	fence := ""
	for _, line := range strings.Split(content, "\n") {
		line = strings.TrimRight(line, "\r")
		trimmed := strings.TrimLeft(line, " ")
		if len(line)-len(trimmed) > 3 {
			continue
		}
		if fence != "" {
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			fence = trimmed[:3]
			continue
		}
		hashes := len(trimmed) - len(strings.TrimLeft(trimmed, "#"))
		if hashes < 1 || hashes > 6 {
			continue
		}
		rest := trimmed[hashes:]
		if rest != "" && rest[0] != ' ' && rest[0] != '\t' {
			continue
		}
		rest = strings.TrimSpace(rest)
		// A closing sequence of #s, preceded by a space, is not part of the text.
		if t := strings.TrimRight(rest, "#"); t != rest && (t == "" || strings.HasSuffix(t, " ") || strings.HasSuffix(t, "\t")) {
			rest = strings.TrimSpace(t)
		}
		if !cgp.IsBlank(rest) {
			return rest
		}
	}
	return ""
}

// terms splits text into lowercase runs of letters and digits.
func terms(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// bagOfWords is the Fingerprint embedding of text: each term adds ±1 to the
// dimension its FNV-1a hash picks (the hash's bit 32 picks the sign), and
// the sum is L2-normalised; text with no terms embeds as the zero vector.
func bagOfWords(text string) [Dims]float64 {
	var v [Dims]float64
	for _, t := range terms(text) {
		h := fnv.New64a()
		h.Write([]byte(t))
		sum := h.Sum64()
		if sum>>32&1 == 0 {
			v[sum%Dims]++
		} else {
			v[sum%Dims]--
		}
	}
	return normalise(v[:])
}

// Embed returns the Fingerprint embedding of text, as a host would send it in a query.
func Embed(text string) []float32 {
	v := bagOfWords(text)
	out := make([]float32, Dims)
	for i, x := range v {
		out[i] = float32(x)
	}
	return out
}

// normalise scales v (of length Dims) to unit L2 length; the zero vector
// stays zero.
func normalise(v []float64) [Dims]float64 {
	var out [Dims]float64
	var norm float64
	for _, x := range v {
		norm += x * x
	}
	norm = math.Sqrt(norm)
	if norm == 0 || math.IsInf(norm, 0) || math.IsNaN(norm) {
		return out
	}
	for i := range out {
		out[i] = v[i] / norm
	}
	return out
}

// score ranks d against the query's terms and, when given, its normalised
// embedding: scoreFloor plus the rest of [0,1] in proportion to the share of
// query terms d contains (averaged with the cosine similarity, clipped at
// zero, when there is an embedding), rounded to four decimals.
func (d *doc) score(query []string, qvec *[Dims]float64) float32 {
	overlap := 0.0
	if len(query) > 0 {
		hit := 0
		for _, t := range query {
			if d.terms[t] {
				hit++
			}
		}
		overlap = float64(hit) / float64(len(query))
	}
	rel := overlap
	if qvec != nil {
		cos := 0.0
		for i := range qvec {
			cos += qvec[i] * d.vec[i]
		}
		rel = (overlap + math.Max(0, math.Min(1, cos))) / 2
	}
	s := scoreFloor + (1-scoreFloor)*rel
	return float32(math.Round(s*1e4) / 1e4)
}

// queryTerms is the distinct terms of a query's goal and query_text.
func queryTerms(q *cgp.ContextQuery) []string {
	text := q.Goal
	if q.QueryText != nil {
		text += "\n" + *q.QueryText
	}
	seen := map[string]bool{}
	var out []string
	for _, t := range terms(text) {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}
