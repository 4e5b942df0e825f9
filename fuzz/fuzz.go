// Package fuzz is referee's differential fuzzer. It generates inputs for a
// suite's fuzz targets (check.FuzzSpec), turns each into a vector of the
// suite's own corpus format with the outcome the suite's built-in
// reference gives it, and runs the checks that vector makes against one or
// several implementations. A failed check is a divergence: it is shrunk to
// a minimal input, deduplicated by signature, and written with the others
// as a corpus that `referee run SUITE --corpus DIR` replays.
package fuzz

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/refereehq/referee/adapter"
	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/report"
)

// Defaults.
const (
	DefaultCount        = 10_000 // inputs, when neither a count nor a time is given
	DefaultShrinkBudget = 1000   // candidate inputs tried per finding
	BatchSize           = 256    // inputs judged together, pipelined: the most whose verdicts are held at once
	firstBatch          = 16     // the first batch; each next one doubles, up to BatchSize
	maxPerKey           = 2      // findings shrunk per implementation and failure key
	maxFindings         = 32     // findings shrunk per implementation
	maxRedials          = 20     // new connections after the adapter gave up
)

// Impl is one implementation under test.
type Impl struct {
	// Name is what the summary and the provenance call it; "" takes the
	// name from its hello.
	Name string
	// Spec reaches it: a program, a URL, a Go handler, or the suite's
	// built-in implementation in a broken mode.
	Spec check.Spec
}

// Options say how to fuzz.
type Options struct {
	Seed uint64
	// Count is how many inputs to generate; 0 means DefaultCount, unless
	// Time is set. With both, the first one reached ends the run.
	Count int
	Time  time.Duration
	// Targets restricts the run to the targets of these names; nil: all.
	Targets []string
	// Parallel is how many requests are in flight per implementation; 0:
	// its declared concurrency, which is also the most allowed.
	Parallel int
	Timeout  time.Duration // per call; 0: the adapter's default
	// Out, if set, is the directory the findings are written to as a
	// corpus in the suite's format, with a manifest and their provenance.
	Out string
	// Corpus is the corpus directory the reference and the suite's
	// generators are drawn from (`--corpus DIR`); "" is the embedded one.
	Corpus       string
	Tool         report.Tool // who fuzzes, for the provenance
	ShrinkBudget int         // candidate inputs tried per finding; 0: DefaultShrinkBudget
	// StopAfter, if positive, ends the run once that many findings (gaps
	// included) have been shrunk.
	StopAfter int
	// Progress, if set, is called after each batch of inputs.
	Progress func(Progress)
}

// Progress is how far a run has come.
type Progress struct {
	Inputs   int           // generated so far
	Total    int           // to generate; 0 when the run is bounded by time
	Elapsed  time.Duration // since the first input
	Findings int           // distinct findings so far
}

// Summary is what a fuzz run found.
type Summary struct {
	Suite    string
	Seed     uint64
	Total    int // inputs asked for (Options.Count); 0 when bounded by time alone
	Inputs   int // generated
	Judged   int // made into vectors the reference passes, and run
	Duration time.Duration
	Targets  []TargetSummary
	// RefusedByReference counts vectors the reference itself failed: a bug
	// in referee (the suite's fuzz hook or its reference); ReferenceBugs
	// describes a few.
	RefusedByReference int
	ReferenceBugs      []string
	Impls              []*ImplSummary
	Findings           []*Finding // shrunk and deduplicated, in the order found
	// Gaps are inputs on which every implementation (two or more) gave the
	// same answer, and the reference another: the reference or the spec is
	// the suspect, and no implementation is blamed.
	Gaps    []*Finding
	Written []string // the files written to Options.Out
	// Replay is the flag of `referee run` that replays Written: the suite's
	// own (check.FuzzSpec.Replay), or "" for --corpus.
	Replay string
	// Interrupted says the run's context ended (SIGINT or SIGTERM) before
	// it had generated and judged what it was asked to: the findings are
	// those made before, and the run is incomplete (exit 3).
	Interrupted bool
}

// Vector is a generated input as an entry of the suite's corpus, and the
// checks the suite makes of that entry when it reads it back.
type Vector struct {
	Entry  any // as FuzzTarget.Vector made it
	Checks []check.Check
}

// TargetSummary counts one target's inputs.
type TargetSummary struct {
	Name   string
	Inputs int // generated
	Judged int // that the corpus format could hold and the reference passed
}

// ImplSummary is one implementation's part of a run.
type ImplSummary struct {
	Name  string
	Spec  check.Spec // how it was reached
	Hello adapter.Hello
	// Divergent counts inputs with a blocking divergence: a failed must or
	// may check, or an error. Should counts inputs whose only difference
	// failed a should check (a warning).
	Divergent, Should int
	// MayOutcomes counts passed may checks by the conforming outcome chosen
	// ("output", "rejected"): implementation-defined, never a divergence.
	MayOutcomes map[string]int
	Restarts    int
	// Err says why it could not be driven (not started, or it kept
	// faulting); the run is then incomplete (exit 3).
	Err error
}

// Finding is one divergence, shrunk: the minimal input, the check it fails
// and how.
type Finding struct {
	Impls  []string // the implementation; for a gap, all of them
	Target string
	Name   string // the vector's name
	Check  string // the failing check's ID
	Level  check.Level
	Status check.Status
	Reason string // cut to MaxReason bytes
	// Expected is what the reference's vector expects, Actual what the
	// implementation answered, each cut as check.Clip cuts it (the whole
	// answer is never kept).
	Expected, Actual string
	Input            []byte // the shrunk input (for a flaky finding, the input as generated)
	Index            uint64 // the number of the generated input it was shrunk from
	Signature        string // what went wrong, and the shape of the input
	Seen             int    // generated inputs that failed the same way
	Vector           Vector // the corpus entry it is and the checks the suite makes of it
	// Flaky says the divergence did not happen again when its input was
	// sent once more: the finding is the input as generated, not shrunk,
	// and Rerun says what the second answer was.
	Flaky bool
	Rerun string
	key   string // the implementation and failure key Seen counts
}

// Blocking reports whether the finding blocks conformance: an error, or a
// failed must or may check (a failed should check is a warning).
func (f *Finding) Blocking() bool { return f.Status == check.Error || f.Level != check.Should }

// ExitCode is the run's exit status: 3 when the run was interrupted, an
// implementation could not be driven or no input was judged, 1 when a
// blocking divergence was found (a flaky one too), else 0. Gaps and should
// differences do not fail the run.
func (s *Summary) ExitCode() int {
	if s.Interrupted || s.Judged == 0 {
		return report.ExitIncomplete
	}
	for _, i := range s.Impls {
		if i.Err != nil {
			return report.ExitIncomplete
		}
	}
	for _, f := range s.Findings {
		if f.Blocking() {
			return report.ExitFailed
		}
	}
	return report.ExitOK
}

// implRun is one implementation as the engine drives it.
type implRun struct {
	sum     *ImplSummary
	start   adapter.Starter
	client  *adapter.Client
	redials int
}

// engine is one fuzz run.
type engine struct {
	def      *check.Definition
	spec     *check.FuzzSpec
	corpus   string // Options.Corpus's name and digest, for the provenance
	o        Options
	hello    map[string]string
	ref      *adapter.Client
	targets  []*check.FuzzTarget
	weight   int
	impls    []*implRun
	sum      *Summary
	perKey   map[string]int      // impl and failure key: generated inputs that failed so
	shrunk   map[string]int      // impl and failure key: findings shrunk
	found    map[string]*Finding // impl and signature
	perImpl  map[string]int      // impl: findings shrunk
	gapFound map[string]bool
}

// Campaign fuzzes the suite def declares against impls. Its error is a usage
// error (check.UsageError) or a failure to write Options.Out; what the
// implementations did is in the summary, and an implementation that could
// not be driven makes its exit code 3.
func Campaign(ctx context.Context, def *check.Definition, impls []Impl, o Options) (*Summary, error) {
	if def.Fuzz == nil || len(def.Fuzz.Targets) == 0 {
		return nil, check.Usagef("the %s suite has no fuzz targets", def.Name)
	}
	if len(impls) == 0 {
		return nil, check.Usagef("fuzz: no implementation to fuzz")
	}
	if def.Live {
		return liveCampaign(ctx, def, impls, o) // sessions, judged by the suite's own checks
	}
	if o.Count < 0 || o.Time < 0 || o.Parallel < 0 {
		return nil, check.Usagef("fuzz: --count, --time and --parallel cannot be negative")
	}
	if o.Count == 0 && o.Time == 0 {
		o.Count = DefaultCount
	}
	if o.ShrinkBudget <= 0 {
		o.ShrinkBudget = DefaultShrinkBudget
	}
	if o.Out != "" {
		// Refused before the first input, as run refuses its outputs.
		if _, err := checkOut(o.Out); err != nil {
			return nil, err
		}
	}
	loaded, err := def.Load(check.LoadOptions{Corpus: o.Corpus})
	if err != nil {
		return nil, err
	}
	spec := def.Fuzz
	if loaded.Fuzz != nil {
		spec = loaded.Fuzz
	}
	var corpusName string
	if o.Corpus != "" && loaded.Suite != nil {
		corpusName = loaded.Suite.Corpus + " (" + loaded.Suite.CorpusDigest + ")"
	}
	e := &engine{
		def: def, spec: spec, corpus: corpusName, o: o, hello: loaded.Hello,
		sum:    &Summary{Suite: def.Name, Seed: o.Seed, Total: o.Count},
		perKey: map[string]int{}, shrunk: map[string]int{}, found: map[string]*Finding{}, perImpl: map[string]int{}, gapFound: map[string]bool{},
	}
	seen := map[string]bool{}
	for _, im := range impls {
		if err := validSpec(def, im.Spec); err != nil {
			return nil, err
		}
		if im.Name != "" && seen[im.Name] {
			return nil, check.Usagef("fuzz: two implementations named %q", im.Name)
		}
		seen[im.Name] = true
	}
	if err := e.pickTargets(o.Targets); err != nil {
		return nil, err
	}
	refHandler, err := loaded.Reference("")
	if err != nil {
		return nil, fmt.Errorf("%s: the reference: %w", def.Name, err)
	}
	if e.ref, err = adapter.Dial(ctx, adapter.InProcess(refHandler), def.Name, adapter.Options{HelloArgs: loaded.Hello}); err != nil {
		return nil, fmt.Errorf("%s: the reference: %w", def.Name, err)
	}
	defer e.ref.Close()
	for _, im := range impls {
		name := im.Name
		if name == "" {
			name = unique(fallbackName(im.Spec), e.sum.Impls)
		}
		ir := &implRun{sum: &ImplSummary{Name: name, Spec: im.Spec, MayOutcomes: map[string]int{}}}
		e.impls = append(e.impls, ir)
		e.sum.Impls = append(e.sum.Impls, ir.sum)
		ir.start, err = starter(loaded, im.Spec)
		if err == nil {
			ir.client, err = adapter.Dial(ctx, ir.start, def.Name, e.dialOptions())
		}
		if err != nil {
			ir.sum.Err = fmt.Errorf("could not be started: %w", err)
			continue
		}
		ir.sum.Hello = ir.client.Hello()
		if im.Name == "" {
			ir.sum.Name = unique(ir.sum.Hello.Name, e.sum.Impls[:len(e.sum.Impls)-1])
		}
		if !slices.ContainsFunc(e.targets, func(t *check.FuzzTarget) bool { return offersAll(ir.sum.Hello, t.Needs) }) {
			ir.sum.Err = fmt.Errorf("offers none of the ops the %s targets need (it offers %s)", def.Name, strings.Join(ir.sum.Hello.Ops, ", "))
		}
	}
	defer func() {
		for _, ir := range e.impls {
			if ir.client != nil {
				ir.client.Close()
			}
		}
	}()
	e.loop(ctx)
	e.sum.Interrupted = ctx.Err() != nil
	for _, ir := range e.impls {
		if ir.client != nil {
			ir.sum.Restarts += ir.client.Restarts()
		}
	}
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

// fallbackName names an implementation that gave no name and said no
// hello.
func fallbackName(s check.Spec) string {
	switch {
	case len(s.Argv) > 0:
		return s.Argv[0]
	case s.URL != "":
		return s.URL
	case s.Mode != "":
		return "mode " + s.Mode
	}
	return "built-in"
}

// unique returns name, or name#2, name#3 ... when another implementation
// has it.
func unique(name string, others []*ImplSummary) string {
	taken := func(n string) bool {
		return slices.ContainsFunc(others, func(o *ImplSummary) bool { return o.Name == n })
	}
	for i, n := 2, name; ; i++ {
		if !taken(n) {
			return n
		}
		n = fmt.Sprintf("%s#%d", name, i)
	}
}

// validSpec refuses a spec the fuzzer cannot reach, as run.Prepare does.
func validSpec(def *check.Definition, s check.Spec) error {
	n := 0
	for _, set := range []bool{len(s.Argv) > 0, s.URL != "", s.Handler != nil, s.Mode != ""} {
		if set {
			n++
		}
	}
	if n > 1 {
		return check.Usagef("fuzz: an implementation is one of a program, a URL, a Go handler or a broken mode")
	}
	if s.URL != "" {
		if u, err := url.Parse(s.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return check.Usagef("--url %q: want an http:// or https:// URL", s.URL)
		}
	}
	return def.CheckMode(s.Mode)
}

// pickTargets selects the targets named (all when names is empty) that
// some implementation may offer.
func (e *engine) pickTargets(names []string) error {
	for i := range e.spec.Targets {
		t := &e.spec.Targets[i]
		if len(names) == 0 || slices.Contains(names, t.Name) {
			e.targets = append(e.targets, t)
			e.weight += max(1, t.Weight)
		}
	}
	for _, n := range names {
		if !slices.ContainsFunc(e.spec.Targets, func(t check.FuzzTarget) bool { return t.Name == n }) {
			var all []string
			for _, t := range e.spec.Targets {
				all = append(all, t.Name)
			}
			return check.Usagef("the %s suite has no fuzz target %q (targets: %s)", e.def.Name, n, strings.Join(all, ", "))
		}
	}
	for _, t := range e.targets {
		e.sum.Targets = append(e.sum.Targets, TargetSummary{Name: t.Name})
	}
	return nil
}

func offersAll(h adapter.Hello, ops []string) bool {
	for _, op := range ops {
		if !h.Offers(op) {
			return false
		}
	}
	return true
}

func (e *engine) dialOptions() adapter.Options {
	return adapter.Options{Timeout: e.o.Timeout, HelloArgs: e.hello}
}

// starter reaches an implementation: a program, a URL, a Go handler, or
// the built-in one in spec.Mode.
func starter(loaded *check.Loaded, spec check.Spec) (adapter.Starter, error) {
	switch {
	case len(spec.Argv) > 0:
		cfg := adapter.ProcessConfig{Argv: spec.Argv, Dir: spec.Dir, Env: loaded.ChildEnv(spec.Env, spec.UserEnv), Stderr: spec.Stderr}
		return func(ctx context.Context) (adapter.Conn, error) { return adapter.StartProcess(cfg) }, nil
	case spec.URL != "":
		h := &adapter.HTTP{URL: spec.URL}
		return func(ctx context.Context) (adapter.Conn, error) { return h, nil }, nil
	case spec.Handler != nil:
		return adapter.InProcess(spec.Handler), nil
	}
	h, err := loaded.Reference(spec.Mode)
	if err != nil {
		return nil, err
	}
	return adapter.InProcess(h), nil
}

// live returns the implementations still being fuzzed.
func (e *engine) live() []*implRun {
	var out []*implRun
	for _, ir := range e.impls {
		if ir.sum.Err == nil {
			out = append(out, ir)
		}
	}
	return out
}

// item is one input and what became of it.
type item struct {
	index  uint64
	t      *check.FuzzTarget
	ti     int // index of t in e.targets
	input  []byte
	name   string
	vec    Vector
	judged bool        // the vector was made and the reference passed it
	res    [][]verdict // per live implementation, what is kept of the vector's checks' results
	// refused is the first of the vector's checks the reference did not
	// pass, with refusedBy its verdict, counted when the item is
	// committed (RefusedByReference).
	refused   bool
	refusedBy verdict
	ready     chan struct{} // closed once prepared (generated when need be, its vector made and judged by the reference)
}

// verdict is what the fuzzer keeps of one check's result: what the failure
// key, a gap's comparison, shrinking and a finding's summary need, and
// never the answer whole, which may be 16 MiB: a batch of 256 inputs
// holds 256 of these per implementation.
type verdict struct {
	id      string
	status  check.Status
	level   check.Level
	outcome string // a passed may check's chosen outcome
	notRun  bool
	reason  string // cut to MaxReason bytes
	key     string // the failure key of a fail or an error (failureKeys)
	bug     string // the key without the level
	// expected and actual, cut as check.Clip cuts them, are for the summary.
	expected, actual string
	sum              [sha256.Size]byte // the SHA-256 of the whole actual answer
}

// MaxReason is the most of a failure's reason a verdict and a finding
// keep: it may quote what the implementation said.
const MaxReason = 1024

// failed reports whether v is a failure or an error that got a verdict.
func (v *verdict) failed() bool {
	return !v.notRun && (v.status == check.Fail || v.status == check.Error)
}

// verdictOf keeps what the fuzzer needs of r, the result of a check of
// vector name of target, and cuts r down to its verdict's size, so that the
// run holding r keeps no answer whole either.
func verdictOf(target, name string, r *check.Result) verdict {
	v := verdict{id: r.ID, status: r.Status, level: r.Level, outcome: r.Outcome, notRun: r.NotRun()}
	if v.failed() {
		v.key, v.bug = failureKeys(target, name, *r)
		v.expected, v.actual = check.Clip(r.Expected), check.Clip(r.Actual)
		v.sum = sha256.Sum256([]byte(r.Actual))
	}
	v.reason = check.ClipTo(r.Reason, MaxReason)
	r.Reason, r.Expected, r.Actual, r.Evidence = v.reason, "", "", check.Evidence{}
	return v
}

// generate makes input number it.index: the same seed and targets give
// the same input.
func (e *engine) generate(it *item) {
	r := rand.New(rand.NewPCG(e.o.Seed, it.index))
	w := r.IntN(e.weight)
	ti := 0
	for ; ti < len(e.targets)-1; ti++ {
		if w -= max(1, e.targets[ti].Weight); w < 0 {
			break
		}
	}
	t := e.targets[ti]
	in := t.Generate(r)
	if t.Input != check.FuzzValue && r.IntN(4) == 0 {
		in = Mutate(r, in, t.Input == check.FuzzText)
	}
	it.t, it.ti, it.input = t, ti, in
}

// vectorName names the vector of input for target t by their digest, so
// the same input always makes the same vector.
func vectorName(t *check.FuzzTarget, input []byte) string {
	h := sha256.New()
	h.Write([]byte(t.Name))
	h.Write([]byte{0})
	h.Write(input)
	return "fuzz-" + hex.EncodeToString(h.Sum(nil))[:12]
}

func sameHello(a, b adapter.Hello) bool {
	return a.Name == b.Name && a.Version == b.Version && slices.Equal(a.Ops, b.Ops)
}

// analyse counts an item's outcomes on each implementation, sets apart
// answers every implementation shares against the reference, and shrinks
// each new kind of divergence.
func (e *engine) analyse(ctx context.Context, it *item, impls []*implRun) {
	gap := make([]bool, len(it.vec.Checks))
	if len(impls) >= 2 {
		for c := range it.vec.Checks {
			first := it.res[0][c]
			gap[c] = first.status == check.Fail && !first.notRun && !slices.ContainsFunc(it.res, func(vs []verdict) bool {
				return vs[c].status != check.Fail || vs[c].notRun || vs[c].sum != first.sum
			})
			if gap[c] {
				e.gap(ctx, it, c, impls)
			}
		}
	}
	for k, ir := range impls {
		blocking, should, shrunk := false, false, false
		for c := range it.res[k] {
			v := &it.res[k][c]
			switch {
			case v.status == check.Pass && v.level == check.May:
				ir.sum.MayOutcomes[v.outcome]++
			case gap[c], !v.failed():
			default:
				if v.status == check.Fail && v.level == check.Should {
					should = true
				} else {
					blocking = true
				}
				// The vector's first failing check stands for the others,
				// which mostly fail for the same reason (a wrong canonical
				// text makes a wrong frame too).
				if !shrunk {
					e.diverged(ctx, ir, it, v)
					shrunk = true
				}
			}
		}
		if blocking {
			ir.sum.Divergent++
		} else if should {
			ir.sum.Should++
		}
	}
}

// admit counts a failure of kind key on the implementation named impl and
// says whether it is to be sent again and shrunk: its kind has not been
// shrunk often enough, the implementation has room for findings, and the
// run has not stopped. ik is the failure's key per implementation.
func (e *engine) admit(impl, key string) (ik string, ok bool) {
	ik = impl + "\x00" + key
	e.perKey[ik]++
	if e.shrunk[ik] >= maxPerKey || e.perImpl[impl] >= maxFindings || e.stopped() {
		return ik, false
	}
	e.shrunk[ik]++
	e.perImpl[impl]++
	return ik, true
}

// sameFailure returns the verdict of vs that fails as v does, nil if none:
// with v's key, or with the same bug at level must. So shrinking may drop
// what made v's check a may or a should (a must found that way is
// reported as one), never what made it a must.
func sameFailure(vs []verdict, v *verdict) *verdict {
	var same *verdict
	for i := range vs {
		w := &vs[i]
		switch {
		case !w.failed() || w.bug != v.bug:
		case w.level == check.Must:
			return w
		case w.key == v.key && same == nil:
			same = w
		}
	}
	return same
}

// diverged records that it failed v on ir, and shrinks it when its kind of
// failure has not been shrunk often enough yet. A divergence that does not
// happen again when the input is sent once more is a finding of its own,
// flaky, with the input as generated; one that cannot be sent again (the
// run was interrupted, the implementation went away) is kept as found.
func (e *engine) diverged(ctx context.Context, ir *implRun, it *item, v *verdict) {
	ik, ok := e.admit(ir.sum.Name, v.key)
	if !ok {
		return
	}
	same := func(vs []verdict) *verdict { return sameFailure(vs, v) }
	f := &Finding{
		Impls: []string{ir.sum.Name}, Target: it.t.Name, Name: it.name, Index: it.index, Input: it.input, Vector: it.vec,
		key: ik,
	}
	f.take(v)
	key := v.key // the key of the failure reported
	var j, rerun *item
	if ctx.Err() == nil {
		f.Input, j, rerun = e.shrink(ctx, it, []*implRun{ir}, func(j *item) bool { return same(j.res[0]) != nil })
	}
	switch {
	case j != nil:
		w := same(j.res[0])
		f.Name, f.Vector, key = j.name, j.vec, w.key
		f.take(w)
	case ctx.Err() != nil || rerun == nil || !rerun.judged || slices.ContainsFunc(rerun.res[0], func(r verdict) bool { return r.notRun }):
		// Not sent again: kept as it was found.
		f.Input = it.input
	default:
		f.Input, f.Flaky, f.Rerun = it.input, true, rerunText(rerun.res[0])
	}
	sig := key + " | " + Skeleton(f.Input)
	if f.Flaky {
		sig += " | flaky"
	}
	f.Signature = sig
	if _, ok := e.found[ir.sum.Name+"\x00"+sig]; ok {
		return
	}
	e.found[ir.sum.Name+"\x00"+sig] = f
	e.sum.Findings = append(e.sum.Findings, f)
}

// take fills f's check, level, status, reason and values from v.
func (f *Finding) take(v *verdict) {
	f.Check, f.Level, f.Status, f.Reason, f.Expected, f.Actual = v.id, v.level, v.status, v.reason, v.expected, v.actual
}

// rerunText says what a flaky divergence's input gave when sent again:
// every check passed, or the first that failed, and how.
func rerunText(vs []verdict) string {
	for _, v := range vs {
		if v.failed() {
			return fmt.Sprintf("%s (%s) %s: %s", v.status, v.level, v.id, v.reason)
		}
	}
	return "passed"
}

// gap shrinks an input on which every implementation gave the same wrong
// answer to check c, keeping inputs on which they still agree.
func (e *engine) gap(ctx context.Context, it *item, c int, impls []*implRun) {
	first := &it.res[0][c]
	key := first.key
	if e.gapFound[key] || len(e.sum.Gaps) >= maxFindings || e.stopped() {
		return
	}
	e.gapFound[key] = true
	var names []string
	for _, ir := range impls {
		names = append(names, ir.sum.Name)
	}
	g := &Finding{
		Impls: names, Target: it.t.Name, Name: it.name, Input: it.input, Index: it.index, Seen: 1, Vector: it.vec,
	}
	g.take(first)
	agree := func(j *item) *verdict {
		for ci := range j.vec.Checks {
			r0 := &j.res[0][ci]
			if r0.status != check.Fail || r0.notRun || r0.key != key {
				continue
			}
			if !slices.ContainsFunc(j.res, func(vs []verdict) bool { return vs[ci].status != check.Fail || vs[ci].notRun || vs[ci].sum != r0.sum }) {
				return r0
			}
		}
		return nil
	}
	if ctx.Err() == nil {
		in, j, _ := e.shrink(ctx, it, impls, func(j *item) bool { return agree(j) != nil })
		if j == nil && ctx.Err() == nil {
			return // they no longer agree on it
		}
		if j != nil {
			g.Input, g.Name, g.Vector = in, j.name, j.vec
			g.take(agree(j))
		}
	}
	g.Signature = key + " | " + Skeleton(g.Input)
	e.sum.Gaps = append(e.sum.Gaps, g)
}

// shrink returns the smallest input it finds, starting from it's, that
// still fails as keep says on impls, and its judged item; with it's input
// judged once more (rerun). When that re-run does not fail so, the input
// returned is it's and the item nil. At most Options.ShrinkBudget
// candidates are tried (see minimize); only the smallest candidate
// accepted so far is kept.
func (e *engine) shrink(ctx context.Context, it *item, impls []*implRun, keep func(*item) bool) (in []byte, best, rerun *item) {
	rerun = &item{index: it.index, t: it.t, ti: it.ti, input: it.input, name: it.name}
	e.judge(ctx, []*item{rerun}, impls)
	if !rerun.judged || !keep(rerun) {
		return it.input, nil, rerun
	}
	best = rerun
	accept := func(inputs [][]byte) []bool {
		items := make([]*item, len(inputs))
		for i, in := range inputs {
			items[i] = &item{index: it.index, t: it.t, ti: it.ti, input: in}
		}
		e.judge(ctx, items, impls)
		ok := make([]bool, len(items))
		for i, j := range items {
			if ok[i] = j.judged && keep(j); ok[i] && smaller(j.input, best.input) {
				best = j
			}
		}
		return ok
	}
	in = minimize(ctx, it.input, it.t.Input, e.o.ShrinkBudget, accept)
	if !bytes.Equal(in, best.input) {
		// minimize takes the smallest accepted candidate each time, so
		// this cannot happen; judged again rather than trusted.
		j := &item{index: it.index, t: it.t, ti: it.ti, input: in}
		if e.judge(ctx, []*item{j}, impls); !j.judged || !keep(j) {
			return best.input, best, rerun
		}
		best = j
	}
	return in, best, rerun
}

// errOut marks a problem with --out as a usage error.
func errOut(dir string, err error) error {
	return &check.UsageError{Err: fmt.Errorf("--out %s: %w", dir, err)}
}

var errForeign = errors.New("it holds files referee fuzz did not write; give an empty or new directory")

// errNotOurs says a corpus in --out is not as referee fuzz wrote it, so
// none of its files is removed.
var errNotOurs = errors.New("the corpus there is not as referee fuzz wrote it, and nothing of it is removed; give an empty or new directory")
