package fuzz

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/refereehq/referee/check"
)

// Defaults of a live suite's campaign, whose inputs are sessions: each
// starts (or reaches) the implementation anew and runs many exchanges.
const (
	DefaultLiveCount        = 1000            // sessions, when neither a count nor a time is given
	DefaultLiveShrinkBudget = 300             // candidate sessions tried per finding
	liveShrinkTime          = 2 * time.Minute // and at most this long, for providers that hang
	maxLiveParallel         = 4               // sessions at once, when Options.Parallel is 0
)

// liveImpl is one implementation of a live suite as the campaign drives
// it: the target its suite's Connect made, on which each session's check
// opens a connection of its own.
type liveImpl struct {
	sum    *ImplSummary
	target check.Target
}

// liveCampaign fuzzes a live suite (check.Definition.Live): each input is
// what its fuzz target generates (a session), made into the checks its
// corpus entry makes, as for any suite, and run against each
// implementation through the suite's Connect. There is no reference to
// compare with: the suite's checks judge the replies by the protocol's
// rules. A failure is sent again (one that does not fail so again is
// flaky), shrunk to the smallest input that still fails the same way, and
// written, as the other suites' findings are.
func liveCampaign(ctx context.Context, def *check.Definition, impls []Impl, o Options) (*Summary, error) {
	if o.Count < 0 || o.Time < 0 || o.Parallel < 0 {
		return nil, check.Usagef("fuzz: --count, --time and --parallel cannot be negative")
	}
	if o.Count == 0 && o.Time == 0 {
		o.Count = DefaultLiveCount
	}
	if o.ShrinkBudget <= 0 {
		o.ShrinkBudget = DefaultLiveShrinkBudget
	}
	if o.Parallel == 0 {
		o.Parallel = min(maxLiveParallel, runtime.GOMAXPROCS(0))
	}
	if o.Out != "" {
		if _, err := checkOut(o.Out); err != nil {
			return nil, err
		}
	}
	loaded, err := def.Load(check.LoadOptions{})
	if err != nil {
		return nil, err
	}
	if loaded.Connect == nil {
		return nil, fmt.Errorf("%s: a live suite without Connect (a bug in referee)", def.Name)
	}
	e := &engine{
		def: def, spec: def.Fuzz, o: o,
		sum:    &Summary{Suite: def.Name, Seed: o.Seed, Total: o.Count, Replay: def.Fuzz.Replay},
		perKey: map[string]int{}, shrunk: map[string]int{}, found: map[string]*Finding{}, perImpl: map[string]int{}, gapFound: map[string]bool{},
	}
	seen := map[string]bool{}
	for _, im := range impls {
		if err := validSpec(def, im.Spec); err != nil {
			return nil, err
		}
		if def.Validate != nil {
			if err := def.Validate(im.Spec); err != nil {
				return nil, err // nothing is sent to a URL the suite refuses
			}
		}
		if im.Name != "" && seen[im.Name] {
			return nil, check.Usagef("fuzz: two implementations named %q", im.Name)
		}
		seen[im.Name] = true
	}
	if err := e.pickTargets(o.Targets); err != nil {
		return nil, err
	}
	var lives []*liveImpl
	defer func() {
		for _, li := range lives {
			if li.target != nil {
				li.target.Close()
			}
		}
	}()
	for _, im := range impls {
		spec := im.Spec
		if spec.Timeout == 0 {
			spec.Timeout = o.Timeout
		}
		spec.Env = loaded.ChildEnv(spec.Env, spec.UserEnv)
		li := &liveImpl{sum: &ImplSummary{Name: im.Name, Spec: im.Spec, MayOutcomes: map[string]int{}}}
		if li.sum.Name == "" {
			li.sum.Name = unique(fallbackName(im.Spec), e.sum.Impls)
		}
		lives = append(lives, li)
		e.sum.Impls = append(e.sum.Impls, li.sum)
		if li.target, err = loaded.Connect(ctx, spec); err != nil {
			li.sum.Err = fmt.Errorf("could not be started: %w", err)
			continue
		}
		li.sum.Hello = li.target.Hello()
		if im.Name == "" && li.sum.Hello.Name != "" {
			li.sum.Name = unique(li.sum.Hello.Name, e.sum.Impls[:len(e.sum.Impls)-1])
		}
	}
	e.liveLoop(ctx, lives)
	e.sum.Interrupted = ctx.Err() != nil
	for _, f := range e.sum.Findings {
		f.Seen = e.perKey[f.key]
	}
	if o.Out != "" {
		if e.sum.Written, err = e.write(o.Out); err != nil {
			return e.sum, err
		}
	}
	return e.sum, nil
}

// liveLoop generates inputs, Options.Parallel at a time, runs each on
// every implementation, and analyses them in the order of their numbers,
// so that a run's findings do not depend on which session ends first.
func (e *engine) liveLoop(ctx context.Context, lives []*liveImpl) {
	start := time.Now()
	defer func() { e.sum.Duration = time.Since(start) }()
	var deadline time.Time
	if e.o.Time > 0 {
		deadline = start.Add(e.o.Time)
	}
	var running []*liveImpl
	for _, li := range lives {
		if li.sum.Err == nil {
			running = append(running, li)
		}
	}
	for next := uint64(0); ; {
		n := e.o.Parallel
		if e.o.Count > 0 {
			n = min(n, e.o.Count-int(next))
		}
		if n <= 0 || ctx.Err() != nil || len(running) == 0 || (!deadline.IsZero() && time.Now().After(deadline)) || e.stopped() {
			return
		}
		items := make([]*item, n)
		for i := range items {
			items[i] = &item{index: next + uint64(i)}
			e.generate(items[i])
			e.sum.Targets[items[i].ti].Inputs++
		}
		next += uint64(n)
		e.sum.Inputs += n
		e.liveJudge(ctx, items, running)
		for _, it := range items {
			if !it.judged || ctx.Err() != nil {
				continue
			}
			e.sum.Judged++
			e.sum.Targets[it.ti].Judged++
			for k, li := range running {
				e.liveAnalyse(ctx, li, it, it.res[k])
			}
		}
		if e.o.Progress != nil {
			e.o.Progress(Progress{Inputs: e.sum.Inputs, Total: e.o.Count, Elapsed: time.Since(start), Findings: len(e.sum.Findings)})
		}
	}
}

// liveVector makes its corpus entry and the checks the suite makes of it;
// false when the corpus cannot hold it (a shrinking candidate that is no
// session).
func (e *engine) liveVector(it *item) bool {
	if it.name == "" {
		it.name = vectorName(it.t, it.input)
	}
	entry, ok := it.t.Vector(it.name, it.input)
	if !ok {
		return false
	}
	cs, err := check.FuzzChecks(e.def, e.spec, entry)
	if err != nil || len(cs) == 0 {
		return false
	}
	it.vec = Vector{Entry: entry, Checks: cs}
	return true
}

// liveJudge runs the checks of items on each implementation, all at once:
// each session runs on a connection of its own. What is kept of each
// result is its verdict.
func (e *engine) liveJudge(ctx context.Context, items []*item, lives []*liveImpl) {
	var wg sync.WaitGroup
	for _, it := range items {
		if !e.liveVector(it) {
			continue
		}
		it.judged = true
		it.res = make([][]verdict, len(lives))
		for k, li := range lives {
			wg.Add(1)
			go func() {
				defer wg.Done()
				it.res[k] = e.liveRun(ctx, li, it)
			}()
		}
	}
	wg.Wait()
}

// liveRun runs it's checks on one implementation and keeps their verdicts.
func (e *engine) liveRun(ctx context.Context, li *liveImpl, it *item) []verdict {
	vs := make([]verdict, len(it.vec.Checks))
	check.Execute(ctx, li.target, it.vec.Checks, check.Options{Keep: func(i int, r *check.Result) {
		vs[i] = verdictOf(it.t.Name, it.name, r)
	}})
	return vs
}

// liveAnalyse counts an input's outcome on one implementation and takes up
// its first failure.
func (e *engine) liveAnalyse(ctx context.Context, li *liveImpl, it *item, vs []verdict) {
	for i := range vs {
		v := &vs[i]
		switch {
		case v.status == check.Pass && v.level == check.May:
			li.sum.MayOutcomes[v.outcome]++
		case v.failed():
			if v.status == check.Fail && v.level == check.Should {
				li.sum.Should++
			} else {
				li.sum.Divergent++
			}
			e.liveDiverged(ctx, li, it, v)
			return
		}
	}
}

// liveDiverged records that it failed v on li, and, when its kind of
// failure has not been shrunk often enough yet, sends it again: a failure
// that does not happen again is a flaky finding, with the input as
// generated; one that does is shrunk. One that could not be sent again
// (the run was interrupted) is kept as found.
func (e *engine) liveDiverged(ctx context.Context, li *liveImpl, it *item, v *verdict) {
	ik, ok := e.admit(li.sum.Name, v.key)
	if !ok {
		return
	}
	same := func(vs []verdict) *verdict { return sameFailure(vs, v) }
	f := &Finding{Impls: []string{li.sum.Name}, Target: it.t.Name, Name: it.name, Index: it.index, Input: it.input, Vector: it.vec, key: ik}
	f.take(v)
	key := v.key // the key of the failure reported
	var rerun []verdict
	if ctx.Err() == nil {
		rerun = e.liveRun(ctx, li, it)
	}
	switch {
	case ctx.Err() != nil || rerun == nil || slices.ContainsFunc(rerun, func(r verdict) bool { return r.notRun }):
		// Not sent again: kept as it was found.
	case same(rerun) == nil:
		f.Flaky, f.Rerun = true, rerunText(rerun)
	default:
		best, bv := it, *same(rerun)
		e.liveShrink(ctx, li, it, func(j *item, vs []verdict) bool {
			w := same(vs)
			if w != nil && smaller(j.input, best.input) {
				best, bv = j, *w
			}
			return w != nil
		})
		f.Input, f.Name, f.Vector, key = best.input, best.name, best.vec, bv.key
		f.take(&bv)
	}
	sig := key + " | " + Skeleton(f.Input)
	if f.Flaky {
		sig += " | flaky"
	}
	f.Signature = sig
	if _, ok := e.found[li.sum.Name+"\x00"+sig]; ok {
		return
	}
	e.found[li.sum.Name+"\x00"+sig] = f
	e.sum.Findings = append(e.sum.Findings, f)
}

// liveShrink tries candidates smaller than it's input (minimize), keep
// saying which still fail the same way. Each batch of candidates is tried
// smallest first, Options.Parallel at a time, and stops at the first that
// fails so: a session that hangs costs its timeout, so the candidates that
// still fail are the dear ones. The rest of a batch counts as not taken.
// At most Options.ShrinkBudget candidates are tried, for at most
// liveShrinkTime.
func (e *engine) liveShrink(ctx context.Context, li *liveImpl, it *item, keep func(*item, []verdict) bool) {
	sctx, cancel := context.WithTimeout(ctx, liveShrinkTime)
	defer cancel()
	tried := 0 // candidates run; minimize counts the whole batch each time
	try := func(inputs [][]byte) []bool {
		ok := make([]bool, len(inputs))
		order := make([]int, len(inputs))
		for i := range order {
			order[i] = i
		}
		sort.SliceStable(order, func(a, b int) bool { return smaller(inputs[order[a]], inputs[order[b]]) })
		for from := 0; from < len(order) && sctx.Err() == nil; {
			if tried >= e.o.ShrinkBudget {
				cancel()
				break
			}
			// A window never runs past the budget, and only the candidates
			// up to the first taken count: what is taken does not depend
			// on Options.Parallel.
			window := order[from:min(len(order), from+e.o.Parallel, from+e.o.ShrinkBudget-tried)]
			from += len(window)
			items := make([]*item, len(window))
			for w, i := range window {
				items[w] = &item{index: it.index, t: it.t, ti: it.ti, input: inputs[i]}
			}
			e.liveJudge(ctx, items, []*liveImpl{li})
			first := -1
			for w, j := range items {
				if first < 0 && j.judged && ctx.Err() == nil && keep(j, j.res[0]) {
					ok[window[w]], first = true, w
				}
			}
			if first >= 0 {
				tried += first + 1
				break
			}
			tried += len(window)
		}
		return ok
	}
	minimize(sctx, it.input, it.t.Input, e.o.ShrinkBudget*shrinkBatch, try)
}
