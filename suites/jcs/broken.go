package jcs

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/refereehq/referee/canon"
	"github.com/refereehq/referee/canon/mutant"
	"github.com/refereehq/referee/check"
)

// modes names and documents the built-in adapter's broken modes, each one a
// bug that real JSON canonicalisers have shipped; brokenModes holds what
// each one does. Every check of the suite fails under at least one mode.
var modes = []check.Mode{
	{Name: "codepoint-order", Doc: "sorts keys by code point (UTF-8 bytes), not UTF-16 code units"},
	{Name: "unsorted", Doc: "keeps members in input order"},
	{Name: "shallow-sort", Doc: "sorts only the top-level object's members"},
	{Name: "go-float", Doc: "formats numbers with Go's strconv 'g' (1e+06, 1e-07)"},
	{Name: "no-exponent", Doc: "never uses exponent form (1e21 in full, 1e-7 as 0.0000001)"},
	{Name: "lexeme-numbers", Doc: "copies number lexemes from the input (1.0 stays 1.0)"},
	{Name: "html-escape", Doc: `escapes strings as Go's encoding/json does (\u003c, \u2028)`},
	{Name: "ascii-only", Doc: `escapes every non-ASCII character as \uXXXX`},
	{Name: "uppercase-hex", Doc: `writes control escapes with uppercase hex (\u001F)`},
	{Name: "long-escapes", Doc: `writes \b \t \n \f \r as \u0008 ...`},
	{Name: "escape-slash", Doc: `escapes "/" as \/`},
	{Name: "accept-duplicates", Doc: "accepts duplicate keys, the last one winning"},
	{Name: "escape-surrogates", Doc: `writes lone surrogates as \udxxx instead of rejecting them`},
	{Name: "overflow-null", Doc: "writes null for 1e400, as JSON.stringify(JSON.parse(...)) does"},
	{Name: "depth-32", Doc: "rejects nesting deeper than 32 arrays and objects, short of the 64 that must work"},
	{Name: "compact-only", Doc: "only removes whitespace: no sorting, no re-encoding"},
}

// broken is what a broken mode does differently.
type broken struct {
	writer     mutant.Writer
	duplicates bool // accept duplicate keys, last wins
	maxDepth   int  // reject nesting deeper than this (arrays and objects)
	compact    bool // only remove whitespace
}

// brokenModes maps each of modes to its behaviour.
var brokenModes = map[string]broken{
	"codepoint-order":   {writer: mutant.Writer{Keys: mutant.CodePoint}},
	"unsorted":          {writer: mutant.Writer{Keys: mutant.Unsorted}},
	"shallow-sort":      {writer: mutant.Writer{Keys: mutant.Shallow}},
	"go-float":          {writer: mutant.Writer{Numbers: mutant.GoFloat}},
	"no-exponent":       {writer: mutant.Writer{Numbers: mutant.Plain}},
	"lexeme-numbers":    {writer: mutant.Writer{Numbers: mutant.Lexeme}},
	"html-escape":       {writer: mutant.Writer{Strings: mutant.HTML}},
	"ascii-only":        {writer: mutant.Writer{Strings: mutant.ASCII}},
	"uppercase-hex":     {writer: mutant.Writer{Strings: mutant.UpperHex}},
	"long-escapes":      {writer: mutant.Writer{Strings: mutant.Long}},
	"escape-slash":      {writer: mutant.Writer{Strings: mutant.Slash}},
	"accept-duplicates": {duplicates: true},
	"escape-surrogates": {writer: mutant.Writer{Surrogates: mutant.Escape}},
	"overflow-null":     {writer: mutant.Writer{OverflowNull: true}},
	"depth-32":          {maxDepth: 32},
	"compact-only":      {compact: true},
}

func (m *broken) canonicalize(text []byte) ([]byte, error) {
	if m.compact {
		var b bytes.Buffer
		err := json.Compact(&b, text)
		return b.Bytes(), err
	}
	var opts canon.ReadOptions
	if m.duplicates {
		opts.Duplicates = canon.LastWins
	}
	v, err := canon.Parse(text, opts)
	if err != nil {
		return nil, err
	}
	if d := Depth(v); m.maxDepth > 0 && d > m.maxDepth {
		return nil, fmt.Errorf("%w: %d arrays and objects deep, the limit is %d", canon.ErrDepth, d, m.maxDepth)
	}
	return m.writer.Append(nil, v)
}
