package corpus

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"testing/fstest"

	"github.com/refereehq/referee/canon"
)

// FuzzProvenanceFormat is the format of the member "fuzz" of the manifest
// of a corpus that `referee fuzz --out` wrote: how its vectors were found.
const FuzzProvenanceFormat = "referee-fuzz/1"

// FuzzProvenanceKey is the name of that member.
const FuzzProvenanceKey = "fuzz"

// FuzzFoundNothing reports whether m is the manifest of a corpus that
// `referee fuzz --out` wrote when it found nothing to write: its fuzz
// member, of format FuzzProvenanceFormat, lists no vector.
func (m *Manifest) FuzzFoundNothing() bool {
	for _, mem := range m.Meta {
		if mem.Key != FuzzProvenanceKey {
			continue
		}
		format, _ := mem.Value.Lookup("format")
		vectors, ok := mem.Value.Lookup("vectors")
		return format.Kind == canon.String && format.Str == FuzzProvenanceFormat && ok && vectors.Kind == canon.Array && len(vectors.Elems) == 0
	}
	return false
}

// MarshalJSON renders v as a corpus file: JSON indented by two spaces,
// with <, > and & as they are, ending in a newline.
func MarshalJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return indent(make([]byte, 0, b.Len()+b.Len()/4), b.Bytes()), nil
}

// indent appends src, compact JSON as json.Encoder writes it (a newline
// after the value), indented as json.Encoder.SetIndent("", "  ") indents
// it: a newline and two spaces a level after { [ and , and before } ],
// none inside an empty object or array, a space after each colon. It reads
// the punctuation between strings, and copies strings whole.
func indent(dst, src []byte) []byte {
	depth := 0
	newline := func() {
		dst = append(dst, '\n')
		for range depth {
			dst = append(dst, ' ', ' ')
		}
	}
	for i := 0; i < len(src); i++ {
		switch c := src[i]; c {
		case '"':
			j := i + 1
			for j < len(src) && src[j] != '"' {
				if src[j] == '\\' {
					j++
				}
				j++
			}
			dst = append(dst, src[i:min(j+1, len(src))]...)
			i = j
		case '{', '[':
			dst = append(dst, c)
			if i+1 < len(src) && src[i+1] == c+2 { // } or ]: empty
				dst = append(dst, c+2)
				i++
				continue
			}
			depth++
			newline()
		case ',':
			dst = append(dst, c)
			newline()
		case ':':
			dst = append(dst, ':', ' ')
		case '}', ']':
			depth--
			newline()
			dst = append(dst, c)
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

// FoundFS holds files in memory as the corpus `referee fuzz --out` writes
// of them: the files and a manifest with their digests and the fuzz
// member (provenance, or only its format when provenance is nil).
func FoundFS(files map[string][]byte, provenance *canon.Value) (fstest.MapFS, error) {
	if provenance == nil {
		v, err := canon.Parse([]byte(`{"format":"`+FuzzProvenanceFormat+`"}`), canon.ReadOptions{})
		if err != nil {
			return nil, err
		}
		provenance = &v
	}
	m := &Manifest{Files: make(map[string]string, len(files)), Meta: []canon.Member{{Key: FuzzProvenanceKey, Value: *provenance}}}
	fsys := fstest.MapFS{}
	for p, b := range files {
		if p == ManifestName || !fs.ValidPath(p) {
			return nil, fmt.Errorf("found corpus: %q is not a file a corpus can hold", p)
		}
		sum := sha256.Sum256(b)
		m.Files[p] = "sha256:" + hex.EncodeToString(sum[:])
		fsys[p] = &fstest.MapFile{Data: b, Mode: 0o644}
	}
	fsys[ManifestName] = &fstest.MapFile{Data: m.Encode(), Mode: 0o644}
	return fsys, nil
}
