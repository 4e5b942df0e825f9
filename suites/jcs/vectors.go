package jcs

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash/maphash"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/refereehq/referee/check"
)

// vectorFile is a corpus's vectors as its checks reach them: where each
// lies in the file, a digest of its bytes and its class, decided at load.
// A check reads its vector back when it runs or is explained, so that the
// suite holds no vector, request or explanation until one is needed, and a
// corpus of any size is never in memory whole.
type vectorFile struct {
	where string      // "corpus NAME: vectors.json", for errors
	r     io.ReaderAt // the file, open while a check may read it
	seed  maphash.Seed
	refs  []vectorRef
	made  []check.Check
	// keep is set for a corpus held in memory (the fuzz engine's): its
	// vectors are kept as decoded when they were indexed, not read back.
	keep bool
}

// vectorRef is one vector of a vectorFile.
type vectorRef struct {
	off, size int64
	sum       uint64 // its bytes' maphash: a file changed since load is refused
	class     packedClass
	data      *vectorData // the vector decoded, when its file is kept
}

// vectorData is what a vector sends and expects, as bytes.
type vectorData struct {
	input, want []byte
	lenient     [][]byte
}

// expected is the output a check of d compares with: the vector's, or the
// one output of a may check whose input is not JSON (cl.output).
func (d vectorData) expected(cl class) []byte {
	if cl.output != nil {
		return cl.output
	}
	return d.want
}

// newVectorFile returns an empty vectorFile of corpus name's file (""
// when its vectors are not one file's) read through r.
func newVectorFile(name, file string, r io.ReaderAt) *vectorFile {
	where := "corpus " + name
	if file != "" {
		where += ": " + file
	}
	return &vectorFile{where: where, r: r, seed: maphash.MakeSeed()}
}

// add indexes the vector whose bytes, raw, are at off in the file, and
// makes its check.
func (vf *vectorFile) add(off int64, raw []byte, p prepared) {
	ref := vectorRef{off: off, size: int64(len(raw)), sum: maphash.Bytes(vf.seed, raw), class: p.class.pack()}
	if vf.keep {
		ref.data = &p.data
	}
	vf.refs = append(vf.refs, ref)
	vf.made = append(vf.made, vf.canonCheck(len(vf.refs)-1, p))
}

// checks returns the checks made, each vector's in order. (They are not
// copied to a slice of their exact size: for a large corpus the copy would
// double the checks' memory for a moment, more than append's spare room.)
func (vf *vectorFile) checks() []check.Check {
	checks := slices.Clip(vf.made)
	vf.made = nil
	return checks
}

// vector returns vector i, kept or read back, with its class. The error
// names the corpus, the file and the vector.
func (vf *vectorFile) vector(i int) (vectorData, class, error) {
	ref := &vf.refs[i]
	if ref.data != nil {
		return *ref.data, ref.class.unpack(ref.data.lenient), nil
	}
	buf := make([]byte, ref.size)
	if n, err := vf.r.ReadAt(buf, ref.off); n < len(buf) {
		if err == nil || err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return vectorData{}, class{}, fmt.Errorf("%s: vector %d: %w", vf.where, i, err)
	}
	if maphash.Bytes(vf.seed, buf) != ref.sum {
		return vectorData{}, class{}, fmt.Errorf("%s: vector %d: the file changed after the corpus was loaded", vf.where, i)
	}
	d, err := decodeVector(buf)
	if err != nil {
		return vectorData{}, class{}, fmt.Errorf("%s: vector %d: %w", vf.where, i, err)
	}
	return d, ref.class.unpack(d.lenient), nil
}

// packedClass is a class as a vectorFile keeps it: what classify decided,
// from which the rest of the class follows (unpack).
type packedClass struct {
	kind   uint8
	clause uint8 // an index in clauses
	hex    bool
	depth  int32
}

// clauses are the clauses a class may have; "" is the clause of a rejection
// classify finds no reason for.
var clauses = []string{"", clauseNumbers, clauseStrings, clauseKeys, clauseNames, clauseShape, clauseTop, clauseOutput,
	clauseDepth, clauseDeep, clauseBig, clauseNonchar, clauseBOM, clauseDupes, clauseSurr, clauseRange, clauseNaN,
	clauseGrammar, clauseNoValue, clauseUTF8, clauseNaNDropped}

func (c class) pack() packedClass {
	return packedClass{kind: uint8(c.kind), clause: uint8(slices.Index(clauses, c.clause)), hex: c.hex, depth: int32(c.depth)}
}

// unpack returns the class p packs, for a vector with lenient outputs lenient.
func (p packedClass) unpack(lenient [][]byte) class {
	c := class{kind: kind(p.kind), clause: clauses[p.clause], hex: p.hex, depth: int(p.depth)}
	c.level = levelOf(c.kind)
	c.why = whyOf(c.clause, c.depth)
	if c.clause == clauseBOM && c.kind == wantOutputMay {
		c.output = lenient[0]
	}
	return c
}

// decodeVector returns what raw, a vector's bytes as validated at load,
// sends and expects. A vector whose members are named as the format names
// them, as every vector referee writes is, is read in one pass
// (plainVector); any other is decoded as load decoded it (json.Unmarshal,
// which matches member names without regard to case).
func decodeVector(raw []byte) (vectorData, error) {
	if d, ok := plainVector(raw); ok {
		return d, nil
	}
	var v vector
	if err := json.Unmarshal(raw, &v); err != nil {
		return vectorData{}, err
	}
	return dataOf(&v)
}

// plainVector reads raw, a JSON object of valid JSON, in one pass when its
// members are those of the format, named exactly, with no lenient outputs;
// ok is false for any other. What it returns is what json.Unmarshal and
// dataOf make of raw.
func plainVector(raw []byte) (d vectorData, ok bool) {
	ok = eachMember(raw, func(key, val []byte) bool {
		if string(val) == "null" {
			switch string(key) {
			case `"name"`, `"doc"`, `"input"`, `"input_hex"`, `"output"`, `"reject"`, `"lenient_outputs"`:
				return true // json.Unmarshal leaves the field as it was
			}
			return false
		}
		switch string(key) {
		case `"name"`, `"doc"`, `"reject"`:
			return true
		case `"input"`:
			d.input, ok = unquoted(val)
			return ok
		case `"input_hex"`:
			h, ok := unquoted(val)
			if !ok {
				return false
			}
			d.input = make([]byte, hex.DecodedLen(len(h)))
			_, err := hex.Decode(d.input, h)
			return err == nil
		case `"output"`:
			d.want, ok = unquoted(val)
			return ok
		}
		return false
	})
	return d, ok
}

// eachMember calls f with the key and the value of each member of obj, a
// JSON object of valid JSON, as raw tokens, until f returns false; it
// returns false then, or when obj is not such an object.
func eachMember(obj []byte, f func(key, val []byte) bool) bool {
	i := skipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return false
	}
	i = skipSpace(obj, i+1)
	if i < len(obj) && obj[i] == '}' {
		return skipSpace(obj, i+1) == len(obj)
	}
	for i < len(obj) {
		k := valueEnd(obj, i)
		if k < 0 || obj[i] != '"' {
			return false
		}
		key := obj[i:k]
		i = skipSpace(obj, k)
		if i >= len(obj) || obj[i] != ':' {
			return false
		}
		i = skipSpace(obj, i+1)
		v := valueEnd(obj, i)
		if v < 0 || !f(key, obj[i:v]) {
			return false
		}
		i = skipSpace(obj, v)
		switch {
		case i < len(obj) && obj[i] == ',':
			i = skipSpace(obj, i+1)
		case i < len(obj) && obj[i] == '}':
			return skipSpace(obj, i+1) == len(obj)
		default:
			return false
		}
	}
	return false
}

// skipSpace returns the index of the first byte at or after i in b that is
// not JSON whitespace.
func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// valueEnd returns the index just past the JSON value of valid JSON that
// starts at i in b, or -1.
func valueEnd(b []byte, i int) int {
	depth := 0
	for i < len(b) {
		switch c := b[i]; {
		case c == '"':
			for i++; i < len(b) && b[i] != '"'; i++ {
				if b[i] == '\\' {
					i++
				}
			}
			if i >= len(b) {
				return -1
			}
			i++
			if depth == 0 {
				return i
			}
		case c == '[' || c == '{':
			depth++
			i++
		case c == ']' || c == '}':
			if depth == 0 {
				return i // a number or a literal ends where its container does
			}
			depth--
			i++
			if depth == 0 {
				return i
			}
		case depth == 0 && (c == ',' || c == ' ' || c == '\t' || c == '\n' || c == '\r'):
			return i
		default:
			i++
		}
	}
	if depth == 0 {
		return i
	}
	return -1
}

// unquoted returns the text a JSON string token of valid JSON spells, as
// json.Unmarshal decodes it: a surrogate escape that is not half of a pair
// is U+FFFD. ok is false for a token it does not take.
func unquoted(tok []byte) (text []byte, ok bool) {
	if len(tok) < 2 || tok[0] != '"' || tok[len(tok)-1] != '"' {
		return nil, false
	}
	s := tok[1 : len(tok)-1]
	if bytes.IndexByte(s, '\\') < 0 {
		return s, true // valid JSON: the bytes are the text
	}
	out := make([]byte, 0, len(s))
	for len(s) > 0 {
		i := bytes.IndexByte(s, '\\')
		if i < 0 {
			return append(out, s...), true
		}
		out, s = append(out, s[:i]...), s[i:]
		if len(s) < 2 {
			return nil, false
		}
		switch c := s[1]; c {
		case '"', '\\', '/':
			out, s = append(out, c), s[2:]
		case 'b', 'f', 'n', 'r', 't':
			out, s = append(out, "\b\f\n\r\t"[strings.IndexByte("bfnrt", c)]), s[2:]
		case 'u':
			r, ok := escapedRune(s)
			if !ok {
				return nil, false
			}
			s = s[6:]
			if utf16.IsSurrogate(r) {
				if r2, ok := escapedRune(s); ok {
					if pair := utf16.DecodeRune(r, r2); pair != utf8.RuneError {
						out, s = utf8.AppendRune(out, pair), s[6:]
						continue
					}
				}
				r = utf8.RuneError
			}
			out = utf8.AppendRune(out, r)
		default:
			return nil, false
		}
	}
	return out, true
}

// escapedRune reads the \uXXXX escape s starts with.
func escapedRune(s []byte) (rune, bool) {
	if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
		return 0, false
	}
	n, err := strconv.ParseUint(string(s[2:6]), 16, 32)
	return rune(n), err == nil
}
