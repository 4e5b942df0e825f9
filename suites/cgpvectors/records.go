package cgpvectors

import (
	"context"
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"strings"

	"github.com/refereehq/referee/canon"
	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/corpus"
	"github.com/refereehq/referee/protocols/cgp"
)

// OpRecordHash is the adapter op that computes a lifecycle record's record_hash.
const OpRecordHash = "recordHash"

// RecordVectorsFile lists each lifecycle record fixture with its preimage and hash.
const RecordVectorsFile = "record-hash-vectors.json"

// extension is the unmodelled namespaced member planted in each record, as
// upstream's record_hash_typed_wire_parity test does: it is content, so it
// changes the hash.
const extension = `{"hops":2,"latency_ms":12.5,"verified":true,"route":["relay-a","relay-b"],"note":null}`

// decoyHash stands in for a record's stored record_hash in the hash checks.
const decoyHash = "sha256:0000000000000000000000000000000000000000000000000000000000000000"

// extensionKey is the planted member's name.
const extensionKey = "acme:relay"

//go:embed records
var embeddedRecords embed.FS

// Records returns the lifecycle record fixtures of the Context Exchange
// Provider profile and their record-hash vectors, as upstream publishes them.
func Records() (*corpus.Corpus, error) {
	sub, err := fs.Sub(embeddedRecords, "records")
	if err != nil {
		return nil, err
	}
	return corpus.Open(sub, "embedded:cgp-records")
}

// Record is one lifecycle record fixture with its published preimage and hash.
type Record struct {
	Name     string // the file's stem, its record_kind
	Record   canon.Value
	Preimage string // jcs_utf8
	Hash     string // record_hash
}

// ReadRecords reads record-hash-vectors.json and the records it names, and
// checks that the file agrees with itself and with RFC 8785: each record's
// stored record_hash, the vector's hash, and the hash of the vector's preimage.
func ReadRecords(c *corpus.Corpus) ([]Record, error) {
	return readRecords(func(name string) (*corpus.Corpus, string, error) { return c, name, nil })
}

// opener finds a vector file by its name: the corpus that holds it and its
// path there.
type opener func(name string) (*corpus.Corpus, string, error)

// readRecords is ReadRecords with each file, record-hash-vectors.json and
// every record it names, found by open, so that they may come from
// different places.
func readRecords(open opener) ([]Record, error) {
	c, path, err := open(RecordVectorsFile)
	if err != nil {
		return nil, err
	}
	v, err := readValue(c, path)
	if err != nil {
		return nil, err
	}
	f, err := fields(v, fmt.Sprintf("corpus %s: %s", c.Name, path), "note", "rule", "vectors")
	if err != nil {
		return nil, err
	}
	if f["vectors"].Kind != canon.Array || len(f["vectors"].Elems) == 0 {
		return nil, fmt.Errorf("corpus %s: %s: vectors is not a non-empty array", c.Name, path)
	}
	var out []Record
	seen := corpus.Names{}
	for i, e := range f["vectors"].Elems {
		where := fmt.Sprintf("corpus %s: %s: vector %d", c.Name, path, i)
		g, err := fields(e, where, "jcs_utf8", "record_file", "record_hash")
		if err != nil {
			return nil, err
		}
		for _, k := range []string{"jcs_utf8", "record_file", "record_hash"} {
			if g[k].Kind != canon.String {
				return nil, fmt.Errorf("%s: %s is not a string", where, k)
			}
		}
		name, ok := strings.CutSuffix(g["record_file"].Str, ".json")
		if !ok || name == "" || strings.ContainsAny(name, "/\\") {
			return nil, fmt.Errorf("%s: record_file %q is not a .json file beside %s", where, g["record_file"].Str, RecordVectorsFile)
		}
		if err := seen.Add(name); err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		rc, rpath, err := open(g["record_file"].Str)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		// file names the record in messages; with the corpus when it is
		// not the vectors' own.
		file := rpath
		if rc != c {
			file = fmt.Sprintf("%s (corpus %s)", rpath, rc.Name)
		}
		rec, err := readValue(rc, rpath)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		r := Record{Name: name, Record: rec, Preimage: g["jcs_utf8"].Str, Hash: g["record_hash"].Str}
		pre, err := cgp.RecordPreimage(rec)
		switch {
		case err != nil:
			return nil, fmt.Errorf("%s: %s: %w", where, file, err)
		case string(pre) != r.Preimage:
			return nil, fmt.Errorf("%s: jcs_utf8 is not the RFC 8785 text of %s without record_hash", where, file)
		case cgp.DigestOf(pre) != r.Hash:
			return nil, fmt.Errorf("%s: record_hash %s is not the digest of jcs_utf8 (%s)", where, r.Hash, cgp.DigestOf(pre))
		}
		if _, ok := rec.Lookup(extensionKey); ok {
			return nil, fmt.Errorf("%s: %s already has a %q member, which the extension check plants", where, file, extensionKey)
		}
		if _, ok := rec.Lookup(cgp.RecordHashMember); !ok {
			return nil, fmt.Errorf("%s: %s has no record_hash", where, file)
		}
		if stored, _ := rec.Lookup(cgp.RecordHashMember); stored.Str != r.Hash {
			return nil, fmt.Errorf("%s: %s stores record_hash %s, the vector says %s", where, file, stored.String(), r.Hash)
		}
		out = append(out, r)
	}
	return out, nil
}

// withExtension is rec with the extension member planted after its first member.
func withExtension(rec canon.Value) canon.Value {
	ext, _ := canon.Parse([]byte(extension), canon.ReadOptions{})
	n := min(1, len(rec.Members))
	out := canon.Value{Kind: canon.Object, Members: append([]canon.Member{}, rec.Members[:n]...)}
	out.Members = append(out.Members, canon.Member{Key: extensionKey, Value: ext})
	out.Members = append(out.Members, rec.Members[n:]...)
	return out
}

// recordChecks are cgp-vectors/record/NAME/hash and cgp-vectors/record/NAME/extension.
func recordChecks(r Record) []check.Check {
	ext := withExtension(r.Record)
	extHash, _ := cgp.RecordHash(ext)
	// The stored hash is replaced by a decoy, so that echoing it back cannot
	// pass: the hash must not depend on the stored value.
	decoy := canon.Value{Kind: canon.Object}
	for _, m := range r.Record.Members {
		if m.Key == cgp.RecordHashMember {
			m.Value = canon.Value{Kind: canon.String, Str: decoyHash}
		}
		decoy.Members = append(decoy.Members, m)
	}
	return []check.Check{
		recordCheck("cgp-vectors/record/"+r.Name+"/hash",
			"the record_hash of the "+r.Name+" lifecycle record is the published one",
			"the record fixture "+r.Name+".json, its stored record_hash replaced by "+decoyHash, decoy, r.Hash,
			"record_hash is sha256 of the RFC 8785 text of the record with its top-level record_hash member removed (not blanked)", clauseRecordHash),
		recordCheck("cgp-vectors/record/"+r.Name+"/extension",
			"an unmodelled namespaced member ("+extensionKey+") is content: it is kept and changes the "+r.Name+" record's hash",
			"the "+r.Name+" record with "+strings.Replace(`"K": `+extension, "K", extensionKey, 1)+" planted after its first member", ext, extHash,
			"a member the implementation does not model must be kept and hashed like any other", clauseRecordExtension),
	}
}

func recordCheck(id, doc, sends string, rec canon.Value, want, hint, clause string) check.Check {
	return check.Check{
		ID:      id,
		Doc:     doc,
		Needs:   []string{OpRecordHash},
		Explain: fmt.Sprintf("sends: %s {\"record\": <%s>}\nexpects: ok %q", OpRecordHash, sends, want),
		Clause:  clause,
		Do: func(ctx context.Context, s *check.Session) check.Outcome {
			return check.Expect{Op: OpRecordHash, Args: map[string]json.RawMessage{"record": raw(rec)}, Notes: []string{hint}, Words: erred("rejected a lifecycle record")}.
				Bytes(ctx, s, "record_hash", []byte(want))
		},
	}
}
