package fuzz

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/refereehq/referee/adapter"
	"github.com/refereehq/referee/check"
)

// loop generates and judges inputs in batches until the count or the time
// is reached, every implementation is gone, or ctx ends. The batches grow
// from firstBatch to BatchSize, so that a run that ends early (a finding
// with StopAfter, the time, ctx) has not judged a full batch past that
// point; the inputs and their order are the same whatever the batches.
//
// Inputs are prepared (generated, made into vectors and judged by the
// reference) by a pool of workers, up to a batch ahead of the batch the
// implementations are judging; each implementation takes a batch's inputs
// as they are prepared, in order, with as many calls in flight as it
// allows. A batch is committed (counted, analysed, its divergences
// shrunk) once every implementation has judged all of it, input by input
// in order, and only then does the next go to the implementations: what a
// run finds, counts and writes is the same whatever the number of workers
// and of calls in flight. Work done ahead for a batch the run does not
// reach is dropped, never counted.
func (e *engine) loop(ctx context.Context) {
	start := time.Now()
	defer func() { e.sum.Duration = time.Since(start) }()
	var deadline time.Time
	if e.o.Time > 0 {
		deadline = start.Add(e.o.Time)
	}
	p := e.startPool(ctx)
	defer p.stop()
	next, size := uint64(0), firstBatch
	items := p.queue(next, e.batchLen(next, size))
	for {
		if len(items) == 0 || ctx.Err() != nil || len(e.live()) == 0 || (!deadline.IsZero() && time.Now().After(deadline)) || e.stopped() {
			return
		}
		n := uint64(len(items))
		size = min(2*size, BatchSize)
		ahead := p.queue(next+n, e.batchLen(next+n, size))
		impls := e.live()
		e.judgeImpls(ctx, items, impls)
		next += n
		e.sum.Inputs += len(items)
		for _, it := range items {
			e.sum.Targets[it.ti].Inputs++
			e.commit(ctx, it)
		}
		for _, it := range items {
			if it.judged {
				e.sum.Judged++
				e.sum.Targets[it.ti].Judged++
				e.analyse(ctx, it, impls)
			}
		}
		if e.o.Progress != nil {
			e.o.Progress(Progress{Inputs: e.sum.Inputs, Total: e.o.Count, Elapsed: time.Since(start), Findings: len(e.sum.Findings)})
		}
		items = ahead
	}
}

// batchLen is the length of the batch of at most size inputs from next on.
func (e *engine) batchLen(next uint64, size int) int {
	if e.o.Count > 0 {
		return max(0, min(size, e.o.Count-int(next)))
	}
	return size
}

// stopped reports whether Options.StopAfter findings have been shrunk.
func (e *engine) stopped() bool {
	return e.o.StopAfter > 0 && len(e.sum.Findings)+len(e.sum.Gaps) >= e.o.StopAfter
}

// chunkSize is how many inputs a worker prepares together: their vectors
// are read back as one corpus (checksOf), and their checks run on the
// reference together.
const chunkSize = 16

// pool prepares generated inputs on one worker per processor, a chunk at
// a time, in the order they are queued.
type pool struct {
	work chan []*item
	quit atomic.Bool
	wg   sync.WaitGroup
}

// startPool starts the workers that prepare the inputs of the main loop.
func (e *engine) startPool(ctx context.Context) *pool {
	// At most two batches are queued and not yet prepared: the loop
	// queues one while the workers may still hold part of the one before.
	p := &pool{work: make(chan []*item, 2*BatchSize/chunkSize+2)}
	for range runtime.GOMAXPROCS(0) {
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			for chunk := range p.work {
				if !p.quit.Load() {
					for _, it := range chunk {
						e.generate(it)
					}
					e.prepare(ctx, chunk)
				}
				for _, it := range chunk {
					close(it.ready)
				}
			}
		}()
	}
	return p
}

// queue hands the n inputs from number from on to the workers, and returns
// their items, each ready once prepared.
func (p *pool) queue(from uint64, n int) []*item {
	items := make([]*item, n)
	for i := range items {
		items[i] = &item{index: from + uint64(i), ready: make(chan struct{})}
	}
	for c := range slices.Chunk(items, chunkSize) {
		p.work <- c
	}
	return items
}

// stop drops what is queued and waits for the workers to end.
func (p *pool) stop() {
	p.quit.Store(true)
	close(p.work)
	p.wg.Wait()
}

// prepare makes the vector of each item (whose input is set) and runs the
// vectors' checks on the reference: an item is judged when the reference
// passes every check of its vector. What is kept of each result is its
// verdict, taken as the check ends.
func (e *engine) prepare(ctx context.Context, items []*item) {
	var names []string
	var entries []any
	first := map[string]int{} // a name to its entry: the same input twice is one vector
	of := make([]int, len(items))
	for i, it := range items {
		of[i] = -1
		if it.name == "" {
			it.name = vectorName(it.t, it.input)
		}
		if k, ok := first[it.name]; ok {
			of[i] = k
			continue
		}
		entry, ok := it.t.Vector(it.name, it.input)
		if !ok {
			continue
		}
		first[it.name] = len(entries)
		of[i] = len(entries)
		names = append(names, it.name)
		entries = append(entries, entry)
	}
	made := checksOf(e.def, e.spec, names, entries)
	var checks []check.Check
	var owners []*item // the item of each check
	for i, it := range items {
		if of[i] < 0 || len(made[of[i]]) == 0 {
			continue
		}
		it.vec = Vector{Entry: entries[of[i]], Checks: made[of[i]]}
		checks = append(checks, it.vec.Checks...)
		for range it.vec.Checks {
			owners = append(owners, it)
		}
	}
	if len(checks) == 0 {
		return
	}
	ref := make([]verdict, len(checks))
	// One check at a time on the worker's goroutine: the reference is in
	// process, and there is a worker per processor.
	check.Execute(ctx, e.ref, checks, check.Options{Parallel: 1, Keep: keeper(owners, ref)})
	for off := 0; off < len(checks); {
		it := owners[off]
		vs := ref[off : off+len(it.vec.Checks)]
		off += len(it.vec.Checks)
		if i := slices.IndexFunc(vs, func(v verdict) bool { return v.status != check.Pass }); i >= 0 {
			it.refused, it.refusedBy = true, vs[i]
			continue
		}
		it.judged = true
	}
}

// keeper returns the check.Options.Keep that takes each result's verdict
// into vs, owners being the item of each check.
func keeper(owners []*item, vs []verdict) func(int, *check.Result) {
	return func(i int, r *check.Result) { vs[i] = verdictOf(owners[i].t.Name, owners[i].name, r) }
}

// commit counts a vector the reference did not pass (a bug in referee),
// describing the first few.
func (e *engine) commit(ctx context.Context, it *item) {
	if !it.refused || ctx.Err() != nil {
		return
	}
	e.sum.RefusedByReference++
	if len(e.sum.ReferenceBugs) < 5 {
		v := &it.refusedBy
		e.sum.ReferenceBugs = append(e.sum.ReferenceBugs, fmt.Sprintf("%s: %s on input %q: %s", v.id, v.status, check.Clip(string(it.input)), v.reason))
	}
}

// judge prepares items (whose inputs are set) and runs the checks of
// those the reference passes on every implementation in impls: what
// shrinking does with its candidates.
func (e *engine) judge(ctx context.Context, items []*item, impls []*implRun) {
	chunks := slices.Collect(slices.Chunk(items, chunkSize))
	for _, it := range items {
		it.ready = make(chan struct{})
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(len(chunks), runtime.GOMAXPROCS(0)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := next.Add(1) - 1; i < int64(len(chunks)); i = next.Add(1) - 1 {
				e.prepare(ctx, chunks[i])
				for _, it := range chunks[i] {
					close(it.ready)
				}
			}
		}()
	}
	e.judgeImpls(ctx, items, impls)
	wg.Wait()
	for _, it := range items {
		e.commit(ctx, it)
	}
}

// judgeImpls runs the checks of each judged item on every implementation
// in impls, each in its own goroutine, taking the items as they become
// ready, in order.
func (e *engine) judgeImpls(ctx context.Context, items []*item, impls []*implRun) {
	for _, it := range items {
		it.res = make([][]verdict, len(impls))
	}
	var wg sync.WaitGroup
	for k, ir := range impls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			e.execute(ctx, ir, k, items)
		}()
	}
	wg.Wait()
}

// execute runs the checks of each judged item on one implementation, the
// k-th of the batch's, with as many in flight as it allows, keeping each
// result's verdict; when it has given up after faults, a new connection is
// made for what comes next.
func (e *engine) execute(ctx context.Context, ir *implRun, k int, items []*item) {
	if ir.sum.Err != nil {
		for _, it := range items {
			if <-it.ready; !it.judged {
				continue
			}
			vs := make([]verdict, len(it.vec.Checks))
			for i, c := range it.vec.Checks {
				r := check.Result{ID: c.ID, Level: c.LevelOf(), Status: check.Error, Reason: check.NotRunPrefix + ir.sum.Err.Error()}
				vs[i] = verdictOf(it.t.Name, it.name, &r)
			}
			it.res[k] = vs
		}
		return
	}
	client := ir.client
	// As many in flight as check.Execute allows: the declared
	// concurrency, or Options.Parallel if lower.
	inFlight := max(1, client.Hello().Concurrency)
	if e.o.Parallel > 0 {
		inFlight = min(inFlight, e.o.Parallel)
	}
	// inFlight callers take the checks in order, each running one at a
	// time on its own goroutine.
	type job struct {
		c    []check.Check // one check
		keep func(int, *check.Result)
	}
	jobs := make(chan job, inFlight)
	var wg sync.WaitGroup
	for range inFlight {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				check.Execute(ctx, client, j.c, check.Options{Parallel: 1, Keep: j.keep})
			}
		}()
	}
	for _, it := range items {
		if <-it.ready; !it.judged {
			continue
		}
		vs := make([]verdict, len(it.vec.Checks))
		it.res[k] = vs
		for i := range it.vec.Checks {
			jobs <- job{it.vec.Checks[i : i+1], func(_ int, r *check.Result) { vs[i] = verdictOf(it.t.Name, it.name, r) }}
		}
	}
	close(jobs)
	wg.Wait()
	e.redial(ctx, ir)
}

// redial makes a new connection to an implementation whose client gave up
// after faults, at most maxRedials times; then it is no longer driven.
func (e *engine) redial(ctx context.Context, ir *implRun) {
	if !ir.client.GaveUp() || ctx.Err() != nil {
		return
	}
	ir.sum.Restarts += ir.client.Restarts()
	ir.client.Close()
	ir.redials++
	var err error
	if ir.redials > maxRedials {
		err = fmt.Errorf("kept faulting: gave up after %d new connections", maxRedials)
	} else if ir.client, err = adapter.Dial(ctx, ir.start, e.def.Name, e.dialOptions()); err == nil && !sameHello(ir.client.Hello(), ir.sum.Hello) {
		err = fmt.Errorf("its hello changed after a restart")
	}
	if err != nil {
		ir.sum.Err = fmt.Errorf("could not be driven: %w", err)
		if ir.client != nil {
			ir.client.Close()
		}
		ir.client = nil
	}
}
