package jcs

import (
	"bytes"
	"encoding/json"

	"github.com/refereehq/referee/canon"
	"github.com/refereehq/referee/canon/mutant"
)

// Mode is a deliberately broken variant of the built-in adapter, each one a
// bug that real JSON canonicalisers have shipped. Every check of the suite
// fails under at least one mode.
type Mode struct {
	Name string
	Doc  string

	writer     mutant.Writer
	duplicates bool // accept duplicate keys, last wins
	maxDepth   int  // reject deeper nesting
	compact    bool // only remove whitespace
}

// Modes lists the built-in adapter's broken modes.
var Modes = []Mode{
	{Name: "codepoint-order", Doc: "sorts keys by code point (UTF-8 bytes), not UTF-16 code units", writer: mutant.Writer{Keys: mutant.CodePoint}},
	{Name: "unsorted", Doc: "keeps members in input order", writer: mutant.Writer{Keys: mutant.Unsorted}},
	{Name: "shallow-sort", Doc: "sorts only the top-level object's members", writer: mutant.Writer{Keys: mutant.Shallow}},
	{Name: "go-float", Doc: "formats numbers with Go's strconv 'g' (1e+06, 1e-07)", writer: mutant.Writer{Numbers: mutant.GoFloat}},
	{Name: "no-exponent", Doc: "never uses exponent form (1e21 in full, 1e-7 as 0.0000001)", writer: mutant.Writer{Numbers: mutant.Plain}},
	{Name: "lexeme-numbers", Doc: "copies number lexemes from the input (1.0 stays 1.0)", writer: mutant.Writer{Numbers: mutant.Lexeme}},
	{Name: "html-escape", Doc: `escapes strings as Go's encoding/json does (\u003c, \u2028)`, writer: mutant.Writer{Strings: mutant.HTML}},
	{Name: "ascii-only", Doc: `escapes every non-ASCII character as \uXXXX`, writer: mutant.Writer{Strings: mutant.ASCII}},
	{Name: "uppercase-hex", Doc: `writes control escapes with uppercase hex (\u001F)`, writer: mutant.Writer{Strings: mutant.UpperHex}},
	{Name: "long-escapes", Doc: `writes \b \t \n \f \r as \u0008 ...`, writer: mutant.Writer{Strings: mutant.Long}},
	{Name: "escape-slash", Doc: `escapes "/" as \/`, writer: mutant.Writer{Strings: mutant.Slash}},
	{Name: "accept-duplicates", Doc: "accepts duplicate keys, the last one winning", duplicates: true},
	{Name: "escape-surrogates", Doc: `writes lone surrogates as \udxxx instead of rejecting them`, writer: mutant.Writer{Surrogates: mutant.Escape}},
	{Name: "overflow-null", Doc: "writes null for 1e400, as JSON.stringify(JSON.parse(...)) does", writer: mutant.Writer{OverflowNull: true}},
	{Name: "depth-128", Doc: "rejects nesting deeper than 128, as serde_json does by default", maxDepth: 128},
	{Name: "compact-only", Doc: "only removes whitespace: no sorting, no re-encoding", compact: true},
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
	return m.writer.Append(nil, v)
}
