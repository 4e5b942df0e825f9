//go:build unix

package report_test

// The HTML report in a real browser: headless Chromium driven over the
// DevTools protocol on a pipe (--remote-debugging-pipe: NUL-terminated
// JSON messages on file descriptors 3 and 4), with no dependency.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/report"
	"github.com/refereehq/referee/run"
	"github.com/refereehq/referee/suites/jcs"
)

// chromium finds the browser: $REFEREE_CHROMIUM, else chromium (Debian's
// package), chromium-browser or google-chrome on PATH.
func chromium(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("REFEREE_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no Chromium on PATH (Debian: apt-get install -y chromium; or set REFEREE_CHROMIUM): the HTML report is not tested in a browser")
	return ""
}

// browser is one headless Chromium and one page in it.
type browser struct {
	t       *testing.T
	cmd     *exec.Cmd
	in      io.WriteCloser // our end of the browser's fd 3
	session string

	mu      sync.Mutex
	nextID  int
	waiting map[int]chan message
	events  []message
	loaded  chan struct{} // a Page.loadEventFired arrived
	done    chan struct{} // the reader ended
}

type message struct {
	ID        int             `json:"id,omitempty"`
	Method    string          `json:"method,omitempty"`
	Params    json.RawMessage `json:"params,omitempty"`
	Result    json.RawMessage `json:"result,omitempty"`
	Error     *struct{ Message string }
	SessionID string `json:"sessionId,omitempty"`
}

func newBrowser(t *testing.T) *browser {
	bin := chromium(t)
	args := []string{"--headless", "--remote-debugging-pipe", "--disable-gpu", "--no-first-run", "--no-default-browser-check",
		"--disable-extensions", "--disable-background-networking", "--user-data-dir=" + t.TempDir(), "about:blank"}
	if os.Geteuid() == 0 {
		args = append(args, "--no-sandbox") // Chromium refuses its sandbox to root
	}
	cmdR, cmdW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, args...)
	cmd.ExtraFiles = []*os.File{cmdR, outW} // fd 3: what it reads; fd 4: what it writes
	// Chromium's own children inherit the pipes: the browser is a process
	// group, ended as one, and Wait does not wait on them for long.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.WaitDelay = 5 * time.Second
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Skipf("Chromium at %s does not start (%v): the HTML report is not tested in a browser", bin, err)
	}
	cmdR.Close()
	outW.Close()
	b := &browser{t: t, cmd: cmd, in: cmdW, waiting: map[int]chan message{}, loaded: make(chan struct{}, 8), done: make(chan struct{})}
	go b.read(outR)
	t.Cleanup(func() {
		b.in.Close() // Chromium exits when its pipe closes
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-exited
		}
		// Whatever of the group is left holds the reply pipe open.
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-b.done
		if t.Failed() {
			t.Logf("chromium stderr:\n%s", stderr.String())
		}
	})
	var target struct{ TargetID string }
	b.call("", "Target.createTarget", map[string]any{"url": "about:blank"}, &target)
	var attached struct{ SessionID string }
	b.call("", "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, &attached)
	b.session = attached.SessionID
	for _, domain := range []string{"Page", "Runtime", "Log", "Network"} {
		b.call(b.session, domain+".enable", nil, nil)
	}
	// The page has the focus, as a page a person reads does (the clipboard
	// is for a focused page only), however busy the machine.
	b.call(b.session, "Emulation.setFocusEmulationEnabled", map[string]any{"enabled": true}, nil)
	return b
}

// read routes the browser's messages: replies to their callers, events to
// the log; it ends when the browser closes its end.
func (b *browser) read(r io.ReadCloser) {
	defer close(b.done)
	defer r.Close()
	br := bufio.NewReader(r)
	for {
		line, err := br.ReadBytes(0)
		if err != nil {
			b.mu.Lock()
			for id, ch := range b.waiting {
				close(ch)
				delete(b.waiting, id)
			}
			b.mu.Unlock()
			return
		}
		var m message
		if json.Unmarshal(line[:len(line)-1], &m) != nil {
			continue
		}
		b.mu.Lock()
		if ch, ok := b.waiting[m.ID]; ok && m.ID != 0 {
			delete(b.waiting, m.ID)
			ch <- m
		} else if m.Method != "" {
			b.events = append(b.events, m)
			if m.Method == "Page.loadEventFired" {
				select {
				case b.loaded <- struct{}{}:
				default:
				}
			}
		}
		b.mu.Unlock()
	}
}

// call sends one command and decodes its result into out.
func (b *browser) call(session, method string, params any, out any) {
	b.t.Helper()
	b.mu.Lock()
	b.nextID++
	id := b.nextID
	ch := make(chan message, 1)
	b.waiting[id] = ch
	b.mu.Unlock()
	msg := map[string]any{"id": id, "method": method}
	if params != nil {
		msg["params"] = params
	}
	if session != "" {
		msg["sessionId"] = session
	}
	data, err := json.Marshal(msg)
	if err != nil {
		b.t.Fatal(err)
	}
	if _, err := b.in.Write(append(data, 0)); err != nil {
		b.t.Fatalf("%s: writing to chromium: %v", method, err)
	}
	select {
	case m, ok := <-ch:
		switch {
		case !ok:
			b.t.Fatalf("%s: chromium closed the pipe", method)
		case m.Error != nil:
			b.t.Fatalf("%s: %s", method, m.Error.Message)
		case out != nil:
			if err := json.Unmarshal(m.Result, out); err != nil {
				b.t.Fatalf("%s: %v", method, err)
			}
		}
	case <-time.After(30 * time.Second):
		b.t.Fatalf("%s: no reply from chromium in 30s", method)
	}
}

// open loads the page at path and waits for its load event.
func (b *browser) open(path string) string {
	b.t.Helper()
	abs, err := filepath.Abs(path)
	if err != nil {
		b.t.Fatal(err)
	}
	u := (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String()
	for len(b.loaded) > 0 {
		<-b.loaded
	}
	b.call(b.session, "Page.navigate", map[string]any{"url": u}, nil)
	select {
	case <-b.loaded:
	case <-time.After(30 * time.Second):
		b.t.Fatalf("%s did not load in 30s", u)
	}
	return u
}

// eval evaluates a JavaScript expression in the page (awaiting a promise)
// and decodes its value into out.
func (b *browser) eval(expr string, out any) {
	b.t.Helper()
	var r struct {
		Result struct {
			Value json.RawMessage
		}
		ExceptionDetails *struct {
			Text      string
			Exception struct{ Description string }
		}
	}
	b.call(b.session, "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true, "awaitPromise": true, "userGesture": true}, &r)
	if e := r.ExceptionDetails; e != nil {
		b.t.Fatalf("evaluating %s: %s %s", expr, e.Text, e.Exception.Description)
	}
	if out != nil {
		if err := json.Unmarshal(r.Result.Value, out); err != nil {
			b.t.Fatalf("evaluating %s: %v (value %s)", expr, err, r.Result.Value)
		}
	}
}

// click clicks the middle of the element sel selects, as a mouse would.
func (b *browser) click(sel string) {
	b.t.Helper()
	var at struct{ X, Y float64 }
	b.eval(fmt.Sprintf(`(() => { const e = document.querySelector(%q); e.scrollIntoView({block: "center"}); const r = e.getBoundingClientRect(); return {x: r.x + r.width / 2, y: r.y + r.height / 2}; })()`, sel), &at)
	for _, typ := range []string{"mousePressed", "mouseReleased"} {
		b.call(b.session, "Input.dispatchMouseEvent", map[string]any{"type": typ, "x": at.X, "y": at.Y, "button": "left", "clickCount": 1}, nil)
	}
}

// typeInto focuses the element sel selects and types text, as a keyboard would.
func (b *browser) typeInto(sel, text string) {
	b.t.Helper()
	b.eval(fmt.Sprintf(`document.querySelector(%q).focus()`, sel), nil)
	b.call(b.session, "Input.insertText", map[string]any{"text": text}, nil)
}

// problems lists what the page reported: console errors and warnings,
// uncaught exceptions, log entries (CSP violations among them), and any
// request for something other than the page itself.
func (b *browser) problems(page string) []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []string
	for _, e := range b.events {
		var p struct {
			Type             string
			Args             []struct{ Value any }
			ExceptionDetails struct {
				Text      string
				Exception struct{ Description string }
			}
			Entry   struct{ Level, Source, Text, URL string }
			Request struct{ URL string }
		}
		json.Unmarshal(e.Params, &p)
		switch e.Method {
		case "Runtime.consoleAPICalled":
			if p.Type == "error" || p.Type == "warning" || p.Type == "assert" {
				out = append(out, fmt.Sprintf("console.%s: %v", p.Type, p.Args))
			}
		case "Runtime.exceptionThrown":
			out = append(out, "exception: "+p.ExceptionDetails.Text+" "+p.ExceptionDetails.Exception.Description)
		case "Log.entryAdded":
			if p.Entry.Level == "error" || p.Entry.Level == "warning" {
				out = append(out, fmt.Sprintf("log %s (%s): %s %s", p.Entry.Level, p.Entry.Source, p.Entry.Text, p.Entry.URL))
			}
		case "Network.requestWillBeSent":
			if p.Request.URL != page {
				out = append(out, "request: "+p.Request.URL)
			}
		}
	}
	return out
}

func (b *browser) forget() {
	b.mu.Lock()
	b.events = nil
	b.mu.Unlock()
}

// jcsRun runs the jcs suite against its built-in implementation in a
// broken mode, so that the report has failures with evidence.
func jcsRun(t *testing.T, mode string) *report.Report {
	t.Helper()
	plan, err := run.Prepare(&jcs.Definition, check.Spec{Mode: mode}, run.Options{Tool: report.Tool{Name: "referee", Version: "test"}})
	if err != nil {
		t.Fatal(err)
	}
	return plan.Execute(context.Background()).Report
}

func writeFile(t *testing.T, name string, write func(w io.Writer) error) string {
	t.Helper()
	var b bytes.Buffer
	if err := write(&b); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestHTMLInBrowser loads a real report's page: no console error, no
// request, the counts of the JSON report, filters that hide what they
// should, a failing check's evidence on view, a copy button that copies.
func TestHTMLInBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("a browser test")
	}
	rep := jcsRun(t, "codepoint-order")
	// The report as a reader of the JSON sees it.
	data := writeFile(t, "report.json", func(w io.Writer) error { return report.WriteJSON(w, rep) })
	raw, err := os.ReadFile(data)
	if err != nil {
		t.Fatal(err)
	}
	want, err := report.Read(raw)
	if err != nil {
		t.Fatal(err)
	}
	if want.Counts.Fail == 0 || want.Counts.Pass == 0 {
		t.Fatalf("the broken mode gave counts %+v: want passes and failures", want.Counts)
	}
	page := writeFile(t, "report.html", func(w io.Writer) error { return report.WriteHTML(w, want) })

	b := newBrowser(t)
	u := b.open(page)

	// The summary: the JSON report's counts, and one element per check
	// (those of a collapsed entry included).
	var got struct {
		Summary map[string]string
		Elems   map[string]int
		Hidden  map[string]int
		Shown   string
	}
	b.eval(`(() => {
		const s = {}, e = {}, h = {};
		for (const k of ["pass", "fail", "warn", "not-checked", "error", "total"]) s[k] = document.getElementById("n-" + k).textContent;
		for (const c of document.querySelectorAll("#list .check")) {
			e[c.dataset.status] = (e[c.dataset.status] || 0) + 1;
			if (c.hidden) h[c.dataset.status] = (h[c.dataset.status] || 0) + 1;
		}
		return {summary: s, elems: e, hidden: h, shown: document.getElementById("shown").textContent};
	})()`, &got)
	n := want.Counts
	wantCounts := map[string]int{"pass": n.Pass, "fail": n.Fail, "warn": n.Warn, "not-checked": n.NotChecked, "error": n.Error}
	for k, v := range wantCounts {
		if got.Summary[k] != fmt.Sprint(v) || got.Elems[k] != v {
			t.Errorf("%s: the summary says %s, the page lists %d checks; the JSON report %d", k, got.Summary[k], got.Elems[k], v)
		}
	}
	if got.Summary["total"] != fmt.Sprint(len(want.Checks)) {
		t.Errorf("total %s, the JSON report has %d checks", got.Summary["total"], len(want.Checks))
	}
	// Passes start hidden, as there are failures.
	if got.Hidden["pass"] != n.Pass || got.Hidden["fail"] != 0 {
		t.Errorf("at first hidden: %v; want the %d passes only", got.Hidden, n.Pass)
	}
	if want := fmt.Sprintf("showing %d of %d checks", len(want.Checks)-n.Pass, len(want.Checks)); got.Shown != want {
		t.Errorf("the filter says %q, want %q", got.Shown, want)
	}

	// A failing check's evidence is on view: the byte the diff marks first
	// is the one at the reported offset, the repro and its button show.
	var fail report.Check
	for _, c := range want.Checks {
		if c.Status == "fail" && c.Evidence != nil && c.Evidence.Diff != nil && c.Evidence.Repro != "" {
			fail = c
			break
		}
	}
	if fail.ID == "" {
		t.Fatal("no failed check with a diff and a repro")
	}
	d := fail.Evidence.Diff
	var ev struct {
		Visible               bool
		Offset, First, Repro  string
		ButtonShown           bool
		ExpectedVisible, Open bool
	}
	b.eval(fmt.Sprintf(`(() => {
		const c = [...document.querySelectorAll("#list .check")].find(e => e.dataset.id === %q);
		const seen = e => !!e && e.getClientRects().length > 0;
		const first = c.querySelector(".hex .first"), repro = c.querySelector(".repro code"), btn = c.querySelector("button.copy");
		return {visible: seen(c), open: c.open, offset: c.querySelector(".offset").textContent, first: first.textContent,
			repro: repro.textContent, buttonShown: seen(btn), expectedVisible: seen(first) && seen(repro)};
	})()`, fail.ID), &ev)
	off := 2 * (d.Offset - d.WindowStart)
	if !ev.Visible || !ev.Open || !ev.ExpectedVisible || !ev.ButtonShown {
		t.Errorf("%s: shown %v, open %v, diff and repro shown %v, copy button shown %v", fail.ID, ev.Visible, ev.Open, ev.ExpectedVisible, ev.ButtonShown)
	}
	if ev.Offset != fmt.Sprint(d.Offset) || ev.First != d.ExpectedHex[off:off+2] || ev.Repro != fail.Evidence.Repro {
		t.Errorf("%s: offset %s first byte %s repro %q; the report: %d, %s, %q", fail.ID, ev.Offset, ev.First, ev.Repro, d.Offset, d.ExpectedHex[off:off+2], fail.Evidence.Repro)
	}

	// The copy button puts the repro line on the clipboard.
	b.call("", "Browser.grantPermissions", map[string]any{"permissions": []string{"clipboardReadWrite", "clipboardSanitizedWrite"}}, nil)
	btn := fmt.Sprintf(`#%s button.copy`, cssID(t, b, fail.ID))
	b.click(btn)
	var copied struct{ Label, Clip string }
	b.eval(fmt.Sprintf(`(async () => {
		const b = document.querySelector(%q);
		for (let i = 0; i < 100 && b.textContent === "copy"; i++) await new Promise(r => setTimeout(r, 10));
		return {label: b.textContent, clip: await navigator.clipboard.readText()};
	})()`, btn), &copied)
	if copied.Label != "copied" || copied.Clip != fail.Evidence.Repro {
		t.Errorf("after a click the button says %q and the clipboard holds %q; want %q", copied.Label, copied.Clip, fail.Evidence.Repro)
	}

	// Filters: a click on "failed" hides every failure and nothing else;
	// an ID prefix hides every other check.
	b.click(`input[name=status][value=fail]`)
	visible := func() map[string][]string {
		var ids map[string][]string
		b.eval(`(() => { const o = {}; for (const c of document.querySelectorAll("#list .check")) if (!c.hidden) (o[c.dataset.status] = o[c.dataset.status] || []).push(c.dataset.id); return o; })()`, &ids)
		return ids
	}
	after := visible()
	if len(after["fail"]) != 0 || len(after["pass"]) != 0 {
		t.Errorf("with failed and passed off, still shown: %d failures, %d passes", len(after["fail"]), len(after["pass"]))
	}
	if total := len(after["warn"]) + len(after["error"]) + len(after["not-checked"]); total != n.Warn+n.Error+n.NotChecked {
		t.Errorf("with failed off, %d other problems shown, want %d", total, n.Warn+n.Error+n.NotChecked)
	}
	b.click(`input[name=status][value=fail]`)
	b.click(`input[name=status][value=pass]`)
	prefix := fail.ID[:strings.LastIndexByte(fail.ID, '/')+1]
	b.typeInto(`input[name=prefix]`, prefix)
	shown := visible()
	var wantIDs, gotIDs []string
	for _, c := range want.Checks {
		if strings.HasPrefix(c.ID, prefix) {
			wantIDs = append(wantIDs, c.ID)
		}
	}
	for _, ids := range shown {
		gotIDs = append(gotIDs, ids...)
	}
	slices.Sort(wantIDs)
	slices.Sort(gotIDs)
	if !slices.Equal(gotIDs, wantIDs) {
		t.Errorf("prefix %s shows %d checks, want the %d it selects", prefix, len(gotIDs), len(wantIDs))
	}
	var label string
	b.eval(`document.getElementById("shown").textContent`, &label)
	if w := fmt.Sprintf("showing %d of %d checks", len(wantIDs), len(want.Checks)); label != w {
		t.Errorf("the filter says %q, want %q", label, w)
	}
	// The failure's entry lists every check that failed as it did, for the
	// same reason, each by its ID; a link to the last of them, with every
	// entry closed, opens its entry.
	var same []string
	for _, c := range want.Checks {
		if c.Status == fail.Status && c.Level == fail.Level && c.Reason == fail.Reason {
			same = append(same, c.ID)
		}
	}
	if len(same) < 2 {
		t.Fatalf("%s is the only check that failed for its reason: no collapsed entry to test", fail.ID)
	}
	var entry struct {
		IDs        []string
		Open, Link bool
	}
	b.eval(fmt.Sprintf(`(async () => {
		const e = [...document.querySelectorAll("#list .check")].find(c => c.dataset.id === %q).closest("#list > .same");
		if (!e) return {ids: [], open: false, link: false};
		const ids = [...e.querySelectorAll(".check")].map(c => c.dataset.id);
		document.querySelectorAll("details").forEach(d => { d.open = false; });
		location.hash = e.querySelector(".check:last-child").id;
		for (let i = 0; i < 100 && !e.open; i++) await new Promise(r => setTimeout(r, 10));
		return {ids: ids, open: e.open, link: true};
	})()`, fail.ID), &entry)
	if !slices.Equal(entry.IDs, same) || !entry.Open {
		t.Errorf("%s's entry lists %q (want %q); after a link to its last check it is open: %v", fail.ID, entry.IDs, same, entry.Open)
	}
	// An entry is hidden exactly when every check of it is.
	var entriesAgree bool
	b.eval(`[...document.querySelectorAll("#list > .same")].every(e => e.hidden === ![...e.querySelectorAll(".check")].some(c => !c.hidden))`, &entriesAgree)
	if !entriesAgree {
		t.Error("with an ID prefix, a collapsed entry is shown with none of its checks, or hidden with some")
	}
	if p := b.problems(u); len(p) > 0 {
		t.Errorf("the page reported problems:\n  %s", strings.Join(p, "\n  "))
	}

	// Without JavaScript: the summary, and every check, is there to read.
	b.forget()
	b.call(b.session, "Emulation.setScriptExecutionDisabled", map[string]any{"value": true}, nil)
	b.open(page)
	var static struct {
		Fail     string
		Hidden   int
		Form     bool
		Verdict  string
		Selected int
	}
	b.eval(`(() => ({fail: document.getElementById("n-fail").textContent, verdict: document.getElementById("verdict").textContent,
		hidden: [...document.querySelectorAll("#list > *")].filter(c => c.getClientRects().length === 0).length,
		form: document.getElementById("filters").getClientRects().length > 0}))()`, &static)
	if static.Fail != fmt.Sprint(n.Fail) || static.Hidden != 0 || static.Form || static.Verdict != "NOT CONFORMANT" {
		t.Errorf("without JavaScript: failed %s (want %d), %d checks hidden, filters shown %v, verdict %q", static.Fail, n.Fail, static.Hidden, static.Form, static.Verdict)
	}
	if p := b.problems(u); len(p) > 0 {
		t.Errorf("without JavaScript, the page reported problems:\n  %s", strings.Join(p, "\n  "))
	}
}

// cssID returns the element id of the check called id.
func cssID(t *testing.T, b *browser, id string) string {
	var anchor string
	b.eval(fmt.Sprintf(`[...document.querySelectorAll("#list .check")].find(e => e.dataset.id === %q).id`, id), &anchor)
	return anchor
}

// TestHTMLMatrixInBrowser: an honest and a broken implementation side by
// side; the disagreement filter leaves the checks on which they differ.
func TestHTMLMatrixInBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("a browser test")
	}
	honest, broken := jcsRun(t, ""), jcsRun(t, "codepoint-order")
	status := map[string]string{}
	for _, c := range honest.Checks {
		status[c.ID] = c.Status + c.Outcome
	}
	var differ []string
	for _, c := range broken.Checks {
		if status[c.ID] != c.Status+c.Outcome {
			differ = append(differ, c.ID)
		}
	}
	if len(differ) == 0 {
		t.Fatal("the broken mode differs nowhere")
	}
	page := writeFile(t, "matrix.html", func(w io.Writer) error {
		return report.WriteHTMLMatrix(w, []report.NamedReport{{Name: "honest", Report: honest}, {Name: "broken", Report: broken}})
	})
	b := newBrowser(t)
	u := b.open(page)
	var counts []map[string]string
	b.eval(`[...document.querySelectorAll("tr.impl")].map(r => ({name: r.dataset.name, fail: r.querySelector(".n-fail").textContent, pass: r.querySelector(".n-pass").textContent}))`, &counts)
	if len(counts) != 2 || counts[0]["pass"] != fmt.Sprint(honest.Counts.Pass) || counts[1]["fail"] != fmt.Sprint(broken.Counts.Fail) {
		t.Errorf("summary rows %v; honest passes %d, broken fails %d", counts, honest.Counts.Pass, broken.Counts.Fail)
	}
	b.click(`input[name=status][value=pass]`) // every status on
	b.click(`input[name=disagree]`)
	var shown []string
	b.eval(`[...document.querySelectorAll("#grid tr.check")].filter(r => !r.hidden).map(r => r.dataset.id)`, &shown)
	slices.Sort(shown)
	slices.Sort(differ)
	if !slices.Equal(shown, differ) {
		t.Errorf("only-disagreements shows %d rows, want the %d that differ:\n got %q\nwant %q", len(shown), len(differ), shown, differ)
	}
	if p := b.problems(u); len(p) > 0 {
		t.Errorf("the page reported problems:\n  %s", strings.Join(p, "\n  "))
	}
}

// TestBrowserHarnessSeesProblems: the harness the tests above rely on does
// report a script error, a blocked inline script and a request.
func TestBrowserHarnessSeesProblems(t *testing.T) {
	if testing.Short() {
		t.Skip("a browser test")
	}
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.html")
	html := `<!DOCTYPE html><html><head><meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'sha256-AAAA'"></head>
<body><img src="https://example.invalid/x.png"><script>console.error("boom")</script></body></html>`
	if err := os.WriteFile(bad, []byte(html), 0o644); err != nil {
		t.Fatal(err)
	}
	ok := filepath.Join(dir, "ok.html")
	if err := os.WriteFile(ok, []byte(`<!DOCTYPE html><html><body><script>console.error("boom")</script></body></html>`), 0o644); err != nil {
		t.Fatal(err)
	}
	b := newBrowser(t)
	u := b.open(bad)
	p := strings.Join(b.problems(u), "\n")
	if !strings.Contains(p, "Content Security Policy") {
		t.Errorf("a script the policy blocks went unseen:\n%s", p)
	}
	if !strings.Contains(p, "example.invalid") {
		t.Errorf("an image request (blocked or not) went unseen:\n%s", p)
	}
	b.forget()
	u = b.open(ok)
	if p := b.problems(u); !slices.ContainsFunc(p, func(s string) bool { return strings.Contains(s, "console.error") && strings.Contains(s, "boom") }) {
		t.Errorf("console.error went unseen: %q", p)
	}
}
