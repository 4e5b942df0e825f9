package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/refereehq/referee/canon"
	"github.com/refereehq/referee/check"
)

// FormatOf returns the format member of a JSON document referee writes
// (a report's Format, a matrix's "referee-matrix/1"), to tell which it is
// before reading it.
func FormatOf(data []byte) (string, error) {
	var head struct {
		Format *string `json:"format"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return "", fmt.Errorf("not one JSON object: %w", err)
	}
	if head.Format == nil {
		return "", errors.New("no format member: not a referee report")
	}
	return *head.Format, nil
}

// Read decodes a referee-report/2 document, as WriteJSON writes it, and
// checks that it holds together: known members only, the format, each
// check's status and level, a known outcome on a passing may check only, a
// diff consistent with itself (check.Diff.Validate), IDs that appear once,
// counts that tally the checks, and a verdict (conformant) that follows
// from them. A report is
// untrusted input: Read never trusts what it can recompute.
func Read(data []byte) (*Report, error) {
	// A member twice would be read as its last value by encoding/json,
	// which WriteJSON never writes ("complete": false, "complete": true).
	if _, err := canon.Parse(data, canon.ReadOptions{}); err != nil {
		return nil, fmt.Errorf("not one JSON object: %w", err)
	}
	// Unmarshal refuses anything but one JSON value, trailing data too.
	switch format, err := FormatOf(data); {
	case err != nil:
		return nil, err
	case format != Format:
		return nil, fmt.Errorf("format %q: want %q", format, Format)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var r Report
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("%s: %w", Format, err)
	}
	if err := r.validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", Format, err)
	}
	return &r, nil
}

// validate checks what Read promises.
func (r *Report) validate() error {
	if r.Suite.Name == "" {
		return errors.New("suite: no name")
	}
	if _, err := time.Parse(time.RFC3339, r.Started); err != nil {
		return fmt.Errorf("started %q: want an RFC 3339 time", r.Started)
	}
	if r.DurationMS < 0 || r.Restarts < 0 || r.CleanRestarts < 0 {
		return errors.New("a negative duration or restart count")
	}
	if sh := r.Shard; sh != nil && (sh.Count < 1 || sh.Index < 1 || sh.Index > sh.Count) {
		return fmt.Errorf("shard %d/%d: want 1 ≤ index ≤ count", sh.Index, sh.Count)
	}
	if rr := r.Rerun; rr != nil && (len(rr) < 3 || rr[0] != "referee" || rr[1] != "run" || rr[2] != r.Suite.Name) {
		return fmt.Errorf("rerun %q: want it to begin referee run %s", rr, r.Suite.Name)
	}
	if r.Checks == nil || (len(r.Checks) == 0 && r.Shard == nil) {
		return errors.New("no checks (only a shard may hold none)")
	}
	var selects func(id string) bool
	if sel := r.Selection; sel != nil {
		var err error
		if selects, err = sel.validate(len(r.Checks), r.Shard != nil); err != nil {
			return err
		}
	}
	seen := make(map[string]bool, len(r.Checks))
	run := &check.Execution{Complete: r.Complete, Results: make([]check.Result, len(r.Checks))}
	for i, c := range r.Checks {
		if c.ID == "" {
			return fmt.Errorf("check %d: no id", i)
		}
		if seen[c.ID] {
			return fmt.Errorf("check %q appears twice", c.ID)
		}
		seen[c.ID] = true
		if selects != nil && !selects(c.ID) {
			return fmt.Errorf("check %q: the selection (%s) does not select it", c.ID, r.Selection)
		}
		switch check.Status(c.Status) {
		case check.Pass, check.Fail, check.NotChecked, check.Error:
		default:
			return fmt.Errorf("check %q: status %q: want pass, fail, not-checked or error", c.ID, c.Status)
		}
		if _, err := check.ParseLevel(c.Level); err != nil {
			return fmt.Errorf("check %q: %w", c.ID, err)
		}
		if c.Known != "" && c.Known != check.KnownFailing && c.Known != check.KnownFlaky {
			return fmt.Errorf("check %q: known %q: want failing or flaky", c.ID, c.Known)
		}
		if c.DurationMS < 0 {
			return fmt.Errorf("check %q: a negative duration", c.ID)
		}
		if c.Outcome != "" {
			if !slices.Contains(check.Outcomes, c.Outcome) {
				return fmt.Errorf("check %q: outcome %q: want one of %s", c.ID, c.Outcome, strings.Join(check.Outcomes, ", "))
			}
			if c.Status != string(check.Pass) || c.Level != string(check.May) {
				return fmt.Errorf("check %q: an outcome on a %s %s check: only a passing may check records one", c.ID, c.Level, c.Status)
			}
		}
		if e := c.Evidence; e != nil && e.Diff != nil {
			if err := e.Diff.Validate(); err != nil {
				return fmt.Errorf("check %q: %w", c.ID, err)
			}
		}
		run.Results[i] = check.Result{ID: c.ID, Status: check.Status(c.Status), Level: check.Level(c.Level)}
	}
	if got := run.Counts(); got != r.Counts {
		return fmt.Errorf("counts %+v, but the checks tally %+v", r.Counts, got)
	}
	if want := conformant(r.Complete, r.Strict, r.Counts); r.Conformant != want {
		return fmt.Errorf("conformant is %v, but the checks and counts make it %v", r.Conformant, want)
	}
	return nil
}

// validate checks a recorded selection against itself and the report's n
// checks (all of them in a whole run's report, some in a shard's), and
// returns the test its patterns make of an ID.
func (s *Selection) validate(n int, shard bool) (func(id string) bool, error) {
	if s.Select == nil || s.Skip == nil {
		return nil, errors.New("selection: want run and skip, each a list of patterns")
	}
	selects, err := check.Selector(s.Select, s.Skip)
	if err != nil {
		return nil, fmt.Errorf("selection: %w", err)
	}
	switch {
	case s.Checks < 1 || s.Checks > s.SuiteChecks:
		return nil, fmt.Errorf("selection: %d of %d checks: want 1 ≤ checks ≤ suite_checks", s.Checks, s.SuiteChecks)
	case len(s.Select) == 0 && len(s.Skip) == 0 && s.Checks != s.SuiteChecks:
		return nil, fmt.Errorf("selection: no pattern, yet %d of %d checks", s.Checks, s.SuiteChecks)
	case !shard && n != s.Checks:
		return nil, fmt.Errorf("selection: %d checks selected, but the report holds %d", s.Checks, n)
	case shard && n > s.Checks:
		return nil, fmt.Errorf("selection: %d checks selected, but the shard holds %d", s.Checks, n)
	}
	return selects, nil
}

// conformant is the verdict New gives: a complete run with no failure, no
// error and a judged check; under strict, no warning and no not-checked
// either.
func conformant(complete, strict bool, n check.Counts) bool {
	return complete && n.Fail == 0 && n.Error == 0 && judged(n) && !(strict && (n.NotChecked > 0 || n.Warn > 0))
}

// judged reports whether a check reached a verdict on the implementation:
// one passed, or one failed at should level (a warning, a checked outcome
// all the same). A run of not-checked checks only judged nothing.
func judged(n check.Counts) bool { return n.Pass > 0 || n.Warn > 0 }
