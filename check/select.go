package check

import (
	"fmt"
	"path"
	"strings"

	"github.com/refereehq/referee/internal/spell"
)

// Pattern selects check IDs by whole segments: each segment is a path.Match
// pattern ("*" is any one segment, "num*" a prefix), "**" is any number of
// segments, and a pattern that matches the first segments of an ID selects
// everything below them ("jcs/numbers" selects "jcs/numbers/1e21").
type Pattern struct {
	text string
	segs []string
}

// ParsePattern checks the syntax of one pattern.
func ParsePattern(s string) (Pattern, error) {
	if s == "" || strings.HasPrefix(s, "/") || strings.HasSuffix(s, "/") || strings.Contains(s, "//") {
		return Pattern{}, fmt.Errorf("pattern %q: segments must be non-empty and separated by single slashes", s)
	}
	segs := strings.Split(s, "/")
	for _, seg := range segs {
		if seg == "**" {
			continue
		}
		if _, err := path.Match(seg, ""); err != nil {
			return Pattern{}, fmt.Errorf("pattern %q: segment %q: %w", s, seg, err)
		}
	}
	return Pattern{text: s, segs: segs}, nil
}

func (p Pattern) String() string { return p.text }

// Match reports whether p selects id.
func (p Pattern) Match(id string) bool {
	return matchSegs(p.segs, strings.Split(id, "/"), false)
}

// MatchWhole reports whether p selects id as a whole: unlike Match, a
// pattern that names only the first segments of id does not select it
// ("jcs/keys" selects "jcs/keys" alone; "jcs/keys/**" the whole subtree).
func (p Pattern) MatchWhole(id string) bool {
	return matchSegs(p.segs, strings.Split(id, "/"), true)
}

// literal reports whether p has no wildcard or escape in any segment, so
// that MatchWhole selects the one ID equal to its text.
func (p Pattern) literal() bool { return !strings.ContainsAny(p.text, `*?[\`) }

// matchSegs matches pattern segments against id's segments: all of them
// when whole is set, else a leading run.
func matchSegs(pat, id []string, whole bool) bool {
	if len(pat) == 0 {
		return !whole || len(id) == 0 // else the pattern is a prefix of the ID
	}
	if pat[0] == "**" {
		for i := 0; i <= len(id); i++ {
			if matchSegs(pat[1:], id[i:], whole) {
				return true
			}
		}
		return false
	}
	if len(id) == 0 {
		return false
	}
	if ok, _ := path.Match(pat[0], id[0]); !ok {
		return false
	}
	return matchSegs(pat[1:], id[1:], whole)
}

// SelectError is a selection pattern that matches no check.
type SelectError struct {
	Flag    string // "--run" or "--skip"
	Pattern string
	Near    []string // the patterns nearest to it that would select checks
}

func (e *SelectError) Error() string {
	near := ""
	if len(e.Near) > 0 {
		near = " (did you mean " + strings.Join(e.Near, " or ") + "?)"
	}
	return fmt.Sprintf("%s %s matches no check%s (see `referee list SUITE` for the IDs)", e.Flag, e.Pattern, near)
}

// NearPatterns are the patterns nearest to pattern that select some of
// checks: a group's pattern for one that ends in /** (or /*), else an ID
// or a group.
func NearPatterns(checks []Check, pattern string) []string {
	groups := map[string]bool{}
	var candidates []string
	for _, c := range checks {
		for i := strings.IndexByte(c.ID, '/'); i >= 0; {
			g := c.ID[:i]
			if !groups[g] {
				groups[g] = true
				candidates = append(candidates, g)
			}
			next := strings.IndexByte(c.ID[i+1:], '/')
			if next < 0 {
				break
			}
			i += 1 + next
		}
	}
	for _, tail := range []string{"/**", "/*"} {
		if base, ok := strings.CutSuffix(pattern, tail); ok {
			near := spell.Suggest(base, candidates)
			for i := range near {
				near[i] += tail
			}
			return near
		}
	}
	for _, c := range checks {
		candidates = append(candidates, c.ID)
	}
	return spell.Suggest(pattern, candidates)
}

// Select keeps the checks that match any run pattern (all when run is empty)
// and no skip pattern. A pattern that matches no check at all is an error, so
// a typo cannot pass a CI job by selecting nothing. When every check is kept
// it returns checks itself (with no room to append into), not a copy.
func Select(checks []Check, run, skip []string) ([]Check, error) {
	runP, skipP, err := parseSelection(run, skip)
	if err != nil {
		return nil, err
	}
	for i, p := range runP {
		if !anyMatch(checks, p) {
			return nil, &SelectError{Flag: "--run", Pattern: run[i], Near: NearPatterns(checks, run[i])}
		}
	}
	for i, p := range skipP {
		if !anyMatch(checks, p) {
			return nil, &SelectError{Flag: "--skip", Pattern: skip[i], Near: NearPatterns(checks, skip[i])}
		}
	}
	keep := func(c *Check) bool { return (len(runP) == 0 || matchesAny(runP, c.ID)) && !matchesAny(skipP, c.ID) }
	// Every check kept (no pattern, or none that leaves one out): the
	// checks themselves, not a copy, which for a large corpus is as big.
	first := 0
	for first < len(checks) && keep(&checks[first]) {
		first++
	}
	if first == len(checks) && first > 0 {
		return checks[:first:first], nil
	}
	out := append([]Check(nil), checks[:first]...)
	for i := first; i < len(checks); i++ {
		if keep(&checks[i]) {
			out = append(out, checks[i])
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("the selection leaves no check to run")
	}
	return out, nil
}

// Selector returns what Select keeps of run and skip patterns, as a test
// of one ID: the IDs any run pattern matches (all when run is empty) and
// no skip pattern does. It checks the patterns' syntax, not that each
// matches some check.
func Selector(run, skip []string) (func(id string) bool, error) {
	runP, skipP, err := parseSelection(run, skip)
	if err != nil {
		return nil, err
	}
	return func(id string) bool { return (len(runP) == 0 || matchesAny(runP, id)) && !matchesAny(skipP, id) }, nil
}

// parseSelection parses a selection's run and skip patterns.
func parseSelection(run, skip []string) (runP, skipP []Pattern, err error) {
	if runP, err = parsePatterns(run); err != nil {
		return nil, nil, err
	}
	if skipP, err = parsePatterns(skip); err != nil {
		return nil, nil, err
	}
	return runP, skipP, nil
}

func parsePatterns(ss []string) ([]Pattern, error) {
	ps := make([]Pattern, 0, len(ss))
	for _, s := range ss {
		p, err := ParsePattern(s)
		if err != nil {
			return nil, err
		}
		ps = append(ps, p)
	}
	return ps, nil
}

func anyMatch(checks []Check, p Pattern) bool {
	for _, c := range checks {
		if p.Match(c.ID) {
			return true
		}
	}
	return false
}

func matchesAny(ps []Pattern, id string) bool {
	for _, p := range ps {
		if p.Match(id) {
			return true
		}
	}
	return false
}
