package jcs

import (
	"bytes"
	"io"
	"io/fs"

	"github.com/refereehq/referee/canon"
	"github.com/refereehq/referee/check"
)

// maxPlainFile is the largest vectors.json read whole into memory to be
// indexed in one pass (indexPlain); a larger one is read as a stream.
const maxPlainFile = 4 << 20

// indexFile indexes f, a vectors.json that reads at offsets through ra: in
// one pass over its bytes when it is small and in the shape referee
// writes (indexPlain), else as a stream (indexVectors). Read in one pass,
// its vectors are kept as decoded when keep is set (the checks read
// nothing back).
func indexFile(name string, f fs.File, ra io.ReaderAt, keep bool) ([]check.Check, bool) {
	if st, err := f.Stat(); err == nil && st.Size() <= maxPlainFile {
		raw := make([]byte, st.Size())
		if n, err := ra.ReadAt(raw, 0); n == len(raw) && (err == nil || err == io.EOF) {
			if checks, ok := indexPlain(name, raw, ra, keep); ok {
				return checks, true
			}
		}
	}
	return indexVectors(name, f, ra)
}

// indexPlain is indexVectors for a file whose bytes are raw, when its
// members and its vectors' members are named exactly as the format names
// them, no string of a vector holds a lone surrogate and no value is of
// another type than the format's: the shape every vectors.json referee
// writes has. Each vector is read by one strict parse, where indexVectors
// decodes it twice; the checks are those indexVectors makes. It returns
// false for any other file, and for one indexVectors refuses.
func indexPlain(name string, raw []byte, ra io.ReaderAt, keep bool) ([]check.Check, bool) {
	vf := newVectorFile(name, VectorsFile, ra)
	vf.keep = keep
	b := newVectorChecks(name, false)
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return nil, false
	}
	var sawFormat, sawVectors bool
	for i = skipSpace(raw, i+1); ; {
		if sawFormat || sawVectors {
			if i >= len(raw) || raw[i] != ',' {
				break
			}
			i = skipSpace(raw, i+1)
		}
		var key string
		switch {
		case bytes.HasPrefix(raw[i:], []byte(`"format"`)):
			key, i = "format", i+len(`"format"`)
		case bytes.HasPrefix(raw[i:], []byte(`"vectors"`)):
			key, i = "vectors", i+len(`"vectors"`)
		default:
			return nil, false
		}
		if i = skipSpace(raw, i); i >= len(raw) || raw[i] != ':' {
			return nil, false
		}
		i = skipSpace(raw, i+1)
		switch {
		case key == "format" && !sawFormat:
			if !bytes.HasPrefix(raw[i:], []byte(`"referee-jcs/1"`)) {
				return nil, false
			}
			sawFormat, i = true, i+len(`"referee-jcs/1"`)
		case key == "vectors" && !sawVectors:
			sawVectors = true
			if i >= len(raw) || raw[i] != '[' {
				return nil, false
			}
			for n := 0; ; n++ {
				i = skipSpace(raw, i+1)
				if n == 0 && i < len(raw) && raw[i] == ']' {
					break
				}
				end := valueEnd(raw, i)
				if end < 0 {
					return nil, false
				}
				v, ok := plainVectorOf(raw[i:end])
				if !ok {
					return nil, false
				}
				p, err := b.prepare(n, &v)
				if err != nil {
					return nil, false
				}
				vf.add(int64(i), raw[i:end], p)
				if i = skipSpace(raw, end); i < len(raw) && raw[i] == ']' {
					break
				}
				if i >= len(raw) || raw[i] != ',' {
					return nil, false
				}
			}
			i = skipSpace(raw, i+1)
		default:
			return nil, false
		}
		i = skipSpace(raw, i)
	}
	if i >= len(raw) || raw[i] != '}' || skipSpace(raw, i+1) != len(raw) || !sawFormat || len(vf.refs) == 0 || !b.distinct() {
		return nil, false
	}
	return vf.checks(), true
}

// plainVectorOf is the vector raw, one JSON value, holds, as
// corpus.DecodeJSON decodes it; ok is false when raw is not JSON, or not
// an object of the format's members named exactly, each of the format's
// type or null, no string holding a lone surrogate (which DecodeJSON reads
// as U+FFFD).
func plainVectorOf(raw []byte) (v vector, ok bool) {
	val, err := canon.Parse(raw, canon.ReadOptions{})
	if err != nil || val.Kind != canon.Object {
		return v, false
	}
	str := func(x canon.Value) (string, bool) {
		return x.Str, x.Kind == canon.String && !canon.HasLoneSurrogate(x.Str)
	}
	for _, m := range val.Members {
		if m.Value.Kind == canon.Null {
			switch m.Key {
			case "name", "doc", "input", "input_hex", "output", "reject", "lenient_outputs":
				continue // decoding leaves the field as it was
			}
			return v, false
		}
		switch m.Key {
		case "name":
			v.Name, ok = str(m.Value)
		case "doc":
			v.Doc, ok = str(m.Value)
		case "input", "input_hex", "output":
			var s string
			if s, ok = str(m.Value); ok {
				switch m.Key {
				case "input":
					v.Input = &s
				case "input_hex":
					v.InputHex = &s
				default:
					v.Output = &s
				}
			}
		case "reject":
			v.Reject, ok = m.Value.Bool, m.Value.Kind == canon.Bool
		case "lenient_outputs":
			ok = m.Value.Kind == canon.Array
			v.Lenient = make([]string, 0, len(m.Value.Elems))
			for _, e := range m.Value.Elems {
				s, sok := str(e)
				ok = ok && sok
				v.Lenient = append(v.Lenient, s)
			}
		default:
			ok = false
		}
		if !ok {
			return v, false
		}
	}
	return v, true
}
