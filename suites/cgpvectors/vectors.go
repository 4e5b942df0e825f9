package cgpvectors

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/refereehq/referee/corpus"
	"github.com/refereehq/referee/protocols/cgp"
)

// VectorPath is where upstream's repository keeps the vector file name, as
// referee run cgp-vectors --vectors DIR looks for it:
// tests/vectors/ for range-vectors.json and attestation-vectors.json,
// schema/ for reference-vectors.ndjson, and tests/fixtures/ for
// record-hash-vectors.json, record-attestation-key.json and the lifecycle
// records.
func VectorPath(name string) string {
	switch name {
	case RangeVectorsFile, ProvenanceVectorsFile:
		return "tests/vectors/" + name
	case EnvelopeVectorsFile:
		return "schema/" + name
	}
	return "tests/fixtures/" + name
}

// vectorFiles finds each vector file: in dir at its VectorPath when dir has
// it there, else among the embedded copies. It keeps what it found, for the
// suite's corpus description and digest.
type vectorFiles struct {
	dir      *corpus.Corpus // nil: every file is embedded
	embedded *corpus.Corpus
	used     map[string]usedFile // by file name
}

type usedFile struct {
	fromDir bool
	digest  string // "sha256:<hex>" of the file's bytes
}

// open is an opener over dir and the embedded copies.
func (v *vectorFiles) open(name string) (*corpus.Corpus, string, error) {
	c, p := v.embedded, name
	if v.dir != nil && v.dir.Has(VectorPath(name)) {
		c, p = v.dir, VectorPath(name)
	}
	if !c.Has(p) {
		if v.dir != nil {
			return nil, "", fmt.Errorf("%s is neither in corpus %s nor among the embedded copies", VectorPath(name), v.dir.Name)
		}
		return nil, "", fmt.Errorf("corpus %s: no %s", c.Name, p)
	}
	raw, err := c.ReadFile(p)
	if err != nil {
		return nil, "", err
	}
	v.used[name] = usedFile{fromDir: c == v.dir, digest: cgp.DigestOf(raw)}
	return c, p, nil
}

// add counts name, read from c (referee's own, never from dir), among the
// files used.
func (v *vectorFiles) add(c *corpus.Corpus, name string) error {
	raw, err := c.ReadFile(name)
	if err != nil {
		return err
	}
	v.used[name] = usedFile{digest: cgp.DigestOf(raw)}
	return nil
}

func (v *vectorFiles) anyFromDir() bool {
	for _, u := range v.used {
		if u.fromDir {
			return true
		}
	}
	return false
}

// singles are the vector files other than the records, in the order the
// corpus description lists them.
var singles = []string{RecordVectorsFile, AttestationKeyFile, RangeVectorsFile, ProvenanceVectorsFile, EnvelopeVectorsFile}

// noneFound is the error for a directory that holds none of the files:
// what was looked for, and where the directory has them if it has them
// elsewhere.
func (v *vectorFiles) noneFound(records []Record) error {
	kinds := make([]string, len(records))
	for i, r := range records {
		kinds[i] = r.Name
	}
	looked := []string{VectorPath(RecordVectorsFile),
		fmt.Sprintf("tests/fixtures/<kind>.json for the %d lifecycle records (%s)", len(records), strings.Join(kinds, ", "))}
	for _, n := range singles[1:] {
		looked = append(looked, VectorPath(n))
	}
	msg := fmt.Sprintf("corpus %s: none of the CGP vector files at their places in upstream's repository layout: looked for %s", v.dir.Name, strings.Join(looked, ", "))
	var elsewhere []string
	for _, f := range v.dir.Files() {
		if slices.Contains(singles, path.Base(f)) {
			elsewhere = append(elsewhere, f)
		}
	}
	if len(elsewhere) > 8 {
		elsewhere = append(elsewhere[:8], "…")
	}
	if len(elsewhere) > 0 {
		msg += fmt.Sprintf(" (it has %s: give the directory that holds tests/ and schema/)", strings.Join(elsewhere, ", "))
	}
	return fmt.Errorf("%s", msg)
}

// describe is the suite's corpus: the profile's name and, with a vectors
// directory, which vector files came from it and which are embedded.
func (v *vectorFiles) describe(profile string, records []Record) string {
	if v.dir == nil {
		return profile
	}
	var fromDir, embedded []string
	for _, n := range singles {
		if v.used[n].fromDir {
			fromDir = append(fromDir, VectorPath(n))
		} else {
			embedded = append(embedded, n)
		}
		if n != RecordVectorsFile {
			continue
		}
		// The records, after the file that names them.
		var mine []string
		for _, r := range records {
			if v.used[r.Name+".json"].fromDir {
				mine = append(mine, VectorPath(r.Name+".json"))
			}
		}
		switch {
		case len(mine) == len(records):
			fromDir = append(fromDir, fmt.Sprintf("the %d record fixtures (tests/fixtures/<kind>.json)", len(records)))
		case len(mine) == 0:
			embedded = append(embedded, fmt.Sprintf("the %d record fixtures", len(records)))
		default:
			fromDir = append(fromDir, fmt.Sprintf("%d of the %d record fixtures (%s)", len(mine), len(records), strings.Join(mine, ", ")))
			embedded = append(embedded, fmt.Sprintf("the other %d record fixtures", len(records)-len(mine)))
		}
	}
	out := fmt.Sprintf("%s; vectors from %s: %s", profile, v.dir.Name, strings.Join(fromDir, ", "))
	if len(embedded) > 0 {
		out += "; embedded: " + strings.Join(embedded, ", ")
	}
	return out
}

// digest is the suite's corpus digest: SHA-256 over the line
// "<profile digest>  profile\n", then one line "<digest>  <name>\n" per
// vector file used, by name, its digest over its bytes. Where a file came
// from does not enter it: the same bytes give the same digest.
func (v *vectorFiles) digest(profile string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s  profile\n", profile)
	names := make([]string, 0, len(v.used))
	for n := range v.used {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(&b, "%s  %s\n", v.used[n].digest, n)
	}
	sum := sha256.Sum256([]byte(b.String()))
	return "sha256:" + hex.EncodeToString(sum[:])
}
