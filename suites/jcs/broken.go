package jcs

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/refereehq/referee/canon"
)

// Mode is a deliberately broken variant of the built-in adapter, each one a
// bug that real JSON canonicalisers have shipped. Every check of the suite
// fails under at least one mode.
type Mode struct {
	Name string
	Doc  string

	keys       string // "utf16" (right), "codepoint", "unsorted", "shallow"
	numbers    string // "es6" (right), "go", "plain", "lexeme"
	strings    string // "jcs" (right), "html", "ascii", "upper", "long", "slash"
	duplicates bool   // accept duplicate keys, last wins
	surrogates bool   // escape lone surrogates instead of rejecting them
	overflow   bool   // write null for numbers beyond double range
	maxDepth   int    // reject deeper nesting
	compact    bool   // only remove whitespace
}

// Modes lists the built-in adapter's broken modes.
var Modes = []Mode{
	{Name: "codepoint-order", Doc: "sorts keys by code point (UTF-8 bytes), not UTF-16 code units", keys: "codepoint"},
	{Name: "unsorted", Doc: "keeps members in input order", keys: "unsorted"},
	{Name: "shallow-sort", Doc: "sorts only the top-level object's members", keys: "shallow"},
	{Name: "go-float", Doc: "formats numbers with Go's strconv 'g' (1e+06, 1e-07)", numbers: "go"},
	{Name: "no-exponent", Doc: "never uses exponent form (1e21 in full, 1e-7 as 0.0000001)", numbers: "plain"},
	{Name: "lexeme-numbers", Doc: "copies number lexemes from the input (1.0 stays 1.0)", numbers: "lexeme"},
	{Name: "html-escape", Doc: `escapes strings as Go's encoding/json does (\u003c, \u2028)`, strings: "html"},
	{Name: "ascii-only", Doc: `escapes every non-ASCII character as \uXXXX`, strings: "ascii"},
	{Name: "uppercase-hex", Doc: `writes control escapes with uppercase hex (\u001F)`, strings: "upper"},
	{Name: "long-escapes", Doc: `writes \b \t \n \f \r as \u0008 ...`, strings: "long"},
	{Name: "escape-slash", Doc: `escapes "/" as \/`, strings: "slash"},
	{Name: "accept-duplicates", Doc: "accepts duplicate keys, the last one winning", duplicates: true},
	{Name: "escape-surrogates", Doc: `writes lone surrogates as \udxxx instead of rejecting them`, surrogates: true},
	{Name: "overflow-null", Doc: "writes null for 1e400, as JSON.stringify(JSON.parse(...)) does", overflow: true},
	{Name: "depth-128", Doc: "rejects nesting deeper than 128, as serde_json does by default", maxDepth: 128},
	{Name: "compact-only", Doc: "only removes whitespace: no sorting, no re-encoding", compact: true},
}

// ModeNames returns the names of the broken modes.
func ModeNames() []string {
	names := make([]string, len(Modes))
	for i, m := range Modes {
		names[i] = m.Name
	}
	return names
}

func (m *Mode) canonicalize(text []byte) ([]byte, error) {
	if m.compact {
		var b bytes.Buffer
		err := json.Compact(&b, text)
		return b.Bytes(), err
	}
	opts := canon.ReadOptions{MaxDepth: m.maxDepth}
	if m.duplicates {
		opts.Duplicates = canon.LastWins
	}
	v, err := canon.Parse(text, opts)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := m.write(&b, v, 0); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func (m *Mode) write(b *bytes.Buffer, v canon.Value, depth int) error {
	switch v.Kind {
	case canon.Null:
		b.WriteString("null")
	case canon.Bool:
		b.WriteString(strconv.FormatBool(v.Bool))
	case canon.Number:
		return m.number(b, v.Num)
	case canon.String:
		return m.string(b, v.Str)
	case canon.Array:
		b.WriteByte('[')
		for i, e := range v.Elems {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := m.write(b, e, depth+1); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	case canon.Object:
		members := slices.Clone(v.Members)
		switch {
		case m.keys == "unsorted" || (m.keys == "shallow" && depth > 0):
		case m.keys == "codepoint":
			slices.SortFunc(members, func(x, y canon.Member) int { return cmpStrings(x.Key, y.Key) })
		default:
			slices.SortFunc(members, func(x, y canon.Member) int { return slices.Compare(units(x.Key), units(y.Key)) })
		}
		b.WriteByte('{')
		for i, mem := range members {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := m.string(b, mem.Key); err != nil {
				return err
			}
			b.WriteByte(':')
			if err := m.write(b, mem.Value, depth+1); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	}
	return nil
}

func cmpStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func units(s string) []uint16 { return utf16.Encode([]rune(s)) }

func (m *Mode) number(b *bytes.Buffer, lexeme string) error {
	if m.numbers == "lexeme" {
		b.WriteString(lexeme)
		return nil
	}
	f, err := strconv.ParseFloat(lexeme, 64)
	if math.IsInf(f, 0) {
		if m.overflow {
			b.WriteString("null")
			return nil
		}
		return fmt.Errorf("number %s: %w", lexeme, canon.ErrNumberRange)
	}
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return err
	}
	switch m.numbers {
	case "go":
		b.WriteString(strconv.FormatFloat(f, 'g', -1, 64))
	case "plain":
		b.WriteString(strconv.FormatFloat(f, 'f', -1, 64))
	default:
		s, err := canon.FormatES6(f)
		if err != nil {
			return err
		}
		b.WriteString(s)
	}
	return nil
}

func (m *Mode) string(b *bytes.Buffer, s string) error {
	if m.strings == "html" {
		out, err := json.Marshal(s)
		b.Write(out)
		return err
	}
	profile := canon.JCS
	if m.surrogates {
		profile = canon.JSONStringify
	}
	out, err := profile.Marshal(s)
	if err != nil {
		return err
	}
	switch m.strings {
	case "ascii":
		out = asciiOnly(out)
	case "upper":
		out = upperHex(out)
	case "long":
		for _, r := range []struct{ short, long string }{{`\b`, `\u0008`}, {`\t`, `\u0009`}, {`\n`, `\u000a`}, {`\f`, `\u000c`}, {`\r`, `\u000d`}} {
			out = replaceEscape(out, r.short, r.long)
		}
	case "slash":
		out = bytes.ReplaceAll(out, []byte("/"), []byte(`\/`))
	}
	b.Write(out)
	return nil
}

// replaceEscape replaces the two-byte escape old with new, skipping escaped backslashes.
func replaceEscape(s []byte, old, new string) []byte {
	var b bytes.Buffer
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			if string(s[i:i+2]) == old {
				b.WriteString(new)
			} else {
				b.Write(s[i : i+2])
			}
			i++
			continue
		}
		b.WriteByte(s[i])
	}
	return b.Bytes()
}

func asciiOnly(s []byte) []byte {
	var b bytes.Buffer
	for len(s) > 0 {
		r, n := utf8.DecodeRune(s)
		if r < utf8.RuneSelf {
			b.WriteByte(s[0])
		} else {
			for _, u := range utf16.Encode([]rune{r}) {
				fmt.Fprintf(&b, `\u%04x`, u)
			}
		}
		s = s[n:]
	}
	return b.Bytes()
}

func upperHex(s []byte) []byte {
	out := slices.Clone(s)
	for i := 0; i+5 < len(out); i++ {
		if out[i] == '\\' && out[i+1] == 'u' {
			copy(out[i+2:i+6], bytes.ToUpper(out[i+2:i+6]))
			i += 5
		} else if out[i] == '\\' {
			i++
		}
	}
	return out
}
