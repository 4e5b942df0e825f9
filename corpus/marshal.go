package corpus

import (
	"bytes"
	"encoding/json"
)

// FuzzProvenanceFormat is the format of the member "fuzz" of the manifest
// of a corpus that `referee fuzz --out` wrote: how its vectors were found.
const FuzzProvenanceFormat = "referee-fuzz/1"

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
