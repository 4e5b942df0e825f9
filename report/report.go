package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"slices"
	"strings"
	"time"

	"github.com/refereehq/referee/check"
)

// Format is the name and version of the JSON report format.
const Format = "referee-report/2"

// The exit codes of the contract.
const (
	ExitOK         = 0 // every selected must and may check passed or was not-checked, and at least one check was judged (passed, or failed at should level)
	ExitFailed     = 1 // a must or may check failed, a check ended in error, nothing was judged, or under strict a should check failed or a check was not-checked
	ExitUsage      = 2 // usage, configuration or corpus error
	ExitIncomplete = 3 // the implementation could not be started, or the run gave up
)

// Report is the referee-report/2 document.
type Report struct {
	Format         string         `json:"format"`
	Tool           Tool           `json:"tool"`
	Suite          Suite          `json:"suite"`
	Implementation Implementation `json:"implementation"`
	Started        string         `json:"started"`
	DurationMS     int64          `json:"duration_ms"`
	Complete       bool           `json:"complete"`
	Strict         bool           `json:"strict"`
	Conformant     bool           `json:"conformant"`
	Restarts       int            `json:"restarts"`
	CleanRestarts  int            `json:"clean_restarts,omitempty"`
	Shard          *Shard         `json:"shard,omitempty"` // a sharded run: the part of the selection it ran
	// Selection is what the run's --run and --skip patterns selected; nil
	// in a report of a referee that did not record it, and in a report
	// made by anything but the run pipeline (package run).
	Selection *Selection `json:"selection,omitempty"`
	// Rerun is the command that runs the same checks against the same
	// implementation, each word quoted for a shell, to which a repro adds
	// `--run ID`: referee run SUITE [--corpus DIR] [-- PROGRAM ...].
	Rerun    []string     `json:"rerun,omitempty"`
	Counts   check.Counts `json:"counts"`
	Baseline *Baseline    `json:"baseline,omitempty"`
	Checks   []Check      `json:"checks"`

	// lean, for the report of a compact run, is the run: its results are
	// the report's checks, made one at a time as they are written or read,
	// and Checks is nil until Full makes them.
	lean *check.Execution
	// about gives a lean report's checks, as they are made, their docs
	// and clauses (Describe).
	about About
}

// Shard names the part of a suite's selected checks a sharded run ran: those
// whose shard (run.ShardOf) is Index, of Count shards.
type Shard struct {
	Index int `json:"index"` // 1 to Count
	Count int `json:"count"`
}

// Selection records what a run's --run and --skip patterns selected of
// its suite (check.Select), before any sharding: what a merge of its
// shards must hold to be complete.
type Selection struct {
	Select      []string `json:"run"`          // the --run patterns, as given; none selects every check
	Skip        []string `json:"skip"`         // the --skip patterns, as given
	Checks      int      `json:"checks"`       // how many of the suite's checks they select
	SuiteChecks int      `json:"suite_checks"` // how many checks the suite has
}

// Equal reports whether s and o record the same selection (both nil, or
// the same patterns in the same order and the same counts).
func (s *Selection) Equal(o *Selection) bool {
	if s == nil || o == nil {
		return s == o
	}
	return slices.Equal(s.Select, o.Select) && slices.Equal(s.Skip, o.Skip) && s.Checks == o.Checks && s.SuiteChecks == o.SuiteChecks
}

// String is the selection as the flags that made it, and what it selected:
// "--skip 'jcs/grammar/**' (447 of 566 checks)".
func (s *Selection) String() string {
	if s == nil {
		return "no selection recorded"
	}
	var words []string
	for _, p := range s.Select {
		words = append(words, "--run "+quoteWord(p))
	}
	for _, p := range s.Skip {
		words = append(words, "--skip "+quoteWord(p))
	}
	if len(words) == 0 {
		words = append(words, "every check")
	}
	return fmt.Sprintf("%s (%d of %d checks)", strings.Join(words, " "), s.Checks, s.SuiteChecks)
}

// quoteWord quotes a pattern as a shell word when it holds more than
// letters, digits and / . _ -: a wildcard, a space, a quote.
func quoteWord(p string) string {
	for _, r := range p {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-", r)) {
			return "'" + strings.ReplaceAll(p, "'", `'\''`) + "'"
		}
	}
	return p
}

// Baseline sums up a run made with the implementation's known failures.
type Baseline struct {
	KnownFailing int `json:"known_failing"` // listed as failing, and failed
	KnownFlaky   int `json:"known_flaky"`   // listed as flaky, and failed
	Unexpected   int `json:"unexpected"`    // failed, not listed (a failed should check only under strict)
	Stale        int `json:"stale"`         // failing entries none of whose checks failed
	// StaleEntries are those entries, as "FILE:LINE PATTERN".
	StaleEntries []string `json:"stale_entries,omitempty"`
}

// Tool names the program that made the report.
type Tool struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Suite names the suite and the corpus it ran.
type Suite struct {
	Name         string `json:"name"`
	Version      string `json:"version,omitempty"`
	Corpus       string `json:"corpus"`
	CorpusDigest string `json:"corpus_digest"`
}

// Implementation describes what was tested and how referee reached it.
type Implementation struct {
	Name      string   `json:"name"`
	Version   string   `json:"version"`
	Ops       []string `json:"ops"`
	Transport string   `json:"transport"` // "stdio", "http" or "in-process"
	Command   []string `json:"command,omitempty"`
	URL       string   `json:"url,omitempty"`
	Mode      string   `json:"mode,omitempty"` // a built-in adapter's broken mode
}

// Check is one check's verdict in the report.
type Check struct {
	ID         string    `json:"id"`
	Status     string    `json:"status"`
	Level      string    `json:"level"`             // "must", "should" or "may"
	Outcome    string    `json:"outcome,omitempty"` // the outcome a passing may check chose: "output", "rejected"
	Doc        string    `json:"doc,omitempty"`     // what the check proves, in one sentence
	Clause     string    `json:"clause,omitempty"`  // the text the check rests on, with its source
	Reason     string    `json:"reason,omitempty"`
	Expected   *string   `json:"expected,omitempty"`
	Actual     *string   `json:"actual,omitempty"`
	Evidence   *Evidence `json:"evidence,omitempty"`
	Known      string    `json:"known,omitempty"` // "failing" or "flaky": the baseline lists it
	Stale      bool      `json:"stale,omitempty"` // listed as failing, yet it passed
	DurationMS float64   `json:"duration_ms"`
}

// Evidence is a non-pass check's evidence.
type Evidence struct {
	Diff      *check.Diff `json:"diff,omitempty"`
	Notes     []string    `json:"notes,omitempty"`
	Exchanges []Exchange  `json:"exchanges,omitempty"`
	Stderr    string      `json:"stderr,omitempty"`
	Repro     string      `json:"repro,omitempty"`
}

// Exchange is one request line and the reply line to it.
type Exchange struct {
	Request string `json:"request"`
	Reply   string `json:"reply,omitempty"`
}

// New builds the report of run. A failed should check is a warning: it
// blocks conformance only under strict, which makes not-checked results
// block too. A run with a baseline applied (check.ApplyBaseline) is judged
// against it: use WithBaseline.
//
// The report of a compact run (check.Options.Compact) is lean: it holds no
// check, so that a large run's verdicts are not held twice. WriteJSON and
// WriteText write its checks one at a time, All and Len read them, and Full
// makes Checks for code that reads them.
func New(tool Tool, suite Suite, impl Implementation, run *check.Execution, strict bool) *Report {
	r := &Report{
		Format:         Format,
		Tool:           tool,
		Suite:          suite,
		Implementation: impl,
		Started:        run.Started.UTC().Format(time.RFC3339),
		DurationMS:     run.Duration.Milliseconds(),
		Complete:       run.Complete,
		Strict:         strict,
		Restarts:       run.Restarts,
		CleanRestarts:  run.CleanRestarts,
		Counts:         run.Counts(),
	}
	if r.Implementation.Ops == nil {
		r.Implementation.Ops = []string{}
	}
	if run.Compact() {
		r.lean = run
	} else {
		r.Checks = checksOf(run)
	}
	r.Conformant = conformant(r.Complete, r.Strict, r.Counts)
	return r
}

// checksOf returns the report's checks of run's results.
func checksOf(run *check.Execution) []Check {
	checks := make([]Check, 0, run.Len())
	for _, res := range run.All() {
		checks = append(checks, checkOf(res))
	}
	return checks
}

// checkOf is the report's check of one result.
func checkOf(res check.Result) Check {
	level := res.Level
	if level == "" {
		level = check.Must
	}
	c := Check{
		ID:         res.ID,
		Status:     string(res.Status),
		Level:      string(level),
		Reason:     res.Reason,
		DurationMS: float64(res.Duration.Microseconds()) / 1000,
		Known:      res.Known,
		Stale:      res.Stale,
	}
	if res.Status == check.Pass && level == check.May {
		c.Outcome = res.Outcome
	}
	if res.Status == check.Fail {
		exp, act := res.Expected, res.Actual
		c.Expected, c.Actual = &exp, &act
	}
	if res.Failed() {
		e := res.Evidence
		ev := &Evidence{Diff: e.Diff, Notes: e.Notes, Stderr: e.Stderr, Repro: e.Repro}
		for _, x := range e.Exchanges {
			ev.Exchanges = append(ev.Exchanges, Exchange{Request: string(x.Request), Reply: string(x.Reply)})
		}
		c.Evidence = ev
	}
	return c
}

// Len returns the number of the report's checks.
func (r *Report) Len() int {
	if r.lean != nil {
		return r.lean.Len()
	}
	return len(r.Checks)
}

// All yields the report's checks with their indexes, in order: those it
// holds, or a lean report's, made one at a time.
func (r *Report) All() iter.Seq2[int, Check] {
	return func(yield func(int, Check) bool) {
		if r.lean == nil {
			for i, c := range r.Checks {
				if !yield(i, c) {
					return
				}
			}
			return
		}
		for i, res := range r.lean.All() {
			c := checkOf(res)
			if r.about != nil {
				c.Doc, c.Clause = r.about(c.ID)
			}
			if !yield(i, c) {
				return
			}
		}
	}
}

// Full returns r with Checks made, for code that reads them: a lean
// report's checks are made from its run once, and held from then on; any
// other report is returned as it is.
func (r *Report) Full() *Report {
	if r.lean != nil {
		r.Checks, r.lean = checksOf(r.lean), nil
		r.Describe(r.about)
	}
	return r
}

// About says what the check id proves and the clause it rests on, as its
// suite does (check.Check's Doc and Clause); "" for a check it does not know.
type About func(id string) (doc, clause string)

// Describe gives the report's checks their docs and clauses (Check.Doc and
// Check.Clause) from about, so that a page can show each check's
// requirement beside its verdict; nil leaves them as they are.
func (r *Report) Describe(about About) {
	if about == nil {
		return
	}
	r.about = about
	for i := range r.Checks {
		r.Checks[i].Doc, r.Checks[i].Clause = about(r.Checks[i].ID)
	}
}

// WithBaseline builds the report of a run judged against the
// implementation's baseline: listed failures do not block the exit code,
// unlisted ones and stale entries do. A failed should check is a warning:
// unexpected only under strict when unlisted, known when listed.
// conformant still means no failure.
func WithBaseline(tool Tool, suite Suite, impl Implementation, run *check.Execution, strict bool, stale []check.BaselineEntry) *Report {
	r := New(tool, suite, impl, run, strict)
	b := &Baseline{Stale: len(stale)}
	for _, e := range stale {
		b.StaleEntries = append(b.StaleEntries, e.Where+" "+e.Pattern.String())
	}
	for _, res := range run.All() {
		switch {
		case !res.Failed():
		case res.Known == check.KnownFailing:
			b.KnownFailing++
		case res.Known == check.KnownFlaky:
			b.KnownFlaky++
		case res.Blocks(strict):
			b.Unexpected++
		}
	}
	r.Baseline = b
	return r
}

// ExitCode applies the exit-code contract to the report, in this order:
// an incomplete run is ExitIncomplete; a failed must or may check or an
// error at any level (with a baseline: an unexpected failure or a stale
// entry) is ExitFailed; under strict, so is a failed should check (with a
// baseline: an unlisted one); so is a run where nothing was judged (no
// check passed or warned: every one not-checked), and under strict one
// with a not-checked check. A failed should check is a judged outcome: a
// run of warnings only is conformant without strict. Otherwise ExitOK: a run whose only
// failures are should checks (warnings) exits 0 without strict.
func (r *Report) ExitCode() int {
	switch {
	case !r.Complete:
		return ExitIncomplete
	case r.Baseline != nil && (r.Baseline.Unexpected > 0 || r.Baseline.Stale > 0):
		return ExitFailed
	case r.Baseline == nil && (r.Counts.Fail > 0 || r.Counts.Error > 0):
		return ExitFailed
	case r.Baseline == nil && r.Strict && r.Counts.Warn > 0:
		return ExitFailed // with a baseline, an unlisted warning under strict is unexpected
	case !judged(r.Counts) && !(r.Shard != nil && r.Len() == 0): // an empty shard fails nothing
		return ExitFailed
	case r.Strict && r.Counts.NotChecked > 0:
		return ExitFailed
	}
	return ExitOK
}

// WriteJSON writes the report as indented JSON; a lean report's checks are
// written one at a time, as they are made.
func WriteJSON(w io.Writer, r *Report) error {
	if r.lean == nil {
		return writeJSON(w, r)
	}
	// The report without its checks ends in "checks": null; its checks are
	// written in place of the null, each indented as it would be there.
	head := *r
	head.lean = nil
	var b bytes.Buffer
	if err := writeJSON(&b, &head); err != nil {
		return err
	}
	text, null := b.Bytes(), []byte(`"checks": null`)
	at := bytes.LastIndex(text, null)
	if at < 0 {
		return errors.New("report: no checks member to write the checks in (a bug in referee)")
	}
	before, after := text[:at], text[at+len(null):]
	bw := bufio.NewWriter(w)
	bw.Write(before)
	bw.WriteString(`"checks": [`)
	var one bytes.Buffer
	enc := newEncoder(&one, "    ")
	for i, c := range r.All() {
		one.Reset()
		if err := enc.Encode(c); err != nil {
			return err
		}
		if i > 0 {
			bw.WriteByte(',')
		}
		bw.WriteString("\n    ")
		bw.Write(bytes.TrimSuffix(one.Bytes(), []byte("\n")))
	}
	if r.Len() > 0 {
		bw.WriteString("\n  ")
	}
	bw.WriteByte(']')
	bw.Write(after)
	return bw.Flush()
}

// WriteNative writes a suite's native report document as indented JSON.
func WriteNative(w io.Writer, doc any) error { return writeJSON(w, doc) }

func writeJSON(w io.Writer, v any) error { return newEncoder(w, "").Encode(v) }

// newEncoder is the JSON encoder of referee's reports: two-space indent
// after prefix, and no HTML escaping (evidence keeps <, > and & as sent).
func newEncoder(w io.Writer, prefix string) *json.Encoder {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent(prefix, "  ")
	return enc
}
