// Package ecmaregexp is an ECMA-262 regular expression engine for JSON
// Schema patterns: it compiles a pattern and reports whether it matches
// anywhere in a string, over code points, with a bound on the work a match
// may do.
//
// # The language
//
// A pattern is read as ECMA-262 (2024, §22.2) reads it, with these choices
// where the standard offers two readings:
//
//   - Matching is over code points, as with the u flag: "." and a class
//     match one code point, an astral character included, and a lone
//     surrogate (a string's 3-byte WTF-8 form, see canon.DecodeRune) is one
//     code point.
//   - The u flag's escapes mean what the u flag says: \u{1F600} is one code
//     point, \uD83D\uDE00 is the pair joined, \p{...} and \P{...} are
//     Unicode properties (General_Category values long and short, Script
//     values with Script= or sc=, the binary properties Go's unicode package
//     has, ASCII, Any and Assigned; and, as regexp2 accepted them, bare
//     Script names such as \p{Greek}).
//   - Everything else follows the grammar without the u flag, Annex B
//     included (what github.com/dlclark/regexp2's ECMAScript option, which
//     referee used before, emulated): an identity escape such as \- or \_,
//     a lone ] { or }, legacy octal escapes, \8, a class escape at the
//     start of a range ([\d-z] is \d, - and z), a quantified lookahead.
//     Two Annex B forms regexp2 refused stay refused, as the u flag (and so
//     Ajv) refuses them: a class escape at the end of a range ([a-\d]) and
//     \c with a digit in a class ([\c1]).
//   - Forms regexp2 read with a .NET meaning ECMA-262 does not give them are
//     errors rather than silently read another way: \a \e (BEL, ESC in
//     .NET), \A \Z \z \G outside a class, \p or \P without braces, \c not
//     followed by a letter (in a class: a letter or _), .NET class
//     subtraction [a-z-[aeiou]], and a numbered backreference to a group
//     .NET numbered differently (it numbers named groups after the others).
//     .NET forms ECMA-262 rejects are errors too: inline options (?i),
//     comments (?#...), atomic groups (?>...), conditionals, (?'name'...),
//     repeated group names, a quantified ^ $ \b \B or lookbehind.
//
// There are no flags: no i, m, s or y, as JSON Schema has none. Not
// supported, and refused as such: Script_Extensions (scx=), the binary
// properties Go's unicode package lacks (Alphabetic, Emoji, ID_Start...),
// and escapes in group names.
//
// # Where regexp2 read patterns otherwise
//
// Besides the forms above, the engine follows ECMA-262 where regexp2 did
// not (oracle_test.go's regexp2Difference and acceptDifferences, and the
// semantics table, hold a case of each): "." does not match U+2028 or
// U+2029; \b and \B look at ASCII word characters only; a repeated group's
// captures are cleared at each iteration ((?:(a)|b)+\1 matches "ab"); groups
// are numbered left to right, named or not; \u{41} is "A", not "u" 41
// times; a lone surrogate in a pattern is that code point, not U+FFFD; \p
// knows ECMA-262's long names (\p{Letter}, \p{digit}, \p{Script=Greek});
// any repetition count compiles. regexp2 also matched (a\1+?)\1 against
// "a", and panicked on some patterns with lazily repeated backreferences.
//
// # Limits
//
// Compile refuses a pattern longer than MaxPatternBytes or with groups
// nested deeper than MaxNesting. A match runs the pattern compiled to a
// small program, backtracking over an explicit stack: it does at most
// StepLimit steps (one step is one instruction run, or one code point taken
// by a repeated single-character atom or compared by a backreference) and
// holds at most MaxSavedStates choices and overwritten values; past either
// it gives up with an error wrapping ErrBudget. No goroutine or clock is
// involved.
package ecmaregexp

import (
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/refereehq/referee/canon"
)

const (
	// MaxPatternBytes is the longest pattern Compile accepts.
	MaxPatternBytes = 1 << 16
	// MaxNesting is how deep groups and lookarounds may nest.
	MaxNesting = 100
	// StepLimit is the most steps one match may take: about 0.1 s of work.
	// The cases of referee's CDC corpora and of the official JSON Schema
	// test suite take at most some 16,000
	// (TestLegitimateCasesStayFarBelowTheBudget holds them under 1%).
	StepLimit = 10_000_000
	// MaxSavedStates is the most choices and overwritten values one match
	// may hold at once, 16 bytes each (32 MiB): a repeated group saves three
	// or more per iteration, a repeated single character one in all.
	MaxSavedStates = 1 << 21
)

// ErrBudget is wrapped by the error of a match that gave up at StepLimit or
// MaxSavedStates, so that the verdict is unknown.
var ErrBudget = errors.New("match budget spent")

// Error is a pattern that does not compile: what is wrong and where.
type Error struct {
	Pattern string
	Offset  int // in code points from the pattern's start
	Msg     string
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s: %s at offset %d", quotePattern(e.Pattern), e.Msg, e.Offset)
}

// quotePattern writes pattern "p" for a message, its first 200 code
// points if it is longer.
func quotePattern(p string) string {
	if utf8.RuneCountInString(p) > 200 {
		return fmt.Sprintf("pattern %.200q...", p)
	}
	return fmt.Sprintf("pattern %q", p)
}

// Regexp is a compiled pattern. It is safe for concurrent use.
type Regexp struct {
	src      string
	prog     []inst
	regs     int  // registers the program's loops use
	groups   int  // capturing groups
	anchored bool // every match starts at the string's start
}

// Compile parses an ECMA-262 pattern; a pattern that does not compile gets
// an *Error.
func Compile(pattern string) (*Regexp, error) {
	root, groups, err := parse(pattern)
	if err != nil {
		return nil, err
	}
	prog, regs := program(root)
	return &Regexp{src: pattern, prog: prog, regs: regs, groups: groups, anchored: anchored(root)}, nil
}

// String returns the pattern's source text.
func (re *Regexp) String() string { return re.src }

// MatchString reports whether the pattern matches somewhere in s, a WTF-8
// string (a lone surrogate in its 3-byte form). Past the match budget it
// returns an error wrapping ErrBudget.
func (re *Regexp) MatchString(s string) (bool, error) {
	return re.MatchRunes(codePoints(s))
}

// codePoints decodes s, a WTF-8 string.
func codePoints(s string) []rune {
	runes := make([]rune, 0, len(s))
	for i := 0; i < len(s); {
		r, size := canon.DecodeRune(s[i:])
		runes = append(runes, r)
		i += size
	}
	return runes
}

// MatchRunes reports whether the pattern matches somewhere in the code
// points in. Past the match budget it returns an error wrapping ErrBudget.
func (re *Regexp) MatchRunes(in []rune) (bool, error) {
	ok, _, err := re.match(in, StepLimit)
	return ok, err
}
