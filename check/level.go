package check

import "fmt"

// Level is how strongly the protocol demands what a check tests.
type Level string

// The three requirement levels (RFC 2119 words).
const (
	// Must: a failure blocks conformance.
	Must Level = "must"
	// Should: a failure is a warning, counted apart; it blocks only under --strict.
	Should Level = "should"
	// May: the behaviour is implementation-defined and several outcomes
	// conform (a correct output, or a rejection); the outcome chosen is
	// recorded, and any other outcome fails.
	May Level = "may"
)

// Levels lists the levels, strongest first.
var Levels = []Level{Must, Should, May}

// LevelOf returns c's level; a check that states none is a must.
func (c *Check) LevelOf() Level {
	if c.Level == "" {
		return Must
	}
	return c.Level
}

// ParseLevel reads a level's name.
func ParseLevel(s string) (Level, error) {
	for _, l := range Levels {
		if string(l) == s {
			return l, nil
		}
	}
	return "", fmt.Errorf("level %q: want must, should or may", s)
}

// Chose returns the passing outcome of a may check whose implementation
// chose one of the conforming outcomes, named by choice ("rejected",
// "output").
func Chose(choice string) Outcome { return Outcome{Status: Pass, Choice: choice} }

// The outcomes a may check records when an implementation either produces
// the correct output or rejects the input.
const (
	ChoseOutput = "output"   // it produced the correct output
	ChoseReject = "rejected" // it rejected the input
)

// Outcomes are every outcome a may check records: ChoseOutput, ChoseReject,
// and the two a grant may take under the cdc suite's allow.tool_args rule
// ("omitted": dropped from the grant, "kept": granted as declared). A
// report recording any other is refused when read.
var Outcomes = []string{ChoseOutput, ChoseReject, "omitted", "kept"}
