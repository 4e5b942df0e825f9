// Package matrix runs one suite's selected checks against several
// implementations, each through the run pipeline with its own full
// report, and lays the verdicts side by side: a check × implementation
// matrix, and the checks on which the implementations disagree grouped by
// the pattern of their outcomes (one row per pattern, as JSONTestSuite's
// pruned view), as text or as one referee-matrix/1 document.
package matrix

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/report"
	"github.com/refereehq/referee/run"
)

// Format is the name and version of the JSON matrix document.
const Format = "referee-matrix/1"

// Options say how to run the matrix.
type Options struct {
	// RunOptions are the options of every implementation's run (selection,
	// baselines, strictness, checks in flight, timeout, tool).
	RunOptions run.Options
	// Parallel is how many implementations run at once; 0 runs them all at
	// once.
	Parallel int
	// Started and Finished, if set, are called as each implementation's
	// run starts and ends (from its own goroutine).
	Started  func(name string)
	Finished func(name string, r *run.Result)
}

// Entry is one implementation's part of a matrix.
type Entry struct {
	Name   string
	Report *report.Report
	// Result is the run, when this process made it; nil in a matrix laid
	// out from reports (FromReports).
	Result *run.Result
}

// Matrix is every implementation's run of the same checks.
type Matrix struct {
	Suite  string
	Impls  []Entry
	Checks []string   // the selected checks' IDs, in suite order
	Rows   [][]string // each check's outcomes, one per implementation (see Outcome)
	Groups []Group
}

// Group is a set of checks on which the implementations' outcomes follow
// one pattern: the implementations disagree, or all of them failed.
type Group struct {
	Outcomes []string // per implementation, in Matrix.Impls order (see Outcome)
	Checks   []string
	// Agree says every implementation had the same outcome: here, all of
	// them failed alike, and the corpus, the reference or the spec is the
	// suspect rather than any one of them.
	Agree bool
}

// Outcome names a check's verdict in a matrix cell and a group: pass (or
// pass:output, pass:rejected for a may check's chosen outcome), fail, warn
// (a failed should check), error, not-checked.
func Outcome(c report.Check) string {
	switch {
	case c.Status == string(check.Pass) && c.Outcome != "":
		return "pass:" + c.Outcome
	case c.Status == string(check.Fail) && c.Level == string(check.Should):
		return "warn"
	}
	return c.Status
}

// failing reports whether an outcome is a failure of some kind.
func failing(o string) bool { return o == "fail" || o == "warn" || o == "error" }

// Build prepares the suite for each implementation (any error is returned
// before anything starts, naming the implementation), runs them, at most
// o.Parallel at once, and lays out the matrix.
func Build(ctx context.Context, def *check.Definition, impls []Impl, o Options) (*Matrix, error) {
	if len(impls) == 0 {
		return nil, check.Usagef("matrix: no implementation")
	}
	if o.Parallel < 0 {
		return nil, check.Usagef("--parallel %d: want a positive number, or 0", o.Parallel)
	}
	plans := make([]*run.Plan, len(impls))
	seen := map[string]bool{}
	for i, im := range impls {
		if seen[im.Name] {
			return nil, check.Usagef("--impl: two implementations named %q", im.Name)
		}
		seen[im.Name] = true
		p, err := run.Prepare(def, im.Spec, o.RunOptions)
		if err != nil {
			return nil, fmt.Errorf("--impl %s: %w", im.Name, err)
		}
		plans[i] = p
	}
	parallel := o.Parallel
	if parallel == 0 {
		parallel = len(impls)
	}
	m := &Matrix{Suite: def.Name, Impls: make([]Entry, len(impls))}
	sem := make(chan struct{}, parallel)
	var wg sync.WaitGroup
	for i, p := range plans {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			if o.Started != nil {
				o.Started(impls[i].Name)
			}
			res := p.Execute(ctx)
			m.Impls[i] = Entry{Name: impls[i].Name, Report: res.Report, Result: res}
			if o.Finished != nil {
				o.Finished(impls[i].Name, res)
			}
		}()
	}
	wg.Wait()
	layout(m)
	return m, nil
}

// FromReports lays out the reports of several implementations run through
// one suite (a referee-matrix/1 document's, or merged shards') as a
// matrix: the checks in the order they first appear, their rows and their
// groups.
func FromReports(impls []report.NamedReport) *Matrix {
	m := &Matrix{}
	for _, im := range impls {
		m.Impls = append(m.Impls, Entry{Name: im.Name, Report: im.Report})
		if m.Suite == "" && im.Report != nil {
			m.Suite = im.Report.Suite.Name
		}
	}
	layout(m)
	return m
}

// layout fills in the checks, in the order they first appear in the
// reports, each check's row, and the groups.
func layout(m *Matrix) {
	seen := map[string]bool{}
	m.Checks = nil
	for _, e := range m.Impls {
		if e.Report == nil {
			continue
		}
		if m.Suite == "" {
			m.Suite = e.Report.Suite.Name
		}
		for _, c := range e.Report.Checks {
			if !seen[c.ID] {
				seen[c.ID] = true
				m.Checks = append(m.Checks, c.ID)
			}
		}
	}
	m.Rows = rows(m)
	m.Groups = groups(m)
}

// rows returns each check's outcomes, one per implementation ("not-run"
// where an implementation's report has no such check).
func rows(m *Matrix) [][]string {
	byID := make([]map[string]report.Check, len(m.Impls))
	for i, e := range m.Impls {
		byID[i] = map[string]report.Check{}
		if e.Report == nil {
			continue
		}
		for _, c := range e.Report.Checks {
			byID[i][c.ID] = c
		}
	}
	out := make([][]string, len(m.Checks))
	for k, id := range m.Checks {
		out[k] = make([]string, len(m.Impls))
		for i := range m.Impls {
			out[k][i] = "not-run"
			if c, ok := byID[i][id]; ok {
				out[k][i] = Outcome(c)
			}
		}
	}
	return out
}

// groups collects the checks whose outcomes differ between
// implementations, or all fail, by the pattern of their outcomes, in the
// order the patterns first appear.
func groups(m *Matrix) []Group {
	var out []Group
	index := map[string]int{}
	for k, id := range m.Checks {
		row := m.Rows[k]
		agree := true
		for _, o := range row[1:] {
			agree = agree && o == row[0]
		}
		if agree && !failing(row[0]) {
			continue
		}
		key := strings.Join(row, "\x00")
		g, ok := index[key]
		if !ok {
			g = len(out)
			index[key] = g
			out = append(out, Group{Outcomes: row, Agree: agree})
		}
		out[g].Checks = append(out[g].Checks, id)
	}
	return out
}

// ExitCode is the matrix's exit status: 3 when any implementation's run
// was incomplete, 1 when any is not conformant (its own exit status is
// not 0), else 0.
func (m *Matrix) ExitCode() int {
	code := report.ExitOK
	for _, e := range m.Impls {
		if e.Report == nil {
			return report.ExitIncomplete
		}
		switch c := e.Report.ExitCode(); {
		case c == report.ExitIncomplete:
			return report.ExitIncomplete
		case c != report.ExitOK:
			code = report.ExitFailed
		}
	}
	return code
}
