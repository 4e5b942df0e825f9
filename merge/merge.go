// Package merge joins the reports of one suite run in parts (the shards of
// `referee run --shard I/N`) into one report, and referee-matrix/1
// documents likewise. It refuses what was not one run of one suite against
// one implementation with one --run/--skip selection, and a check reported
// twice; a missing shard, a selected check in no part, or a part that did
// not finish makes the merged report incomplete. Baselines are applied to
// the merged run.
package merge

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/refereehq/referee/adapter"
	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/internal/regularfile"
	"github.com/refereehq/referee/matrix"
	"github.com/refereehq/referee/report"
	"github.com/refereehq/referee/run"
)

// Options say how to merge and how to judge the merged report.
type Options struct {
	// KnownFailing and KnownFlaky are baseline files (check.ParseBaseline),
	// applied to the merged run as `referee run` applies them to a whole one.
	KnownFailing, KnownFlaky string
	// Suite, if set, returns the IDs of the suite's checks in the suite's
	// order, or nil when it cannot load that suite (another corpus digest).
	// The merged checks then follow the suite's order, and baseline patterns
	// must select some check of the suite. Without it, the merged checks are
	// sorted by ID, and baseline patterns must select a merged check.
	Suite func(report.Suite) []string
	// MaxFileSize bounds each file Files reads (regularfile.Limit).
	MaxFileSize int64
}

// Input is one document to merge, and the name errors call it by (its file).
type Input struct {
	Name string
	Data []byte
}

// Result is what a merge makes: one report, or one matrix.
type Result struct {
	Report    *report.Report   // when the inputs were reports
	Execution *check.Execution // the verdicts Report was judged from
	Matrix    *matrix.Document // when the inputs were matrices
	// Notes say what the user should know: why the merge is incomplete,
	// what it dropped.
	Notes []string
}

// ExitCode is the merged verdict under the exit-code contract
// (report.ExitCode; matrix.Matrix.ExitCode for a matrix).
func (r *Result) ExitCode() int {
	if r.Matrix != nil {
		return r.Matrix.ExitCode()
	}
	return r.Report.ExitCode()
}

// Files reads the documents at paths (regular files, at most
// o.MaxFileSize bytes each) and merges them. Its errors are usage errors
// (check.UsageError) naming the files.
func Files(paths []string, o Options) (*Result, error) {
	inputs := make([]Input, 0, len(paths))
	for _, p := range paths {
		data, err := regularfile.ReadFile(p, o.MaxFileSize)
		if err != nil {
			return nil, check.Usagef("merge: %v", err)
		}
		inputs = append(inputs, Input{Name: p, Data: data})
	}
	return Merge(inputs, o)
}

// Merge merges inputs: all referee-report/2 reports, or all
// referee-matrix/1 matrices. Its errors are usage errors (check.UsageError)
// naming the inputs.
func Merge(inputs []Input, o Options) (*Result, error) {
	if len(inputs) == 0 {
		return nil, check.Usagef("merge: no report to merge")
	}
	var reports []part
	var matrices []matrixPart
	for _, in := range inputs {
		format, err := report.FormatOf(in.Data)
		if err != nil {
			return nil, check.Usagef("merge: %s: %v", in.Name, err)
		}
		switch format {
		case matrix.Format:
			m, err := matrix.ReadDocument(in.Data)
			if err != nil {
				return nil, check.Usagef("merge: %s: %v", in.Name, err)
			}
			matrices = append(matrices, matrixPart{name: in.Name, m: m})
		default:
			r, err := report.Read(in.Data)
			if err != nil {
				return nil, check.Usagef("merge: %s: %v", in.Name, err)
			}
			reports = append(reports, part{name: in.Name, r: r})
		}
	}
	if len(reports) > 0 && len(matrices) > 0 {
		return nil, check.Usagef("merge: %s is a %s report and %s a %s document: merge reports with reports, matrices with matrices",
			reports[0].name, report.Format, matrices[0].name, matrix.Format)
	}
	if len(matrices) > 0 {
		return mergeMatrices(matrices, o)
	}
	rep, r, notes, err := mergeReports(reports, o, true)
	if err != nil {
		return nil, err
	}
	return &Result{Report: rep, Execution: r, Notes: notes}, nil
}

// part is one report to merge and its name.
type part struct {
	name string
	r    *report.Report
}

// mergeReports merges the reports of one run; withBaseline applies o's
// baselines.
func mergeReports(parts []part, o Options, withBaseline bool) (*report.Report, *check.Execution, []string, error) {
	first := parts[0]
	for _, p := range parts[1:] {
		if err := agree(first, p); err != nil {
			return nil, nil, nil, err
		}
	}
	var notes []string
	complete := true
	// Every check once; in a sharded part, only its shard's checks.
	where := map[string]string{}
	shards := map[int]string{}
	for _, p := range parts {
		if sh := p.r.Shard; sh != nil {
			if other, ok := shards[sh.Index]; ok {
				return nil, nil, nil, check.Usagef("merge: %s and %s are both shard %d/%d", other, p.name, sh.Index, sh.Count)
			}
			shards[sh.Index] = p.name
		}
		for _, c := range p.r.Checks {
			if other, ok := where[c.ID]; ok {
				return nil, nil, nil, check.Usagef("merge: check %q is in both %s and %s", c.ID, other, p.name)
			}
			where[c.ID] = p.name
			if sh := p.r.Shard; sh != nil {
				if s := run.ShardOf(c.ID, sh.Count); s != sh.Index {
					return nil, nil, nil, check.Usagef("merge: %s is shard %d/%d, but its check %q belongs to shard %d/%d", p.name, sh.Index, sh.Count, c.ID, s, sh.Count)
				}
			}
		}
		if !p.r.Complete {
			complete = false
			notes = append(notes, fmt.Sprintf("%s did not finish (its report is incomplete), so neither does the merge", p.name))
		}
	}
	shardMissing := false
	if sh := first.r.Shard; sh != nil {
		var missing []string
		for i := 1; i <= sh.Count; i++ {
			if _, ok := shards[i]; !ok {
				missing = append(missing, fmt.Sprintf("%d/%d", i, sh.Count))
			}
		}
		if len(missing) > 0 {
			complete, shardMissing = false, true
			notes = append(notes, fmt.Sprintf("no report of shard %s: the merge is incomplete", strings.Join(missing, ", ")))
		}
	}

	merged := &check.Execution{Complete: complete}
	var end time.Time
	for i, p := range parts {
		started, _ := time.Parse(time.RFC3339, p.r.Started) // report.Read checked it
		if i == 0 || started.Before(merged.Started) {
			merged.Started = started
		}
		if e := started.Add(time.Duration(p.r.DurationMS) * time.Millisecond); e.After(end) {
			end = e
		}
		merged.Restarts += p.r.Restarts
		merged.CleanRestarts += p.r.CleanRestarts
		for _, c := range p.r.Checks {
			merged.Results = append(merged.Results, result(c))
		}
	}
	merged.Duration = end.Sub(merged.Started)
	var suiteIDs []string
	if o.Suite != nil {
		suiteIDs = o.Suite(first.r.Suite)
	}
	var pos map[string]int // each of the suite's checks, to its place in it
	if suiteIDs != nil {
		pos = make(map[string]int, len(suiteIDs))
		for i, id := range suiteIDs {
			pos[id] = i
		}
		// The suite of that very corpus is known: a check it does not have
		// was made up or edited in.
		for _, r := range merged.Results {
			if _, ok := pos[r.ID]; !ok {
				return nil, nil, nil, check.Usagef("merge: %s holds check %q, which suite %s has not (corpus %s)", where[r.ID], r.ID, first.r.Suite.Name, first.r.Suite.CorpusDigest)
			}
		}
	}
	// Every check the parts' selection selects must be in some part.
	missing, note, err := missingChecks(first, suiteIDs, where)
	if err != nil {
		return nil, nil, nil, err
	}
	if note != "" && !(shardMissing && missing > 0) { // a missing shard's note says it already
		notes = append(notes, note)
	}
	if missing > 0 {
		complete = false
	}
	if sel := first.r.Selection; sel != nil && sel.Checks < sel.SuiteChecks && !shardMissing && missing == 0 {
		notes = append(notes, fmt.Sprintf("the reports ran a selection of the suite, %s: the merged verdict is the selection's, not the whole suite's", sel))
	}
	merged.Complete = complete
	order(merged.Results, pos)

	tool, suite, impl, strict := first.r.Tool, first.r.Suite, identity(parts), first.r.Strict
	sel := first.r.Selection // every part's (agree)
	// The rerun command, when every part names the same one (a shard's
	// does not name its shard).
	rerun := first.r.Rerun
	for _, p := range parts {
		if !slices.Equal(p.r.Rerun, rerun) {
			rerun = nil
		}
	}
	if !withBaseline || (o.KnownFailing == "" && o.KnownFlaky == "") {
		if withBaseline && slices.ContainsFunc(parts, func(p part) bool { return p.r.Baseline != nil }) {
			notes = append(notes, "the parts were judged against a baseline; the merge is not: give it --known-failing or --known-flaky to judge the merged report")
		}
		rep := report.New(tool, suite, impl, merged, strict)
		rep.Selection, rep.Rerun = sel, rerun
		rep.Describe(aboutOf(parts))
		return rep, merged, notes, nil
	}
	known, of := suiteIDs, "the suite "+suite.Name
	if known == nil {
		of = "the merged reports"
		for _, r := range merged.Results {
			known = append(known, r.ID)
		}
	}
	failing, err := readBaseline(o.KnownFailing, known, of, o.MaxFileSize)
	if err != nil {
		return nil, nil, nil, err
	}
	flaky, err := readBaseline(o.KnownFlaky, known, of, o.MaxFileSize)
	if err != nil {
		return nil, nil, nil, err
	}
	stale := check.ApplyBaseline(merged, failing, flaky)
	rep := report.WithBaseline(tool, suite, impl, merged, strict, stale)
	rep.Selection, rep.Rerun = sel, rerun
	rep.Describe(aboutOf(parts))
	return rep, merged, notes, nil
}

// aboutOf gives the merged report's checks the docs and clauses their
// parts wrote (each check is in one part).
func aboutOf(parts []part) report.About {
	type about struct{ doc, clause string }
	byID := map[string]about{}
	for _, p := range parts {
		for _, c := range p.r.Checks {
			if c.Doc != "" || c.Clause != "" {
				byID[c.ID] = about{c.Doc, c.Clause}
			}
		}
	}
	return func(id string) (string, string) { a := byID[id]; return a.doc, a.clause }
}

// missingChecks counts the checks the parts' selection selects (first's:
// every part's, agree made sure) that no part holds (where: the checks the
// parts hold), and says which. It compares against the suite when suiteIDs
// are known, the recorded selection applied to them (or the whole suite,
// for reports that record none); against the recorded selection's count
// otherwise. Reports that record no selection, of a suite referee cannot
// load, cannot be checked: the note says so. A recorded selection the
// suite contradicts is a usage error naming the report.
func missingChecks(first part, suiteIDs []string, where map[string]string) (missing int, note string, err error) {
	sel := first.r.Selection
	switch {
	case suiteIDs != nil:
		selected := suiteIDs
		if sel != nil {
			selects, err := check.Selector(sel.Select, sel.Skip)
			if err != nil {
				return 0, "", check.Usagef("merge: %s: selection: %v", first.name, err) // report.Read checked it
			}
			selected = slices.DeleteFunc(slices.Clone(suiteIDs), func(id string) bool { return !selects(id) })
			if len(selected) != sel.Checks || len(suiteIDs) != sel.SuiteChecks {
				return 0, "", check.Usagef("merge: %s records a selection of %d of %d checks, but in suite %s (corpus %s) its patterns select %d of %d",
					first.name, sel.Checks, sel.SuiteChecks, first.r.Suite.Name, first.r.Suite.CorpusDigest, len(selected), len(suiteIDs))
			}
		}
		var absent []string
		for _, id := range selected {
			if _, ok := where[id]; !ok {
				absent = append(absent, id)
			}
		}
		if len(absent) == 0 {
			return 0, "", nil
		}
		const shown = 3
		more := ""
		if len(absent) > shown {
			more = fmt.Sprintf(" and %d more", len(absent)-shown)
		}
		of := fmt.Sprintf("the suite's %d checks", len(selected))
		if sel != nil {
			of = fmt.Sprintf("the %d selected checks", len(selected))
		}
		return len(absent), fmt.Sprintf("%d of %s are in no report (%s%s): the merge is incomplete",
			len(absent), of, strings.Join(absent[:min(shown, len(absent))], ", "), more), nil
	case sel != nil:
		if len(where) > sel.Checks {
			return 0, "", check.Usagef("merge: the reports hold %d checks, but their selection (%s) selects %d", len(where), sel, sel.Checks)
		}
		if n := sel.Checks - len(where); n > 0 {
			return n, fmt.Sprintf("%d of the %d selected checks are in no report: the merge is incomplete", n, sel.Checks), nil
		}
		return 0, "", nil
	}
	return 0, fmt.Sprintf("the reports record no --run/--skip selection (an older referee wrote them) and referee cannot load suite %s with corpus %s: whether checks are missing cannot be told", first.r.Suite.Name, first.r.Suite.CorpusDigest), nil
}

// agree refuses two reports that are not parts of one run: another tool,
// suite, suite version, corpus, strictness or implementation, shards of
// another split, or another --run/--skip selection. What the reports say is quoted (%q): a report is untrusted
// text, and the error goes to a terminal.
func agree(a, b part) error {
	differ := func(what string, x, y any) error {
		return check.Usagef("merge: %s and %s differ in %s (%v and %v): they are not parts of one run", a.name, b.name, what, x, y)
	}
	ra, rb := a.r, b.r
	ia, ib := ra.Implementation, rb.Implementation
	switch {
	case ra.Format != rb.Format:
		return differ("report format", q(ra.Format), q(rb.Format))
	case ra.Tool != rb.Tool:
		return differ("tool", q(ra.Tool.Name+" "+ra.Tool.Version), q(rb.Tool.Name+" "+rb.Tool.Version))
	case ra.Suite.Name != rb.Suite.Name:
		return differ("suite", q(ra.Suite.Name), q(rb.Suite.Name))
	case ra.Suite.Version != rb.Suite.Version:
		return differ("suite version", q(ra.Suite.Version), q(rb.Suite.Version))
	case ra.Suite.CorpusDigest != rb.Suite.CorpusDigest:
		return differ("corpus digest", q(ra.Suite.CorpusDigest), q(rb.Suite.CorpusDigest))
	case ra.Strict != rb.Strict:
		return differ("--strict", ra.Strict, rb.Strict)
	case ia.Transport != ib.Transport || !slices.Equal(ia.Command, ib.Command) || ia.URL != ib.URL || ia.Mode != ib.Mode:
		return differ("implementation", q(reached(ia)), q(reached(ib)))
	case saidHello(ia) && saidHello(ib) && (ia.Name != ib.Name || ia.Version != ib.Version):
		return differ("implementation", q(ia.Name+" "+ia.Version), q(ib.Name+" "+ib.Version))
	case saidHello(ia) && saidHello(ib) && !slices.Equal(ia.Ops, ib.Ops):
		return differ("implementation ops", fmt.Sprintf("%q", ia.Ops), fmt.Sprintf("%q", ib.Ops))
	case (ra.Shard == nil) != (rb.Shard == nil):
		return differ("sharding", shardName(ra.Shard), shardName(rb.Shard))
	case ra.Shard != nil && ra.Shard.Count != rb.Shard.Count:
		return differ("shard count", shardName(ra.Shard), shardName(rb.Shard))
	case !ra.Selection.Equal(rb.Selection):
		return differ("selection (--run, --skip)", q(ra.Selection.String()), q(rb.Selection.String()))
	}
	return nil
}

func q(s string) string { return fmt.Sprintf("%q", s) }

func shardName(sh *report.Shard) string {
	if sh == nil {
		return "not sharded"
	}
	return fmt.Sprintf("shard %d/%d", sh.Index, sh.Count)
}

// reached says how referee reached an implementation.
func reached(im report.Implementation) string {
	switch im.Transport {
	case "stdio":
		return "stdio: " + strings.Join(im.Command, " ")
	case "http":
		return "http: " + im.URL
	}
	if im.Mode != "" {
		return im.Transport + ", mode " + im.Mode
	}
	return im.Transport
}

// saidHello reports whether the implementation answered hello: a part
// whose implementation never started has no name, version or ops, and
// differs from the others in nothing else.
func saidHello(im report.Implementation) bool {
	return im.Name != "" || im.Version != "" || len(im.Ops) > 0
}

// identity is the implementation of the merged report: as a part that
// said hello names it.
func identity(parts []part) report.Implementation {
	for _, p := range parts {
		if saidHello(p.r.Implementation) {
			return p.r.Implementation
		}
	}
	return parts[0].r.Implementation
}

// result rebuilds the verdict a report's check records.
func result(c report.Check) check.Result {
	r := check.Result{
		ID: c.ID, Status: check.Status(c.Status), Level: check.Level(c.Level), Outcome: c.Outcome, Reason: c.Reason,
		Duration: time.Duration(c.DurationMS*1000+0.5) * time.Microsecond,
	}
	if c.Expected != nil {
		r.Expected = *c.Expected
	}
	if c.Actual != nil {
		r.Actual = *c.Actual
	}
	if e := c.Evidence; e != nil {
		r.Evidence = check.Evidence{Diff: e.Diff, Notes: e.Notes, Stderr: e.Stderr, Repro: e.Repro}
		for _, x := range e.Exchanges {
			r.Evidence.Exchanges = append(r.Evidence.Exchanges, adapter.Exchange{Request: []byte(x.Request), Reply: []byte(x.Reply)})
		}
	}
	return r
}

// order sorts results by their place in the suite (pos), those it does not
// list last; by ID when pos is nil.
func order(results []check.Result, pos map[string]int) {
	rank := func(id string) int {
		if i, ok := pos[id]; ok {
			return i
		}
		return len(pos)
	}
	slices.SortStableFunc(results, func(a, b check.Result) int {
		if d := rank(a.ID) - rank(b.ID); d != 0 {
			return d
		}
		return strings.Compare(a.ID, b.ID)
	})
}

// readBaseline reads a baseline file; a pattern that selects none of ids
// (the checks of what of names) is a usage error naming its file and line.
func readBaseline(path string, ids []string, of string, limit int64) ([]check.BaselineEntry, error) {
	checks := make([]check.Check, len(ids))
	for i, id := range ids {
		checks[i] = check.Check{ID: id}
	}
	return run.ReadBaseline(path, limit, checks, of)
}
