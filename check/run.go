package check

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/refereehq/referee/adapter"
)

// Options tune Execute.
type Options struct {
	// Parallel is how many checks run at once; 0 means the concurrency the
	// adapter declared in its hello, which is also the most allowed.
	Parallel int
	// Repro, if set, returns a one-line command that repeats a check's exchanges.
	Repro func(id string, exchanges []adapter.Exchange) string
	// Progress, if set, is called after each check, in completion order.
	Progress func(done, total int, r Result)
	// Compact keeps the run's verdicts small, for a large corpus: a plain
	// pass is kept as its duration (its check gives its ID and level), not
	// as a Result. Results is then nil; Len, At and All read every result
	// of any run, and Expand fills Results. The report of a compact run
	// (report.New) is lean: it holds no copy of them either.
	Compact bool
	// MaxEvidence, if set, is the most of each value of a non-pass's
	// evidence kept (expected, actual, each request and reply line), as
	// clipEvidence cuts it: what a report needs, held for the whole run.
	// The fuzzer, which compares whole values, leaves it 0.
	MaxEvidence int
	// Keep, if set, is given each result (of the i-th check) before the
	// run keeps it, on the goroutine that ran the check, and may cut from
	// it what its caller does not need: the fuzzer takes a failure's key
	// and a digest of the answer, and keeps no answer whole.
	Keep func(i int, r *Result)
}

// Execution is the outcome of executing a suite's selected checks.
type Execution struct {
	Results  []Result // in check order
	Complete bool     // every selected check ran to a verdict
	Restarts int      // how many times the adapter was restarted after a fault
	// CleanRestarts is how many times an adapter that exited with status 0
	// between calls was restarted (charging no check, counting toward no limit).
	CleanRestarts int
	Started       time.Time
	Duration      time.Duration

	// A compact run's results (Options.Compact), in check order, and its
	// checks, whose IDs and levels its plain passes have.
	compact []verdict
	checks  []Check
}

// verdict is one result of a compact run: a plain pass (its check's ID and
// level, no baseline mark, no evidence; a may check's outcome one of the
// usual two) in a few words, any other result whole.
type verdict struct {
	duration time.Duration
	full     *Result // the result, unless it is a plain pass
	outcome  uint8   // an index in outcomes
}

// outcomes are the outcomes a compact run keeps in a verdict.
var outcomes = []string{"", ChoseOutput, ChoseReject}

// verdictOf keeps res, the result of c, as a compact run does.
func verdictOf(c *Check, res Result) verdict {
	if res.Status == Pass && res.ID == c.ID && res.Level == c.LevelOf() && res.Reason == "" && res.Expected == "" && res.Actual == "" &&
		res.Known == "" && !res.Stale && !res.notRun && res.Evidence.empty() {
		if o := slices.Index(outcomes, res.Outcome); o >= 0 {
			return verdict{duration: res.Duration, outcome: uint8(o)}
		}
	}
	return verdict{full: new(res)}
}

// Compact reports whether the run keeps its results compact
// (Options.Compact): Results is nil, and Len, At and All read them.
func (r *Execution) Compact() bool { return r.compact != nil }

// Len returns the number of results: one for each check the run was given.
func (r *Execution) Len() int {
	if r.compact != nil {
		return len(r.compact)
	}
	return len(r.Results)
}

// At returns the result of the run's i-th check.
func (r *Execution) At(i int) Result {
	if r.compact == nil {
		return r.Results[i]
	}
	v := &r.compact[i]
	if v.full != nil {
		return *v.full
	}
	c := &r.checks[i]
	return Result{ID: c.ID, Status: Pass, Level: c.LevelOf(), Outcome: outcomes[v.outcome], Duration: v.duration}
}

// All yields the run's results with their indexes, in check order.
func (r *Execution) All() iter.Seq2[int, Result] {
	return func(yield func(int, Result) bool) {
		for i := range r.Len() {
			if !yield(i, r.At(i)) {
				return
			}
		}
	}
}

// Set replaces the result of the run's i-th check.
func (r *Execution) Set(i int, res Result) {
	if r.compact == nil {
		r.Results[i] = res
		return
	}
	r.compact[i] = verdictOf(&r.checks[i], res)
}

// Expand fills Results with every result of a compact run, for code that
// reads Results; the run is then like any other. It does nothing to a run
// whose Results are filled.
func (r *Execution) Expand() {
	if r.compact == nil {
		return
	}
	results := make([]Result, len(r.compact))
	for i := range results {
		results[i] = r.At(i)
	}
	r.Results, r.compact, r.checks = results, nil, nil
}

// Counts tallies results by status; a failed should check is a warning,
// not a failure, so the five counts partition the results.
type Counts struct {
	Pass       int `json:"pass"`
	Fail       int `json:"fail"` // failed must and may checks
	Warn       int `json:"warn"` // failed should checks
	NotChecked int `json:"not_checked"`
	Error      int `json:"error"`
}

// Counts tallies the run's results by status.
func (r *Execution) Counts() Counts {
	var c Counts
	for _, res := range r.All() {
		switch res.Status {
		case Pass:
			c.Pass++
		case Fail:
			if res.Level == Should {
				c.Warn++
			} else {
				c.Fail++
			}
		case NotChecked:
			c.NotChecked++
		case Error:
			c.Error++
		}
	}
	return c
}

// Target is the implementation under test as the engine drives it: an
// *adapter.Client, or the connection a live suite's Connect makes.
type Target interface {
	// Hello is the implementation's identity, ops and concurrency.
	Hello() adapter.Hello
	// Offers reports whether the implementation offers op.
	Offers(op string) bool
	// GaveUp reports whether the implementation can take no more checks.
	GaveUp() bool
	// Restarts is how many times it was restarted after a fault.
	Restarts() int
	// Stderr is the tail of its log, for evidence.
	Stderr() string
	// Close ends it.
	Close() error
}

// Preparer is a Target that wants to know, before the first check, which
// checks will run (a live suite whose early checks fetch what later ones judge).
type Preparer interface {
	Prepare(checks []Check)
}

// Execute runs checks against target and returns every verdict. It never
// returns a partial run as complete: when the implementation gives up or
// ctx ends, the checks not yet run are errors and Complete is false.
// Checks start in order; at most the target's declared concurrency (or
// opt.Parallel, if lower) run at once.
func Execute(ctx context.Context, target Target, checks []Check, opt Options) *Execution {
	run := &Execution{Started: time.Now()}
	if opt.Compact && len(checks) > 0 {
		run.compact, run.checks = make([]verdict, len(checks)), checks
	} else {
		run.Results = make([]Result, len(checks))
	}
	client, _ := target.(*adapter.Client)
	if p, ok := target.(Preparer); ok {
		p.Prepare(checks)
	}
	parallel := max(1, target.Hello().Concurrency)
	if opt.Parallel > 0 {
		parallel = min(parallel, opt.Parallel)
	}
	var (
		mu   sync.Mutex
		done int
		wg   sync.WaitGroup
		sem  = make(chan struct{}, parallel)
	)
	one := func(i int) {
		res := runOne(ctx, target, client, &checks[i], opt)
		if opt.Keep != nil {
			opt.Keep(i, &res)
		}
		mu.Lock()
		run.Set(i, res)
		done++
		if opt.Progress != nil {
			opt.Progress(done, len(checks), res)
		}
		mu.Unlock()
	}
	for i := range checks {
		if parallel == 1 {
			one(i) // one at a time: on the caller's goroutine
			continue
		}
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			one(i)
		}()
	}
	wg.Wait()
	run.Duration = time.Since(run.Started)
	run.Restarts = target.Restarts()
	if t, ok := target.(interface{ CleanRestarts() int }); ok {
		run.CleanRestarts = t.CleanRestarts()
	}
	run.Complete = true
	for _, r := range run.All() {
		if r.notRun {
			run.Complete = false
		}
	}
	return run
}

func runOne(ctx context.Context, target Target, client *adapter.Client, c *Check, opt Options) (res Result) {
	res.ID, res.Level = c.ID, c.LevelOf()
	for _, op := range c.Needs {
		if !target.Offers(op) {
			res.Status, res.Reason = NotChecked, "adapter offers no "+op
			if c.MissingReason != "" {
				res.Reason = c.MissingReason
			}
			return res
		}
	}
	if target.GaveUp() {
		why := adapter.ErrGaveUp
		if client != nil {
			why = client.GaveUpErr()
		}
		return notRun(res, Clip(why.Error()))
	}
	if ctx.Err() != nil {
		return notRun(res, interrupted)
	}
	s := &Session{target: target, client: client}
	start := time.Now()
	o := runGuarded(ctx, c, s)
	res.Duration = time.Since(start)
	if s.fault != nil && o.Status != Error {
		// A check must not pass or fail on a broken exchange.
		o = Broke(s.fault)
	}
	if errors.Is(s.fault, adapter.ErrGaveUp) || (s.fault != nil && ctx.Err() != nil) {
		return notRun(res, Clip(s.fault.Error()))
	}
	if ctx.Err() != nil && o.Status != Pass {
		// The verdict is the interruption's, not the implementation's.
		return notRun(res, interrupted+" ("+o.Reason+")")
	}
	res.Status, res.Reason, res.Expected, res.Actual = o.Status, o.Reason, o.Expected, o.Actual
	if o.Status == Fail && o.Level != "" {
		res.Level = o.Level
	}
	if o.Status == Pass {
		if c.LevelOf() == May {
			res.Outcome = o.Choice
		}
		return res
	}
	res.Evidence = Evidence{Diff: o.Diff, Notes: o.Notes, Exchanges: s.exchanges}
	if o.Status == Error {
		var f *adapter.Fault
		if errors.As(s.fault, &f) && len(f.Line) > 0 {
			res.Evidence.Notes = append(res.Evidence.Notes, fmt.Sprintf("offending line: %q", f.Line))
		}
	}
	if s.stderr != nil {
		res.Evidence.Stderr = *s.stderr
	} else {
		res.Evidence.Stderr = target.Stderr()
	}
	if opt.Repro != nil && len(s.exchanges) > 0 {
		res.Evidence.Repro = opt.Repro(c.ID, s.exchanges)
	}
	if opt.MaxEvidence > 0 {
		clipEvidence(&res, opt.MaxEvidence)
	}
	return res
}

// runGuarded runs a check, turning a panic in its code into an error
// result rather than the end of the whole run.
func runGuarded(ctx context.Context, c *Check, s *Session) (o Outcome) {
	defer func() {
		if p := recover(); p != nil {
			o = Outcome{Status: Error, Reason: fmt.Sprintf("referee's check panicked (a bug in referee): %v", p)}
		}
	}()
	return c.Do(ctx, s)
}

func notRun(res Result, why string) Result {
	res.Status = Error
	res.Reason = NotRunPrefix + why
	res.notRun = true
	return res
}

// NotRunPrefix opens the reason of a check that never got a verdict: the
// implementation could not be started, gave up, or the run was interrupted.
const NotRunPrefix = "not run: "

// NotStartedPrefix opens the reason of every check of a run whose
// implementation could not be started.
const NotStartedPrefix = NotRunPrefix + notStarted

const notStarted = "the implementation could not be started: "

// NotRun reports whether r never got a verdict (its reason says so, also
// once read back from a report).
func (r Result) NotRun() bool {
	return r.notRun || (r.Status == Error && strings.HasPrefix(r.Reason, NotRunPrefix))
}

// Interrupted is the run of an implementation the run was interrupted
// before it started: every check is an error, "not run: run interrupted",
// and the run is incomplete.
func Interrupted(checks []Check) *Execution {
	results := make([]Result, len(checks))
	for i, c := range checks {
		results[i] = notRun(Result{ID: c.ID, Level: c.LevelOf()}, interrupted)
	}
	return &Execution{Results: results, Started: time.Now()}
}

// interrupted is why a check of an interrupted run got no verdict.
const interrupted = "run interrupted"

// InterruptedReason is the reason of every check of a run interrupted
// before its implementation started (Interrupted).
const InterruptedReason = NotRunPrefix + interrupted

// Unstarted is the run of an implementation that could not be started:
// every check is an error with err as its cause and ev as its evidence, and
// the run is incomplete.
func Unstarted(checks []Check, err error, ev Evidence) *Execution {
	results := make([]Result, len(checks))
	for i, c := range checks {
		results[i] = notRun(Result{ID: c.ID, Level: c.LevelOf(), Evidence: ev}, notStarted+err.Error())
	}
	return &Execution{Results: results, Started: time.Now()}
}

// MaxEvidence is the most of one value (expected, actual, a request or a
// reply line) a report's run keeps (Options.MaxEvidence). A failing check's
// evidence is held until the reports are written, and one reply may be
// 16 MiB; the diff and the first differing offset are taken from the whole
// values before.
const MaxEvidence = 64 << 10

// clipEvidence cuts each value of res longer than limit to its first limit
// bytes (at a character boundary), on a copy, so the whole value can be
// freed, and says so in a note.
func clipEvidence(res *Result, limit int) {
	var notes []string
	text := func(what, v string) string {
		if len(v) <= limit {
			return v
		}
		kept := cutAt(v, limit)
		notes = append(notes, fmt.Sprintf("%s: the first %d of its %d bytes are kept", what, len(kept), len(v)))
		return strings.Clone(kept)
	}
	line := func(what string, b []byte) []byte {
		if len(b) <= limit {
			return b
		}
		notes = append(notes, fmt.Sprintf("%s: the first %d of its %d bytes are kept", what, limit, len(b)))
		return bytes.Clone(b[:limit])
	}
	res.Expected = text("expected", res.Expected)
	res.Actual = text("actual", res.Actual)
	// The exchanges are the check's session's own, so they are cut in place.
	xs := res.Evidence.Exchanges
	for i := range xs {
		n := ""
		if len(xs) > 1 {
			n = fmt.Sprintf(" %d", i+1)
		}
		xs[i].Request, xs[i].Reply = line("request"+n, xs[i].Request), line("reply"+n, xs[i].Reply)
	}
	res.Evidence.Notes = append(res.Evidence.Notes, notes...)
}
