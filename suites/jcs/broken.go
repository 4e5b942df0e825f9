package jcs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/refereehq/referee/canon"
	"github.com/refereehq/referee/canon/mutant"
	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/internal/lazy"
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
	{Name: "relaxed-grammar", Doc: "reads text that is not JSON as JSON5 and its kin do (comments, trailing commas, single quotes, +1, .5, 0x1F, \\x41) and canonicalises what it read"},
	{Name: "complete-truncated", Doc: "finishes a truncated text, as partial-JSON parsers do: closes strings and containers, completes literals, drops a cut member"},
	{Name: "first-value-only", Doc: "reads the first JSON value and ignores what follows it, as Go's json.Decoder does: [1] [2] is [1]"},
	{Name: "first-letter-literals", Doc: "reads a literal from its first letter and its length, so [ture] is [true]"},
	{Name: "parsefloat-numbers", Doc: "reads a run of number characters as JavaScript's parseFloat does, so [1e] is [1] and [1.2.3] is [1.2]"},
	{Name: "holes-as-null", Doc: "reads a missing value as JavaScript reads an array hole: [1,,2] is [1,null,2], {\"a\":} is {\"a\":null}"},
	{Name: "any-closer", Doc: "lets a closing bracket close whatever is open, as readers that only count nesting do: [1} is [1]"},
	{Name: "parseint-escapes", Doc: "reads the four characters after \\u with JavaScript's parseInt, so \\uZZZZ is U+0000 and \\u12xy is U+0012"},
	{Name: "minify-first", Doc: "removes whitespace outside strings before parsing, so [1 2] reads as [12]"},
	{Name: "replace-invalid-utf8", Doc: "decodes bytes that are not UTF-8 to U+FFFD, as a non-fatal TextDecoder does, instead of rejecting them"},
	{Name: "detect-encoding", Doc: "decodes bytes that start with a UTF-16 or UTF-32 byte order mark as that encoding, as Python's json.loads does with bytes"},
	{Name: "plain-object-keys", Doc: "keeps members in a plain JavaScript object: __proto__ vanishes, names the prototype answers (toString, constructor) count as duplicates, an object with a numeric length is an array"},
	{Name: "unchecked-pairs", Doc: "combines a high surrogate escape with whatever \\u escape follows it, checking only the first half of a pair"},
	{Name: "nan-as-null", Doc: "reads NaN and Infinity as JSON5 does and writes them as JSON.stringify does: null"},
	{Name: "scalar-whitespace", Doc: "rejects whitespace around a top-level scalar, reading a scalar text to its end"},
	{Name: "chunked-decoding", Doc: "decodes the text 4096 bytes at a time with no carry-over, so a character cut by a chunk boundary is an error"},
}

// broken is what a broken mode does differently.
type broken struct {
	writer      mutant.Writer
	duplicates  bool                // accept duplicate keys, last wins
	maxDepth    int                 // reject nesting deeper than this (arrays and objects)
	compact     bool                // only remove whitespace
	relaxed     bool                // read text that is not JSON as relaxed parsers do
	complete    bool                // finish truncated text
	minify      bool                // remove whitespace outside strings first
	fix         func([]byte) []byte // rewrite text that is not JSON, as a forgiving reader reads it
	firstValue  bool                // read the first value, ignore what follows
	replaceUTF8 bool                // decode bytes that are not UTF-8 to U+FFFD
	detect      bool                // decode UTF-16 and UTF-32 that start with a byte order mark
	plainObject bool                // the pitfalls of members kept in a plain JavaScript object
	pairs       bool                // combine a high surrogate escape with any \u escape after it
	nanNull     bool                // read NaN and Infinity, write null
	scalarWS    bool                // reject whitespace around a top-level scalar
	chunked     bool                // decode 4096 bytes at a time with no carry-over

	// Choices RFC 8785 and I-JSON permit, for the tests that check that an
	// implementation making them conforms (no mode makes them).
	rejectBig     bool // reject numbers of magnitude 2^53 or more
	rejectNonchar bool // reject noncharacters
	skipBOM       bool // read past a leading byte order mark
}

// brokenModes maps each of modes to its behaviour.
var brokenModes = &lazy.Value[map[string]broken]{New: func() map[string]broken {
	return map[string]broken{
		"codepoint-order":       {writer: mutant.Writer{Keys: mutant.CodePoint}},
		"unsorted":              {writer: mutant.Writer{Keys: mutant.Unsorted}},
		"shallow-sort":          {writer: mutant.Writer{Keys: mutant.Shallow}},
		"go-float":              {writer: mutant.Writer{Numbers: mutant.GoFloat}},
		"no-exponent":           {writer: mutant.Writer{Numbers: mutant.Plain}},
		"lexeme-numbers":        {writer: mutant.Writer{Numbers: mutant.Lexeme}},
		"html-escape":           {writer: mutant.Writer{Strings: mutant.HTML}},
		"ascii-only":            {writer: mutant.Writer{Strings: mutant.ASCII}},
		"uppercase-hex":         {writer: mutant.Writer{Strings: mutant.UpperHex}},
		"long-escapes":          {writer: mutant.Writer{Strings: mutant.Long}},
		"escape-slash":          {writer: mutant.Writer{Strings: mutant.Slash}},
		"accept-duplicates":     {duplicates: true},
		"escape-surrogates":     {writer: mutant.Writer{Surrogates: mutant.Escape}},
		"overflow-null":         {writer: mutant.Writer{OverflowNull: true}},
		"depth-32":              {maxDepth: 32},
		"compact-only":          {compact: true},
		"relaxed-grammar":       {relaxed: true},
		"complete-truncated":    {complete: true},
		"minify-first":          {minify: true},
		"first-value-only":      {firstValue: true},
		"first-letter-literals": {fix: firstLetterLiterals},
		"parsefloat-numbers":    {fix: parseFloatNumbers},
		"holes-as-null":         {fix: holesAsNull},
		"any-closer":            {fix: anyCloser},
		"parseint-escapes":      {fix: parseIntEscapes},
		"replace-invalid-utf8":  {replaceUTF8: true},
		"detect-encoding":       {detect: true},
		"plain-object-keys":     {plainObject: true},
		"unchecked-pairs":       {pairs: true},
		"nan-as-null":           {nanNull: true},
		"scalar-whitespace":     {scalarWS: true},
		"chunked-decoding":      {chunked: true},
	}
}}

func (m *broken) canonicalize(text []byte) ([]byte, error) {
	if m.chunked {
		if err := decodeChunks(text); err != nil {
			return nil, err
		}
	}
	if m.scalarWS {
		if err := scalarWhitespace(text); err != nil {
			return nil, err
		}
	}
	if m.detect {
		text = detectEncoding(text)
	}
	if m.replaceUTF8 {
		text = []byte(strings.ToValidUTF8(string(text), "\uFFFD"))
	}
	if m.skipBOM {
		text = bytes.TrimPrefix(text, []byte("\uFEFF"))
	}
	if m.minify {
		text = minifyFirst(text)
	}
	if m.pairs {
		text = uncheckedPairs(text)
	}
	if m.nanNull {
		text = nanAsNull(text)
	}
	if m.relaxed || m.complete || m.firstValue || m.fix != nil {
		// A forgiving reader reads valid JSON as it is; it differs only
		// on text that is not JSON.
		if _, err := canon.Parse(text, canon.ReadOptions{Duplicates: canon.LastWins}); notJSON(err) {
			var fixed []byte
			switch {
			case m.relaxed:
				fixed, err = relaxJSON(text)
			case m.complete:
				fixed, err = completeTruncated(text)
			case m.firstValue:
				fixed, err = firstValue(text)
			default:
				fixed, err = m.fix(text), nil
			}
			if err == nil {
				text = fixed
			}
		}
	}
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
	if m.rejectBig || m.rejectNonchar {
		if big, nonchar := scan(v); m.rejectBig && big || m.rejectNonchar && nonchar {
			return nil, fmt.Errorf("%w: a number of magnitude 2^53 or more, or a noncharacter", canon.ErrNumberRange)
		}
	}
	if m.plainObject {
		if v, err = plainObjectKeys(v); err != nil {
			return nil, err
		}
	}
	return m.writer.Append(nil, v)
}
