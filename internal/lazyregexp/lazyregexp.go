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
	once sync.Once
	re   *regexp.Regexp
}

// New returns expr as a Regexp; it panics on first use if expr does not
// compile, as regexp.MustCompile would. A package-level New is laid out by
// the compiler as data: it runs no code at initialisation.
func New(expr string) *Regexp { return &Regexp{expr: expr} }

func (r *Regexp) compiled() *regexp.Regexp {
	r.once.Do(func() { r.re = regexp.MustCompile(r.expr) })
	return r.re
}

// MatchString reports whether s contains a match of the expression.
func (r *Regexp) MatchString(s string) bool { return r.compiled().MatchString(s) }

// FindStringSubmatch returns the leftmost match in s and its submatches, or nil.
func (r *Regexp) FindStringSubmatch(s string) []string { return r.compiled().FindStringSubmatch(s) }

// String returns the expression's source text.
func (r *Regexp) String() string { return r.expr }
