// Package lazyregexp holds regular expressions compiled on their first use,
// so that package initialisation does no work a command may not need.
package lazyregexp

import (
	"regexp"
	"sync"
)

// Regexp is a regular expression compiled the first time it is used.
type Regexp struct {
	expr string
	re   func() *regexp.Regexp
}

// New returns expr as a Regexp; it panics on first use if expr does not
// compile, as regexp.MustCompile would.
func New(expr string) *Regexp {
	return &Regexp{expr: expr, re: sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })}
}

// MatchString reports whether s contains a match of the expression.
func (r *Regexp) MatchString(s string) bool { return r.re().MatchString(s) }

// FindStringSubmatch returns the leftmost match in s and its submatches, or nil.
func (r *Regexp) FindStringSubmatch(s string) []string { return r.re().FindStringSubmatch(s) }

// String returns the expression's source text.
func (r *Regexp) String() string { return r.expr }
