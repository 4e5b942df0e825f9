package check

import (
	"context"
	"errors"
	"fmt"
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
}

// Run is the outcome of executing a suite's selected checks.
type Run struct {
	Results  []Result // in check order
	Complete bool     // every selected check ran to a verdict
	Restarts int      // how many times the adapter was restarted after a fault
	Started  time.Time
	Duration time.Duration
}

// Counts tallies results by status.
type Counts struct {
	Pass       int `json:"pass"`
	Fail       int `json:"fail"`
	NotChecked int `json:"not_checked"`
	Error      int `json:"error"`
}

// Counts tallies the run's results by status.
func (r *Run) Counts() Counts {
	var c Counts
	for _, res := range r.Results {
		switch res.Status {
		case Pass:
			c.Pass++
		case Fail:
			c.Fail++
		case NotChecked:
			c.NotChecked++
		case Error:
			c.Error++
		}
	}
	return c
}

// Execute runs checks against client and returns every verdict. It never
// returns a partial run as complete: when the adapter gives up or ctx ends,
// the checks not yet run are errors and Complete is false.
func Execute(ctx context.Context, client *adapter.Client, checks []Check, opt Options) *Run {
	run := &Run{Results: make([]Result, len(checks)), Started: time.Now()}
	parallel := max(1, client.Hello().Concurrency)
	if opt.Parallel > 0 {
		parallel = min(parallel, opt.Parallel)
	}
	var (
		mu   sync.Mutex
		done int
		wg   sync.WaitGroup
		sem  = make(chan struct{}, parallel)
	)
	for i := range checks {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			res := runOne(ctx, client, &checks[i], opt)
			mu.Lock()
			run.Results[i] = res
			done++
			if opt.Progress != nil {
				opt.Progress(done, len(checks), res)
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	run.Duration = time.Since(run.Started)
	run.Restarts = client.Restarts()
	run.Complete = true
	for _, r := range run.Results {
		if r.notRun {
			run.Complete = false
		}
	}
	return run
}

func runOne(ctx context.Context, client *adapter.Client, c *Check, opt Options) (res Result) {
	res.ID = c.ID
	for _, op := range c.Needs {
		if !client.Offers(op) {
			res.Status, res.Reason = NotChecked, "adapter offers no "+op
			if c.MissingReason != "" {
				res.Reason = c.MissingReason
			}
			return res
		}
	}
	if client.GaveUp() {
		return notRun(res, "adapter gave up after repeated faults")
	}
	if ctx.Err() != nil {
		return notRun(res, "run interrupted")
	}
	s := &Session{client: client}
	start := time.Now()
	o := runGuarded(ctx, c, s)
	res.Duration = time.Since(start)
	if s.fault != nil && o.Status != Error {
		// A check must not pass or fail on a broken exchange.
		o = Broke(s.fault)
	}
	if errors.Is(s.fault, adapter.ErrGaveUp) || (s.fault != nil && ctx.Err() != nil) {
		return notRun(res, s.fault.Error())
	}
	res.Status, res.Reason, res.Expected, res.Actual = o.Status, o.Reason, o.Expected, o.Actual
	if o.Status == Pass {
		return res
	}
	res.Evidence = Evidence{Diff: o.Diff, Notes: o.Notes, Exchanges: s.exchanges}
	if o.Status == Error {
		var f *adapter.Fault
		if errors.As(s.fault, &f) && len(f.Line) > 0 {
			res.Evidence.Notes = append(res.Evidence.Notes, fmt.Sprintf("offending line: %q", f.Line))
		}
	}
	res.Evidence.Stderr = client.Stderr()
	if opt.Repro != nil && len(s.exchanges) > 0 {
		res.Evidence.Repro = opt.Repro(c.ID, s.exchanges)
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
	return c.Run(ctx, s)
}

func notRun(res Result, why string) Result {
	res.Status = Error
	res.Reason = "not run: " + why
	res.notRun = true
	return res
}
