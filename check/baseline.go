package check

import (
	"bufio"
	"bytes"
	"fmt"
	"strings"
)

// A baseline is what an implementation's own repository says about its
// failures: the checks it is known to fail, which must fail (one that passes
// makes the baseline stale), and the checks known to be flaky, which may
// fail. Every other failure is unexpected. A failed should check is a
// warning, not a failure: it is unexpected, and written to a baseline, only
// under --strict (see Blocks).

// The values of Result.Known.
const (
	KnownFailing = "failing"
	KnownFlaky   = "flaky"
)

// BaselineEntry is one pattern of a baseline file and where it was written.
type BaselineEntry struct {
	Pattern Pattern
	Where   string // "FILE:LINE"
}

// The most patterns a baseline file may hold: MaxEntries in all, of which
// MaxWildcardEntries with a wildcard. An ID is looked up, but each pattern
// with a wildcard is matched against every check; a baseline written by
// --write-known-failing holds IDs only.
const (
	MaxEntries         = 1 << 20
	MaxWildcardEntries = 10000
)

// ParseBaseline reads a baseline file: one check-ID pattern per line;
// blank lines and text after # are ignored. A pattern selects whole IDs
// (Pattern.MatchWhole): "jcs/keys" is that check alone, "jcs/keys/**" its
// subtree.
func ParseBaseline(name string, data []byte) ([]BaselineEntry, error) {
	var out []BaselineEntry
	wild := 0
	data = bytes.TrimPrefix(data, []byte("\ufeff")) // a byte order mark an editor added
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line, _, _ := strings.Cut(sc.Text(), "#")
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		p, err := ParsePattern(line)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, n, err)
		}
		if len(out) == MaxEntries {
			return nil, fmt.Errorf("%s:%d: more than %d patterns", name, n, MaxEntries)
		}
		if !p.literal() {
			if wild++; wild > MaxWildcardEntries {
				return nil, fmt.Errorf("%s:%d: more than %d patterns with wildcards; list the IDs themselves", name, n, MaxWildcardEntries)
			}
		}
		out = append(out, BaselineEntry{Pattern: p, Where: fmt.Sprintf("%s:%d", name, n)})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return out, nil
}

// UnmatchedEntries returns the entries that select none of checks: a
// baseline naming checks that do not exist is out of date.
func UnmatchedEntries(entries []BaselineEntry, checks []Check) []BaselineEntry {
	x := indexEntries(entries)
	matched := make([]bool, len(entries))
	for i := range checks {
		x.selecting(checks[i].ID, func(j int) { matched[j] = true })
	}
	var out []BaselineEntry
	for j, e := range entries {
		if !matched[j] {
			out = append(out, e)
		}
	}
	return out
}

// ApplyBaseline marks each result a flaky or failing entry selects (Known;
// a check listed as both is flaky, which may pass) and returns the stale
// failing entries: those that select some results of the run, none of which
// failed (a failed should check failed: a warning keeps its entry). A
// passing check selected only by stale entries is Stale.
func ApplyBaseline(run *Execution, failing, flaky []BaselineEntry) (stale []BaselineEntry) {
	fx, gx := indexEntries(flaky), indexEntries(failing)
	for i, r := range run.All() {
		isFlaky := false
		fx.selecting(r.ID, func(int) { isFlaky = true })
		if isFlaky {
			r.Known = KnownFlaky
			run.Set(i, r)
		}
	}
	selects, anyFailed := make([]bool, len(failing)), make([]bool, len(failing))
	for _, r := range run.All() {
		if r.Known != KnownFlaky {
			gx.selecting(r.ID, func(j int) { selects[j], anyFailed[j] = true, anyFailed[j] || r.Failed() })
		}
	}
	staleEntry := make([]bool, len(failing))
	for j, e := range failing {
		if selects[j] && !anyFailed[j] {
			staleEntry[j] = true
			stale = append(stale, e)
		}
	}
	for i, r := range run.All() {
		if r.Known == KnownFlaky {
			continue
		}
		onlyStale, listed := true, false
		gx.selecting(r.ID, func(j int) { listed, onlyStale = true, onlyStale && staleEntry[j] })
		if listed {
			r.Known = KnownFailing
			r.Stale = r.Status == Pass && onlyStale
			run.Set(i, r)
		}
	}
	return stale
}

// entryIndex finds the entries of a baseline that select an ID: those
// without a wildcard by their text, the others (at most
// MaxWildcardEntries from a file) one by one.
type entryIndex struct {
	entries []BaselineEntry
	byID    map[string][]int
	wild    []int
}

func indexEntries(entries []BaselineEntry) entryIndex {
	x := entryIndex{entries: entries, byID: make(map[string][]int)}
	for j, e := range entries {
		if e.Pattern.literal() {
			x.byID[e.Pattern.text] = append(x.byID[e.Pattern.text], j)
		} else {
			x.wild = append(x.wild, j)
		}
	}
	return x
}

// selecting calls f with the index of each entry that selects id.
func (x entryIndex) selecting(id string, f func(j int)) {
	for _, j := range x.byID[id] {
		f(j)
	}
	if len(x.wild) == 0 {
		return
	}
	segs := strings.Split(id, "/")
	for _, j := range x.wild {
		if matchSegs(x.entries[j].Pattern.segs, segs, true) {
			f(j)
		}
	}
}

// Failed reports whether a result is a fail or an error, whatever its level.
// A listed check that Failed keeps its baseline entry from going stale.
func (r Result) Failed() bool { return r.Status == Fail || r.Status == Error }

// Blocks reports whether a result is a failure that blocks conformance: an
// error at any level, a failed must or may check, and under strict a failed
// should check. A failed should check that does not block is a warning.
// (A not-checked result, which strict also makes block, is not a failure
// and is not reported here.)
func (r Result) Blocks(strict bool) bool {
	switch r.Status {
	case Error:
		return true
	case Fail:
		return strict || r.Level != Should
	}
	return false
}

// Unexpected reports whether a result blocks a run that has a baseline: a
// failure or error not listed, or a listed failure that passed. A failed
// should check is a warning, not an unexpected failure (UnexpectedUnder
// with strict counts it).
func (r Result) Unexpected() bool { return r.UnexpectedUnder(false) }

// UnexpectedUnder is Unexpected for a run made with or without --strict:
// under strict an unlisted failed should check is unexpected too.
func (r Result) UnexpectedUnder(strict bool) bool {
	if r.Stale {
		return true
	}
	return r.Blocks(strict) && r.Known == ""
}

// FailingBaseline is a baseline file listing every check of run that failed
// or ended in error (flaky ones apart, and failed should checks, which are
// warnings), for an implementation to commit as its known failures. It is
// FailingBaselineUnder without strict.
func FailingBaseline(run *Execution, header string) []byte {
	return FailingBaselineUnder(run, header, false)
}

// FailingBaselineUnder is FailingBaseline for a run made with or without
// --strict: under strict it lists the failed should checks too, since they
// block that run.
func FailingBaselineUnder(run *Execution, header string, strict bool) []byte {
	var b bytes.Buffer
	for _, l := range strings.Split(strings.TrimRight(header, "\n"), "\n") {
		fmt.Fprintf(&b, "# %s\n", l)
	}
	for _, r := range run.All() {
		if r.Blocks(strict) && r.Known != KnownFlaky {
			fmt.Fprintln(&b, r.ID)
		}
	}
	return b.Bytes()
}
