// Package cgphost is the cgp-host suite: Context Graph Protocol hosts and
// composers, tested through an adapter op (compose) while referee plays
// every provider, adversarial and honest, and records what each received.
package cgphost

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/refereehq/referee/adapter"
	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/protocols/cgp"
	"github.com/refereehq/referee/protocols/cgp/adversary"
)

// Name is the suite's name.
const Name = "cgp-host"

// Version is the suite's own version.
const Version = "1.0.0"

// OpCompose is the one op the suite sends.
const OpCompose = "compose"

// Goal is the goal of every query the suite has a host send: a provider
// that receives it has received the query payload.
const Goal = "referee cgp-host probe: how does the retry loop back off?"

// The bounds of the suite's own waiting.
const (
	// promptly is how long a composition may take where a rule says it
	// must not hang (H3, crash isolation): upstream's harness bound.
	promptly = 5 * time.Second
	// settleGrace is how long referee waits, after the host's reply, for
	// the stdio providers it started to end (the reference host's shutdown
	// grace), so that every line they were sent has been read.
	settleGrace = 2 * time.Second
)

// probe is the suite's query: upstream's probe_query, with referee's goal.
func probe(maxFrames, maxTokens uint32) cgp.ContextQuery {
	return cgp.ContextQuery{Goal: Goal, QueryText: cgp.Str("retry backoff"), MaxFrames: maxFrames, MaxTokens: maxTokens}
}

// member is one provider of a call, as a check designs it.
type member struct {
	id      string
	role    string // what it does, for the evidence
	via     string // its transport under --transport mixed
	spec    adversary.Spec
	token   string // the bearer credential the host is given for it
	subject bool   // a consent check's subject: no consent is given for it unless the call lists it
}

// call is one compose request a check makes.
type call struct {
	what     string // what it is, for the evidence ("", "with consent")
	members  []member
	query    cgp.ContextQuery
	consent  []string
	receipts []receiptArg
	roots    []string
}

// trip is a call made: its providers as served, the host's reply, and how
// long the host took.
type trip struct {
	call      call
	served    map[string]*adversary.Provider // by member id
	via       map[string]string              // the transport each member was reached over
	reply     *adapter.Reply
	comp      *composition // nil when the reply is an err or not the documented shape
	readErr   error        // why comp is nil
	elapsed   time.Duration
	unsettled int // stdio providers still running settleGrace after the reply
}

// env is what every check of a run shares: the transport chosen.
type env struct {
	transport string
}

// compose makes one call: it serves the call's providers on loopback,
// sends the host the compose request, waits for the stdio providers the
// host started to end, and returns what happened. A fault of the adapter
// (or a referee problem) is the returned outcome.
func (e *env) compose(ctx context.Context, s *check.Session, c call) (*trip, *check.Outcome) {
	srv, err := adversary.Start()
	if err != nil {
		o := check.Outcome{Status: check.Error, Reason: err.Error()}
		return nil, &o
	}
	defer srv.Close()
	t := &trip{call: c, served: map[string]*adversary.Provider{}, via: map[string]string{}}
	args := composeArgs{Query: c.query, Consent: slices.Clone(c.consent), Receipts: c.receipts, TrustedRoots: c.roots}
	if args.Consent == nil {
		args.Consent = []string{}
	}
	if args.Receipts == nil {
		args.Receipts = []receiptArg{}
	}
	if args.TrustedRoots == nil {
		args.TrustedRoots = []string{}
	}
	for _, m := range c.members {
		p := srv.Add(m.spec)
		t.served[m.id] = p
		via := m.via
		if e.transport != transportMixed {
			via = e.transport
		}
		t.via[m.id] = via
		arg := providerArg{ID: m.id, Transport: via}
		if via == transportStdio {
			self, err := selfPath()
			if err != nil {
				o := check.Outcome{Status: check.Error, Reason: err.Error()}
				return nil, &o
			}
			arg.Argv = []string{self, "serve", Name, "--provider", p.RelayURL()}
		} else {
			arg.URL, arg.Token = p.URL(), m.token
			// A host may treat every HTTP provider as egress, loopback
			// too (the reference host upstream does; C4 asks it only off
			// loopback): consent is recorded for each, but a consent
			// check's subject.
			if !m.subject && !slices.Contains(args.Consent, m.id) {
				args.Consent = append(args.Consent, m.id)
			}
		}
		args.Providers = append(args.Providers, arg)
	}
	start := time.Now()
	r, o, ok := check.Expect{Op: OpCompose, Args: args}.Reply(ctx, s)
	t.elapsed = time.Since(start)
	if !ok {
		return nil, &o
	}
	t.reply = r
	sctx, cancel := context.WithTimeout(ctx, settleGrace)
	if !srv.Settle(sctx) {
		t.unsettled = srv.OpenRelays()
	}
	cancel()
	if r.Err != nil {
		t.readErr = fmt.Errorf("the host answered err to compose: %s %s", r.Err.Code, r.Err.Message)
	} else {
		t.comp, t.readErr = readComposition(r.OK)
	}
	if t.comp != nil {
		t.readErr = t.phantoms()
		if t.readErr != nil {
			t.comp = nil
		}
	}
	return t, nil
}

// phantoms refuses a reply that names, as admitted or dropped, a frame no
// provider of the call served, or one served with another content_digest.
func (t *trip) phantoms() error {
	for _, refs := range [][]frameRef{t.comp.Admitted, t.comp.Dropped} {
		for _, f := range refs {
			served, ok := t.frame(f.ProviderID, f.FrameID)
			switch {
			case !ok:
				return fmt.Errorf("the reply names %s, a frame no provider served the host", f)
			case f.ContentDigest != nil && (served.ContentDigest == nil || *served.ContentDigest != *f.ContentDigest):
				return fmt.Errorf("the reply names %s with content_digest %s, not the one it was served with", f, *f.ContentDigest)
			}
		}
	}
	return nil
}

// frame returns a frame a provider of the call sent the host.
func (t *trip) frame(provider, id string) (cgp.ContextFrame, bool) {
	p := t.served[provider]
	if p == nil {
		return cgp.ContextFrame{}, false
	}
	for _, reply := range p.Sent() {
		for _, f := range reply {
			if f.ID == id {
				return f, true
			}
		}
	}
	return cgp.ContextFrame{}, false
}

// sentFrames returns every frame every provider of the call sent, as
// provider/frame names, each once.
func (t *trip) sentFrames() []string {
	var out []string
	for _, m := range t.call.members {
		for _, reply := range t.served[m.id].Sent() {
			for _, f := range reply {
				if n := m.id + "/" + f.ID; !slices.Contains(out, n) {
					out = append(out, n)
				}
			}
		}
	}
	return out
}

// judge gathers one check's findings over its calls.
type judge struct {
	problems []string
	trips    []*trip
}

func (j *judge) failf(format string, a ...any) {
	j.problems = append(j.problems, fmt.Sprintf(format, a...))
}

// read returns a trip's composition, or records why there is none.
func (j *judge) read(t *trip) *composition {
	j.trips = append(j.trips, t)
	if t.comp == nil {
		j.failf("%s%v", t.label(), t.readErr)
	}
	return t.comp
}

func (t *trip) label() string {
	if t.call.what == "" {
		return ""
	}
	return t.call.what + ": "
}

// result requires the host to report provider id with one of results.
func (j *judge) result(t *trip, c *composition, id string, results ...string) (outcomeRef, bool) {
	o, ok := c.outcome(id)
	switch {
	case !ok:
		j.failf("%sthe reply says nothing of provider %s (%s): want result %s", t.label(), id, t.role(id), strings.Join(results, " or "))
		return o, false
	case !slices.Contains(results, o.Result):
		j.failf("%sprovider %s (%s): the host said result %q, want %s", t.label(), id, t.role(id), o.Result, strings.Join(results, " or "))
		return o, false
	}
	return o, true
}

// excluded requires that no frame of provider id reached the prompt.
func (j *judge) excluded(t *trip, c *composition, id string) {
	if got := c.admittedFrom(id); len(got) > 0 {
		j.failf("%sprovider %s (%s): %d of its frames reached the prompt (%s)", t.label(), id, t.role(id), len(got), names(got))
	}
}

// admitted requires every frame provider id served to reach the prompt.
func (j *judge) admitted(t *trip, c *composition, id string) {
	for _, f := range t.served[id].Spec().Frames {
		if _, ok := c.admittedRef(id, f.ID); !ok {
			why := "it is in neither admitted nor dropped"
			if d, ok := c.droppedRef(id, f.ID); ok {
				why = "the host dropped it: " + d.Reason
			}
			j.failf("%sprovider %s (%s): frame %s did not reach the prompt (%s)", t.label(), id, t.role(id), f.ID, why)
		}
	}
}

// silent requires that provider id received no query payload: no query
// envelope, and no line holding the query's goal (C2).
func (j *judge) silent(t *trip, id string) {
	p := t.served[id]
	switch {
	case p.Queried():
		j.failf("%sprovider %s (%s) received a query envelope: the payload left before consent (see what it received)", t.label(), id, t.role(id))
	case p.Mentions(Goal):
		j.failf("%sprovider %s (%s) received the query's goal in a line that is not a query", t.label(), id, t.role(id))
	}
}

// refused requires of a composition that each provider of ids be reported
// result and contribute no frame.
func (j *judge) refused(t *trip, c *composition, result string, ids ...string) {
	for _, id := range ids {
		j.result(t, c, id, result)
		j.excluded(t, c, id)
	}
}

// took requires of a composition that each provider of ids be reported
// frames and have every frame it served admitted.
func (j *judge) took(t *trip, c *composition, ids ...string) {
	for _, id := range ids {
		j.result(t, c, id, "frames")
		j.admitted(t, c, id)
	}
}

// queried requires that provider id received a query.
func (j *judge) queried(t *trip, id string) {
	if !t.served[id].Queried() {
		j.failf("%sprovider %s (%s) received no query", t.label(), id, t.role(id))
	}
}

func (t *trip) role(id string) string {
	for _, m := range t.call.members {
		if m.id == id {
			return t.via[id] + ", " + m.role
		}
	}
	return "not a provider of this call"
}

func names(refs []frameRef) string {
	var out []string
	for _, f := range refs {
		out = append(out, f.String())
	}
	return strings.Join(out, ", ")
}

// outcome turns the findings into the check's verdict: a pass says what
// was seen; a failure lists every problem, then what each provider of each
// call received, line by line.
func (j *judge) outcome(doc, passed string) check.Outcome {
	if len(j.problems) == 0 {
		return check.Outcome{Status: check.Pass, Reason: passed}
	}
	reason := j.problems[0]
	if n := len(j.problems) - 1; n > 0 {
		reason += fmt.Sprintf(" (and %d more)", n)
	}
	o := check.Failed(reason, doc, strings.Join(j.problems, "\n"))
	for _, t := range j.trips {
		o.Notes = append(o.Notes, t.traffic()...)
	}
	return o
}

// maxNoteLine bounds each line a provider received, as the evidence shows it.
const maxNoteLine = 400

// traffic says, for each provider of the call, what the host said of it and
// every line it received, bearer credentials named rather than shown.
func (t *trip) traffic() []string {
	var notes []string
	tokens := map[string]string{}
	for _, m := range t.call.members {
		if m.token != "" {
			tokens[m.token] = "<" + m.id + "'s token>"
		}
	}
	hide := func(s string) string {
		for tok, name := range tokens {
			s = strings.ReplaceAll(s, tok, name)
		}
		return s
	}
	for _, m := range t.call.members {
		var b strings.Builder
		fmt.Fprintf(&b, "%sprovider %s (%s)", t.label(), m.id, t.role(m.id))
		if t.comp != nil {
			if o, ok := t.comp.outcome(m.id); ok {
				fmt.Fprintf(&b, ": the host said %s", o.Result)
				if len(o.Scopes) > 0 {
					fmt.Fprintf(&b, " %v", o.Scopes)
				}
				if o.Message != "" {
					fmt.Fprintf(&b, " (%s)", hide(check.ClipTo(o.Message, maxNoteLine)))
				}
			}
		}
		got := t.served[m.id].Received()
		fmt.Fprintf(&b, "; it received %d line(s)", len(got))
		if n := t.served[m.id].Unkept(); n > 0 {
			fmt.Fprintf(&b, " and %d more, not kept (past 4096 lines or 64 MiB)", n)
		}
		for i, r := range got {
			line := hide(check.ClipTo(string(r.Line), maxNoteLine))
			fmt.Fprintf(&b, "\n  %d. %s", i+1, line)
			if r.Auth != "" {
				fmt.Fprintf(&b, "  [Authorization: %s]", hide(r.Auth))
			}
			if r.Status != 0 {
				fmt.Fprintf(&b, "  [HTTP %d]", r.Status)
			}
		}
		notes = append(notes, b.String())
	}
	if t.unsettled > 0 {
		notes = append(notes, fmt.Sprintf("%s%d stdio provider(s) were still running %s after the host replied: the host did not stop them", t.label(), t.unsettled, settleGrace))
	}
	return notes
}
