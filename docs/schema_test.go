package docs_test

// These tests hold the documents in this directory to what referee does:
// every line of real transcripts validates against adapter-protocol.schema.json,
// the schema and referee's own reader agree on what a valid reply is, every
// report from real runs validates against report-format.schema.json and obeys
// the exit-code contract, the JUnit and text reports map the statuses as
// report-format.md says, and the examples in the pages run as shown.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/refereehq/referee/adapter"
	"github.com/refereehq/referee/canon"
	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/check/checktest"
	"github.com/refereehq/referee/corpus"
	"github.com/refereehq/referee/internal/cli"
	"github.com/refereehq/referee/run"
	"github.com/refereehq/referee/suites/jcs"
)

const (
	adapterSchema = "adapter-protocol.schema.json"
	reportSchema  = "report-format.schema.json"

	// childVar makes the test binary act as an adapter when referee starts it.
	childVar = "REFEREE_DOCS_CHILD"
	// helloVar and replyVar give the "fixture" child its hello reply and its
	// reply to every other request, verbatim.
	helloVar = "REFEREE_DOCS_HELLO"
	replyVar = "REFEREE_DOCS_REPLY"
)

func TestMain(m *testing.M) {
	switch mode := os.Getenv(childVar); mode {
	case "":
		dir, err := os.MkdirTemp("", "referee-docs-")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		scratch = dir
		code := m.Run()
		os.RemoveAll(dir)
		os.Exit(code)
	case "serve":
		os.Exit(cli.Main([]string{"serve", "jcs"}, os.Stdin, os.Stdout, os.Stderr))
	case "cgp":
		os.Exit(cli.Main([]string{"serve", "cgp"}, os.Stdin, os.Stdout, os.Stderr))
	case "cgp-crash":
		os.Exit(cli.Main([]string{"serve", "cgp", "--mode", "crash-on-query"}, os.Stdin, os.Stdout, os.Stderr))
	default:
		os.Exit(fakeAdapter(mode, os.Stdin, os.Stdout, os.Stderr))
	}
}

// fakeAdapter is a misbehaving jcs adapter:
//
//	flaky    answers err to every request, and "not json" to every 4th
//	crash    answers hello, then exits on the first request
//	noops    offers no ops
//	fixture  answers hello with $REFEREE_DOCS_HELLO and the rest with $REFEREE_DOCS_REPLY
func fakeAdapter(mode string, in io.Reader, out, log io.Writer) int {
	br := bufio.NewReaderSize(in, 1<<16)
	calls := 0
	for {
		line, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			var req struct {
				ID int64  `json:"id"`
				Op string `json:"op"`
			}
			if err := json.Unmarshal(line, &req); err != nil {
				fmt.Fprintf(log, "bad request line %q: %v\n", line, err)
				return 2
			}
			fmt.Fprintf(log, "request %d %s\n", req.ID, req.Op)
			reply := fmt.Sprintf(`{"id":%d,"err":{"code":"nope","message":"this adapter rejects everything"}}`, req.ID)
			switch {
			case req.Op == "hello" && mode == "noops":
				reply = `{"id":0,"ok":{"name":"docs-noops","version":"0","ops":[]}}`
			case req.Op == "hello" && mode == "fixture" && os.Getenv(helloVar) != "":
				reply = os.Getenv(helloVar)
			case req.Op == "hello":
				reply = `{"id":0,"ok":{"name":"docs-` + mode + `","version":"0","ops":["canonicalJson"]}}`
			case mode == "crash":
				return 3
			case mode == "fixture" && os.Getenv(replyVar) != "":
				reply = os.Getenv(replyVar)
			case mode == "flaky":
				if calls++; calls%4 == 0 {
					reply = "not json"
				}
			}
			if _, err := io.WriteString(out, reply+"\n"); err != nil {
				return 2
			}
		}
		if err != nil {
			return 0
		}
	}
}

// scratch is a directory the tests share, removed when they are done.
var scratch string

// overflowCorpus writes, once, a jcs corpus of one vector: the embedded
// corpus's jcs/rejects/overflow, as it is there. TestSchemaAgreesWithReferee
// runs that one check for each fixture, and loading this corpus costs
// nothing next to loading the whole embedded one each time.
var overflowCorpus = sync.OnceValues(func() (string, error) {
	c, err := jcs.Embedded()
	if err != nil {
		return "", err
	}
	raw, err := c.ReadFile(jcs.VectorsFile)
	if err != nil {
		return "", err
	}
	var doc struct {
		Format  string            `json:"format"`
		Vectors []json.RawMessage `json:"vectors"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		return "", fmt.Errorf("%s: %w", jcs.VectorsFile, err)
	}
	i := slices.IndexFunc(doc.Vectors, func(v json.RawMessage) bool {
		var named struct{ Name string }
		return json.Unmarshal(v, &named) == nil && named.Name == "rejects/overflow"
	})
	if i < 0 {
		return "", fmt.Errorf("%s: no vector rejects/overflow", jcs.VectorsFile)
	}
	doc.Vectors = doc.Vectors[i : i+1]
	one, err := json.Marshal(doc)
	if err != nil {
		return "", err
	}
	dir := filepath.Join(scratch, "overflow")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, jcs.VectorsFile), one, 0o644); err != nil {
		return "", err
	}
	if _, err := corpus.Lock(dir, corpus.DefaultMaxFileSize); err != nil {
		return "", err
	}
	return dir, nil
})

// exe is the test binary, started by referee as an adapter.
func exe(t *testing.T) string {
	t.Helper()
	p, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

type outcome struct {
	code           int
	stdout, stderr string
}

// referee runs the CLI in this process.
func referee(t *testing.T, args ...string) outcome {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := cli.Main(args, strings.NewReader(""), &stdout, &stderr)
	return outcome{code, stdout.String(), stderr.String()}
}

// schema compiles file, or the subschema at ptr ("#/$defs/x") within it. The
// compiler checks the schema itself against the 2020-12 metaschema.
func schema(t *testing.T, file, ptr string) *jsonschema.Schema {
	t.Helper()
	c := jsonschema.NewCompiler()
	s, err := c.Compile(file + ptr)
	if err != nil {
		t.Fatalf("compiling %s%s: %v", file, ptr, err)
	}
	return s
}

// validate reports whether text, one JSON value, validates against s.
func validate(t *testing.T, s *jsonschema.Schema, text string) error {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(strings.NewReader(text))
	if err != nil {
		t.Fatalf("not JSON: %v: %s", err, text)
	}
	return s.Validate(v)
}

// ---- adapter protocol ----

var traceRecord = regexp.MustCompile(`^([0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6}Z) (->|<-|!!|##) (.*)$`)

// checkTranscript validates every protocol line of a --trace file and checks
// that each request got exactly one reply with its id. It returns the number
// of requests other than hello.
func checkTranscript(t *testing.T, path string) int {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	all := schema(t, adapterSchema, "")
	defs := map[string]*jsonschema.Schema{}
	for _, d := range []string{"helloRequest", "request", "helloReply", "okReply", "errReply"} {
		defs[d] = schema(t, adapterSchema, "#/$defs/"+d)
	}
	requests := map[int64]string{}
	replies := map[int64]int{}
	var hellos, lines int
	for i, rec := range strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n") {
		m := traceRecord.FindStringSubmatch(rec)
		if m == nil {
			t.Errorf("%s:%d: not a transcript record: %q", path, i+1, rec)
			continue
		}
		dir, text := m[2], m[3]
		if dir != "->" && dir != "<-" {
			continue
		}
		lines++
		if err := validate(t, all, text); err != nil {
			t.Errorf("%s:%d: %s line does not validate: %v\n%s", path, i+1, dir, err, text)
			continue
		}
		var msg struct {
			ID  int64           `json:"id"`
			Op  string          `json:"op"`
			OK  json.RawMessage `json:"ok"`
			Err json.RawMessage `json:"err"`
		}
		if err := json.Unmarshal([]byte(text), &msg); err != nil {
			t.Fatal(err)
		}
		def := ""
		switch {
		case dir == "->" && msg.Op == "hello":
			def, hellos = "helloRequest", hellos+1
		case dir == "->":
			def = "request"
			if _, dup := requests[msg.ID]; dup {
				t.Errorf("%s:%d: request id %d sent twice", path, i+1, msg.ID)
			}
			requests[msg.ID] = msg.Op
		case msg.ID == 0:
			def = "helloReply"
		case msg.Err != nil:
			def, replies[msg.ID] = "errReply", replies[msg.ID]+1
		default:
			def, replies[msg.ID] = "okReply", replies[msg.ID]+1
		}
		if err := validate(t, defs[def], text); err != nil {
			t.Errorf("%s:%d: does not validate as %s: %v\n%s", path, i+1, def, err, text)
		}
	}
	if hellos == 0 {
		t.Errorf("%s: no hello request", path)
	}
	for id := range requests {
		if replies[id] != 1 {
			t.Errorf("%s: request %d got %d replies", path, id, replies[id])
		}
	}
	for id := range replies {
		if _, ok := requests[id]; !ok {
			t.Errorf("%s: reply %d answers no request", path, id)
		}
	}
	if lines == 0 {
		t.Errorf("%s: no protocol lines", path)
	}
	return len(requests)
}

// TestTranscriptsValidate runs the jcs suite through every transport with
// --trace and validates each line the transcript holds.
func TestTranscriptsValidate(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(adapter.ServeHTTP(mustReference(t, "")))
	t.Cleanup(srv.Close)
	cases := []struct {
		name    string
		needs   string // a program that must be on PATH
		adapter []string
	}{
		{"node example", "node", []string{"--", "node", "../examples/adapters/node/jcs.mjs"}},
		{"python example", "python3", []string{"--", "python3", "../examples/adapters/python/jcs.py"}},
		{"referee serve over stdio", "", []string{"--env", childVar + "=serve", "--", exe(t)}},
		{"referee serve over http", "", []string{"--url", srv.URL}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if tc.needs != "" {
				if _, err := exec.LookPath(tc.needs); err != nil {
					t.Skipf("%s is not on PATH", tc.needs)
				}
			}
			trace := filepath.Join(t.TempDir(), "trace.txt")
			args := append([]string{"run", "jcs", "--format", "json", "--trace", trace}, tc.adapter...)
			out := referee(t, args...)
			if out.code != 0 {
				t.Fatalf("exit %d, want 0\nstderr:\n%s", out.code, out.stderr)
			}
			rep := decodeReport(t, out.stdout)
			if n := checkTranscript(t, trace); n != len(rep.Checks) {
				t.Errorf("transcript holds %d requests, the report %d checks", n, len(rep.Checks))
			}
		})
	}
}

// Reply lines with the verdict referee's reader gives them. The schema must
// give the same one. Each is the reply to the run's first request, id 1.
var replyFixtures = []struct {
	name  string
	line  string
	valid bool
}{
	{"ok string", `{"id":1,"ok":"[1000]"}`, true},
	{"ok null", `{"id":1,"ok":null}`, true},
	{"ok object", `{"id":1,"ok":{"a":[1,2]}}`, true},
	{"err with code and message", `{"id":1,"err":{"code":"parse_error","message":"bad"}}`, true},
	{"err without code", `{"id":1,"err":{"message":"bad"}}`, true},
	{"err with null code", `{"id":1,"err":{"code":null,"message":"bad"}}`, true},
	{"empty err", `{"id":1,"err":{}}`, true},
	{"err with more members", `{"id":1,"err":{"code":"x","message":"bad","path":"/a/0"}}`, true},
	{"err with a non-string message", `{"id":1,"err":{"code":"x","message":7}}`, true},
	{"more reply members", `{"id":1,"ok":"x","took_ms":3}`, true},
	{"whitespace inside the line", `{ "id" : 1 , "ok" : "x" }`, true},
	{"members in another order", `{"ok":"x","id":1}`, true},
	{"neither ok nor err", `{"id":1}`, false},
	{"both ok and err", `{"id":1,"ok":"x","err":{"code":"x"}}`, false},
	{"no id", `{"ok":"x"}`, false},
	{"string id", `{"id":"1","ok":"x"}`, false},
	{"null id", `{"id":null,"err":{"code":"bad_request"}}`, false},
	{"err is a string", `{"id":1,"err":"boom"}`, false},
	{"err is null", `{"id":1,"err":null}`, false},
	{"err code is a number", `{"id":1,"err":{"code":42}}`, false},
	{"an array", `[1,"x"]`, false},
	{"a string", `"x"`, false},
}

// Hello reply lines with referee's verdict, against $defs/helloReply.
var helloFixtures = []struct {
	name  string
	line  string
	valid bool
}{
	{"every member", `{"id":0,"ok":{"name":"x","version":"1","ops":["canonicalJson"],"concurrency":2}}`, true},
	{"name and ops", `{"id":0,"ok":{"name":"x","ops":["canonicalJson"]}}`, true},
	{"name only", `{"id":0,"ok":{"name":"x"}}`, false},
	{"more members", `{"id":0,"ok":{"name":"x","version":"1","ops":["canonicalJson"],"vendor":"y"}}`, true},
	{"concurrency 0", `{"id":0,"ok":{"name":"x","ops":["canonicalJson"],"concurrency":0}}`, false},
	{"no name", `{"id":0,"ok":{"version":"1","ops":["canonicalJson"]}}`, false},
	{"empty name", `{"id":0,"ok":{"name":"","ops":["canonicalJson"]}}`, false},
	{"name is a number", `{"id":0,"ok":{"name":5,"ops":["canonicalJson"]}}`, false},
	{"version is a number", `{"id":0,"ok":{"name":"x","version":1,"ops":["canonicalJson"]}}`, false},
	{"ops is a string", `{"id":0,"ok":{"name":"x","ops":"canonicalJson"}}`, false},
	{"ops holds a number", `{"id":0,"ok":{"name":"x","ops":[1]}}`, false},
	{"negative concurrency", `{"id":0,"ok":{"name":"x","ops":["canonicalJson"],"concurrency":-1}}`, false},
	{"ok is a string", `{"id":0,"ok":"hello"}`, false},
	{"hello refused", `{"id":0,"err":{"code":"unsupported_protocol","message":"want referee-adapter/2"}}`, false},
}

// TestSchemaAgreesWithReferee feeds each fixture to referee from a real
// adapter process and requires the schema's verdict to match referee's. The
// run is of one check, jcs/rejects/overflow, from a corpus of that vector.
func TestSchemaAgreesWithReferee(t *testing.T) {
	t.Parallel()
	all := schema(t, adapterSchema, "")
	helloReply := schema(t, adapterSchema, "#/$defs/helloReply")
	overflow, err := overflowCorpus()
	if err != nil {
		t.Fatal(err)
	}
	for _, fx := range replyFixtures {
		t.Run("reply/"+fx.name, func(t *testing.T) {
			t.Parallel()
			if err := validate(t, all, fx.line); (err == nil) != fx.valid {
				t.Errorf("schema says valid=%v (%v), want %v", err == nil, err, fx.valid)
			}
			out := referee(t, "run", "jcs", "--format", "json", "--corpus", overflow, "--run", "jcs/rejects/overflow",
				"--env", childVar+"=fixture", "--env", replyVar+"="+fx.line, "--", exe(t))
			rep := decodeReport(t, out.stdout)
			if accepted := rep.Checks[0].Status != "error"; accepted != fx.valid {
				t.Errorf("referee accepted=%v (%s: %s), want %v", accepted, rep.Checks[0].Status, rep.Checks[0].Reason, fx.valid)
			}
		})
	}
	for _, fx := range helloFixtures {
		t.Run("hello/"+fx.name, func(t *testing.T) {
			t.Parallel()
			if err := validate(t, helloReply, fx.line); (err == nil) != fx.valid {
				t.Errorf("schema says valid=%v (%v), want %v", err == nil, err, fx.valid)
			}
			out := referee(t, "run", "jcs", "--format", "json", "--corpus", overflow, "--run", "jcs/rejects/overflow",
				"--env", childVar+"=fixture", "--env", helloVar+"="+fx.line, "--", exe(t))
			if accepted := out.code != 3; accepted != fx.valid {
				t.Errorf("referee accepted=%v (exit %d: %s), want %v", accepted, out.code, out.stderr, fx.valid)
			}
		})
	}
}

// TestSchemaRejectsMalformedMessages covers the requests, which referee
// writes itself, and replies that only the schema can judge.
func TestSchemaRejectsMalformedMessages(t *testing.T) {
	t.Parallel()
	all := schema(t, adapterSchema, "")
	cases := []struct {
		name, line string
		valid      bool
	}{
		{"hello request", `{"id":0,"op":"hello","args":{"protocol":"referee-adapter/1","suite":"jcs"}}`, true},
		{"request", `{"id":7,"op":"canonicalJson","args":{"value_text":"[1E3]"}}`, true},
		{"hello reply", `{"id":0,"ok":{"name":"x","version":"1","ops":["canonicalJson"],"concurrency":1}}`, true},
		{"refused hello", `{"id":0,"err":{"code":"unsupported_protocol"}}`, true},
		{"hello for another protocol", `{"id":0,"op":"hello","args":{"protocol":"referee-adapter/2","suite":"jcs"}}`, false},
		{"hello without suite", `{"id":0,"op":"hello","args":{"protocol":"referee-adapter/1"}}`, false},
		{"hello with id 1", `{"id":1,"op":"hello","args":{"protocol":"referee-adapter/1","suite":"jcs"}}`, false},
		{"request with id 0", `{"id":0,"op":"canonicalJson","args":{}}`, false},
		{"request without args", `{"id":7,"op":"canonicalJson"}`, false},
		{"request with array args", `{"id":7,"op":"canonicalJson","args":[1]}`, false},
		{"request with numeric op", `{"id":7,"op":7,"args":{}}`, false},
		{"request with a fourth member", `{"id":7,"op":"canonicalJson","args":{},"extra":1}`, false},
		{"ok reply with id 0 that is no hello", `{"id":0,"ok":"[1]"}`, false},
		{"negative id", `{"id":-1,"ok":"x"}`, false},
		{"fractional id", `{"id":1.5,"ok":"x"}`, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if err := validate(t, all, tc.line); (err == nil) != tc.valid {
				t.Errorf("valid=%v (%v), want %v", err == nil, err, tc.valid)
			}
		})
	}
}

// ---- reports ----

// The report as report-format.md documents it; decoded independently of
// package report so that a renamed member shows up here.
type docReport struct {
	Format         string `json:"format"`
	Implementation struct {
		Name      string   `json:"name"`
		Transport string   `json:"transport"`
		Command   []string `json:"command"`
	} `json:"implementation"`
	Suite struct {
		Name         string `json:"name"`
		Corpus       string `json:"corpus"`
		CorpusDigest string `json:"corpus_digest"`
	} `json:"suite"`
	Complete   bool `json:"complete"`
	Strict     bool `json:"strict"`
	Conformant bool `json:"conformant"`
	Restarts   int  `json:"restarts"`
	Counts     struct {
		Pass       int `json:"pass"`
		Fail       int `json:"fail"` // failed must and may checks
		Warn       int `json:"warn"` // failed should checks
		NotChecked int `json:"not_checked"`
		Error      int `json:"error"`
	} `json:"counts"`
	Baseline *struct {
		KnownFailing int `json:"known_failing"`
		KnownFlaky   int `json:"known_flaky"`
		Unexpected   int `json:"unexpected"`
		Stale        int `json:"stale"`
	} `json:"baseline"`
	Checks []docCheck `json:"checks"`
}

type docCheck struct {
	ID       string  `json:"id"`
	Status   string  `json:"status"`
	Level    string  `json:"level"`
	Outcome  string  `json:"outcome"`
	Known    string  `json:"known"`
	Stale    bool    `json:"stale"`
	Reason   string  `json:"reason"`
	Expected *string `json:"expected"`
	Actual   *string `json:"actual"`
	Evidence *struct {
		Diff *struct {
			Offset      int    `json:"offset"`
			ExpectedLen int    `json:"expected_len"`
			ActualLen   int    `json:"actual_len"`
			WindowStart int    `json:"window_start"`
			ExpectedHex string `json:"expected_hex"`
			ActualHex   string `json:"actual_hex"`
		} `json:"diff"`
		Notes     []string `json:"notes"`
		Exchanges []struct {
			Request string `json:"request"`
			Reply   string `json:"reply"`
		} `json:"exchanges"`
		Stderr string `json:"stderr"`
		Repro  string `json:"repro"`
	} `json:"evidence"`
}

func decodeReport(t *testing.T, text string) *docReport {
	t.Helper()
	var r docReport
	dec := json.NewDecoder(strings.NewReader(text))
	if err := dec.Decode(&r); err != nil {
		t.Fatalf("decoding the JSON report: %v\n%s", err, text)
	}
	if len(r.Checks) == 0 {
		t.Fatalf("report has no checks:\n%s", text)
	}
	return &r
}

// contract is the exit-code contract as report-format.md states it.
func contract(r *docReport) int {
	switch {
	case !r.Complete:
		return 3
	case r.Baseline != nil && (r.Baseline.Unexpected > 0 || r.Baseline.Stale > 0):
		return 1
	case r.Baseline == nil && (r.Counts.Fail > 0 || r.Counts.Error > 0):
		return 1
	case r.Baseline == nil && r.Strict && r.Counts.Warn > 0:
		return 1
	case r.Counts.Pass == 0 && r.Counts.Warn == 0: // nothing judged
		return 1
	case r.Strict && r.Counts.NotChecked > 0:
		return 1
	}
	return 0
}

func mustReference(t *testing.T, mode string) *jcs.Handler {
	t.Helper()
	h, err := jcs.Reference(mode)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// reportRuns are the runs whose reports are checked: an honest one, a broken
// mode, an adapter that cannot start, one that faults, one that gives up, one
// that offers nothing, and one over HTTP.
func reportRuns(t *testing.T, url string) []struct {
	name string
	args []string
	code int
	more func(t *testing.T, r *docReport)
} {
	self := exe(t)
	// A baseline: the failures of a broken mode, as referee writes them.
	baseline := filepath.Join(t.TempDir(), "known-failing.txt")
	if out := referee(t, "run", "jcs", "-q", "--mode", "codepoint-order", "--write-known-failing", baseline); out.code != 1 {
		t.Fatalf("writing the baseline: exit %d\n%s", out.code, out.stderr)
	}
	return []struct {
		name string
		args []string
		code int
		more func(t *testing.T, r *docReport)
	}{
		{"honest", []string{"run", "jcs"}, 0, func(t *testing.T, r *docReport) {
			if r.Counts.Pass != len(r.Checks) || !r.Conformant || r.Implementation.Transport != "in-process" {
				t.Errorf("want every check passed in-process and conformant: %+v", r.Counts)
			}
		}},
		{"broken mode", []string{"run", "jcs", "--mode", "codepoint-order"}, 1, func(t *testing.T, r *docReport) {
			if r.Counts.Fail == 0 {
				t.Error("codepoint-order failed nothing")
			}
			for _, c := range r.Checks {
				if c.Status == "fail" && (c.Evidence.Diff == nil || !strings.HasPrefix(c.Evidence.Repro, "referee run jcs --run ")) {
					t.Errorf("%s: want a diff and a referee repro", c.ID)
				}
			}
		}},
		{"unstartable adapter", []string{"run", "jcs", "--", "/nonexistent/program"}, 3, func(t *testing.T, r *docReport) {
			for _, c := range r.Checks {
				if c.Status != "error" || !strings.HasPrefix(c.Reason, "not run: the implementation could not be started: ") {
					t.Errorf("%s: %s %q, want an error, not run", c.ID, c.Status, c.Reason)
				}
			}
			if r.Complete || r.Implementation.Name != "" || r.Implementation.Transport != "stdio" {
				t.Errorf("want an incomplete run with no name: %+v", r.Implementation)
			}
		}},
		{"faulty adapter", []string{"run", "jcs", "--run", "jcs/rejects", "--run", "jcs/keys", "--env", childVar + "=flaky", "--", self}, 1, func(t *testing.T, r *docReport) {
			// Every fault but one at the very end is followed by a restart.
			if r.Counts.Error == 0 || r.Restarts < r.Counts.Error-1 || r.Restarts > r.Counts.Error || !r.Complete {
				t.Errorf("want errors, a restart after each, and a complete run: %+v restarts %d", r.Counts, r.Restarts)
			}
			for _, c := range r.Checks {
				if c.Status != "error" {
					continue
				}
				e := c.Evidence
				if len(e.Exchanges) != 1 || e.Exchanges[0].Reply != "not json" || !slices.Contains(e.Notes, `offending line: "not json"`) ||
					!strings.Contains(e.Stderr, "request ") || !strings.HasPrefix(e.Repro, `printf '%s\n' `) {
					t.Errorf("%s: evidence lacks the exchange, note, stderr or repro: %+v", c.ID, e)
				}
			}
		}},
		{"adapter gives up", []string{"run", "jcs", "--run", "jcs/keys", "--env", childVar + "=crash", "--", self}, 3, func(t *testing.T, r *docReport) {
			gaveUp := 0
			for _, c := range r.Checks {
				if strings.HasPrefix(c.Reason, "not run: adapter gave up after repeated faults (the last: ") {
					gaveUp++
				}
			}
			if r.Counts.Error != len(r.Checks) || gaveUp != len(r.Checks)-3 || r.Complete {
				t.Errorf("want 3 faults, the rest not run, incomplete: %+v, %d gave up", r.Counts, gaveUp)
			}
		}},
		{"adapter offers nothing", []string{"run", "jcs", "--run", "jcs/keys", "--env", childVar + "=noops", "--", self}, 1, func(t *testing.T, r *docReport) {
			for _, c := range r.Checks {
				if c.Status != "not-checked" || c.Reason != "adapter offers no canonicalJson" || c.Evidence != nil {
					t.Errorf("%s: %s %q", c.ID, c.Status, c.Reason)
				}
			}
		}},
		{"broken, with its baseline", []string{"run", "jcs", "--mode", "codepoint-order", "--known-failing", baseline}, 0, func(t *testing.T, r *docReport) {
			b := r.Baseline
			if b == nil || b.KnownFailing != r.Counts.Fail || b.KnownFailing == 0 || b.Unexpected != 0 || b.Stale != 0 || r.Conformant {
				t.Errorf("want every failure known, none unexpected, not conformant: %+v", b)
			}
			for _, c := range r.Checks {
				if (c.Status == "fail") != (c.Known == "failing") {
					t.Errorf("%s: %s, known %q", c.ID, c.Status, c.Known)
				}
			}
		}},
		{"honest, with a stale baseline", []string{"run", "jcs", "--known-failing", baseline}, 1, func(t *testing.T, r *docReport) {
			if b := r.Baseline; b == nil || b.Stale == 0 || b.Stale != b.Stale+b.KnownFailing || !r.Conformant {
				t.Errorf("want stale entries and a conformant run: %+v", r.Baseline)
			}
		}},
		{"http, broken, strict", []string{"run", "jcs", "--strict", "--url", url}, 1, func(t *testing.T, r *docReport) {
			if !r.Strict || r.Counts.Fail == 0 || r.Implementation.Transport != "http" {
				t.Errorf("want a strict http run with failures: %+v", r.Counts)
			}
		}},
		{"cgp provider", []string{"run", "cgp", "--env", childVar + "=cgp", "--", self}, 0, func(t *testing.T, r *docReport) {
			if r.Counts.Pass != 14 || r.Implementation.Name != "referee-docs" || r.Implementation.Transport != "stdio" {
				t.Errorf("want 14 passes from referee-docs over stdio: %+v %+v", r.Counts, r.Implementation)
			}
		}},
		{"cgp provider crashing", []string{"run", "cgp", "--env", childVar + "=cgp-crash", "--", self}, 1, func(t *testing.T, r *docReport) {
			if r.Counts.Fail+r.Counts.Warn != 12 || r.Counts.Pass != 2 { // failed should checks are counted apart, in warn
				t.Errorf("want 12 failed checks after the handshake: %+v", r.Counts)
			}
		}},
	}
}

// TestReports validates the JSON report of each run against the schema, and
// checks its counts, its diffs, the exit-code contract, and the text and
// JUnit reports of the same run.
func TestReports(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(adapter.ServeHTTP(mustReference(t, "go-float")))
	t.Cleanup(srv.Close)
	s := schema(t, reportSchema, "")
	for _, run := range reportRuns(t, srv.URL) {
		t.Run(run.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			jsonPath, junitPath := filepath.Join(dir, "report.json"), filepath.Join(dir, "report.xml")
			// The report flags go before any "--", after which the adapter's argv begins.
			args := append([]string{"--json", jsonPath, "--junit", junitPath}, run.args[2:]...)
			out := referee(t, append(slices.Clone(run.args[:2]), args...)...)
			if out.code != run.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", out.code, run.code, out.stdout, out.stderr)
			}
			raw, err := os.ReadFile(jsonPath)
			if err != nil {
				t.Fatal(err)
			}
			if err := validate(t, s, string(raw)); err != nil {
				t.Fatalf("the JSON report does not validate: %v", err)
			}
			r := decodeReport(t, string(raw))
			if got := contract(r); got != out.code {
				t.Errorf("exit %d, the contract says %d", out.code, got)
			}
			if r.Baseline == nil && r.Conformant != (out.code == 0) {
				t.Errorf("conformant %v with exit %d", r.Conformant, out.code)
			}
			if want := r.Complete && r.Counts.Fail == 0 && r.Counts.Error == 0 && (r.Counts.Pass > 0 || r.Counts.Warn > 0) && !(r.Strict && (r.Counts.NotChecked > 0 || r.Counts.Warn > 0)); r.Conformant != want {
				t.Errorf("conformant %v, the counts say %v", r.Conformant, want)
			}
			tally := map[string]int{}
			for _, c := range r.Checks {
				if c.Status == "fail" && c.Level == "should" {
					tally["warn"]++ // a failed should check is a warning
				} else {
					tally[c.Status]++
				}
				checkDiff(t, c)
			}
			if tally["pass"] != r.Counts.Pass || tally["fail"] != r.Counts.Fail || tally["warn"] != r.Counts.Warn ||
				tally["not-checked"] != r.Counts.NotChecked || tally["error"] != r.Counts.Error {
				t.Errorf("counts %+v, checks say %v", r.Counts, tally)
			}
			run.more(t, r)
			checkText(t, out.stdout, r)
			junit, err := os.ReadFile(junitPath)
			if err != nil {
				t.Fatal(err)
			}
			checkJUnit(t, junit, r)
		})
	}
}

// checkDiff recomputes a fail's diff from its expected and actual texts.
func checkDiff(t *testing.T, c docCheck) {
	t.Helper()
	if c.Evidence == nil || c.Evidence.Diff == nil {
		return
	}
	d, exp, act := c.Evidence.Diff, []byte(*c.Expected), []byte(*c.Actual)
	off := 0
	for off < len(exp) && off < len(act) && exp[off] == act[off] {
		off++
	}
	window := func(b []byte) string { return hex.EncodeToString(b[min(d.WindowStart, len(b)):min(off+24, len(b))]) }
	if d.Offset != off || d.ExpectedLen != len(exp) || d.ActualLen != len(act) || d.WindowStart != max(0, off-8) ||
		d.ExpectedHex != window(exp) || d.ActualHex != window(act) {
		t.Errorf("%s: diff %+v does not match expected %q and actual %q (first difference at %d)", c.ID, *d, exp, act, off)
	}
}

// summaryLine: the warnings are counted only when there are any.
var summaryLine = regexp.MustCompile(`^([0-9]+) passed, ([0-9]+) failed(?:, ([1-9][0-9]*) warnings)?, ([0-9]+) not checked, ([0-9]+) errors$`)

// checkText checks the text report: one line per check, the summary line and
// the verdict, and no colour when stdout is not a terminal.
func checkText(t *testing.T, text string, r *docReport) {
	t.Helper()
	if strings.Contains(text, "\x1b[") {
		t.Error("text report has ANSI colour, but stdout is not a terminal")
	}
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if len(lines) < 4 || !strings.HasPrefix(lines[0], "referee ") || !strings.HasPrefix(lines[1], "implementation: ") {
		t.Fatalf("text report does not open with its two header lines:\n%s", text)
	}
	tags := map[string]string{"pass": "PASS  ", "fail": "FAIL  ", "not-checked": "NOT CHECKED ", "error": "ERROR "}
	var heads []string
	for _, l := range lines[2:] {
		if !strings.HasPrefix(l, " ") {
			heads = append(heads, l)
		}
	}
	const notStarted = "not run: the implementation could not be started: "
	checks := r.Checks
	if !r.Complete && len(r.Checks) > 0 && strings.HasPrefix(r.Checks[0].Reason, notStarted) {
		// Every check ended the same way: one error line says why.
		cause := strings.TrimPrefix(r.Checks[0].Reason, notStarted)
		want := fmt.Sprintf("ERROR the implementation could not be started: %s; none of the %d checks ran", cause, len(r.Checks))
		if len(heads) == 0 || heads[0] != want {
			t.Errorf("the one error line: want %q, have %q", want, heads)
		}
		heads = heads[1:]
		for _, c := range r.Checks {
			if c.Reason != r.Checks[0].Reason {
				t.Errorf("%s: %q, unlike the other checks of an implementation that could not be started", c.ID, c.Reason)
			}
		}
		checks = nil
	}
	// Checks that ended the same way, for the same reason, are one entry:
	// the first one's line, with " and N more" after its ID (report-format.md).
	type entry struct {
		first docCheck
		more  int
	}
	var entries []*entry
	byKey := map[string]*entry{}
	for _, c := range checks {
		key := ""
		if c.Reason != "" && c.Status != "pass" && !c.Stale {
			level := c.Level
			if c.Status == "not-checked" {
				level = ""
			}
			key = c.Status + "|" + level + "|" + c.Known + "|" + c.Reason
		}
		if e := byKey[key]; e != nil && key != "" {
			e.more++
			continue
		}
		e := &entry{first: c}
		byKey[key] = e
		entries = append(entries, e)
	}
	for i, e := range entries {
		c := e.first
		want := tags[c.Status] + c.ID
		if c.Status == "fail" && c.Level == "should" {
			want = "WARN  " + c.ID
		}
		if c.Outcome != "" {
			want += " (" + c.Level + ": " + c.Outcome + ")"
		}
		switch {
		case c.Stale:
			want += " (stale: the baseline lists it as known-failing; remove it)"
		case c.Known != "" && (c.Status == "fail" || c.Status == "error"):
			want += " (known " + c.Known + ")"
		}
		if e.more > 0 {
			want += fmt.Sprintf(" and %d more", e.more)
		}
		if c.Reason != "" {
			want += "  " + c.Reason
		}
		if i >= len(heads) || heads[i] != want {
			t.Errorf("check line %d: want %q", i, want)
			break
		}
	}
	summaryAt := len(lines) - 2
	if b := r.Baseline; b != nil {
		want := fmt.Sprintf("baseline: %d known failing, %d known flaky, %d unexpected, %d stale", b.KnownFailing, b.KnownFlaky, b.Unexpected, b.Stale)
		if lines[len(lines)-2] != want {
			t.Errorf("baseline line %q, want %q", lines[len(lines)-2], want)
		}
		summaryAt--
	}
	m := summaryLine.FindStringSubmatch(lines[summaryAt])
	if m == nil {
		t.Fatalf("no summary line before the last line:\n%s", strings.Join(lines[max(0, len(lines)-3):], "\n"))
	}
	n := r.Counts
	warn := m[3]
	if warn == "" {
		warn = "0"
	}
	if m[1] != strconv.Itoa(n.Pass) || m[2] != strconv.Itoa(n.Fail) || warn != strconv.Itoa(n.Warn) || m[4] != strconv.Itoa(n.NotChecked) || m[5] != strconv.Itoa(n.Error) {
		t.Errorf("summary %q, counts %+v", m[0], n)
	}
	verdict := lines[len(lines)-1]
	switch {
	case !r.Complete:
		if !strings.HasPrefix(verdict, "INCOMPLETE: ") {
			t.Errorf("verdict %q, want INCOMPLETE", verdict)
		}
	case r.Baseline != nil && r.Conformant && r.Baseline.Stale > 0:
		if !strings.HasPrefix(verdict, "CONFORMANT, BUT THE BASELINE IS STALE: ") {
			t.Errorf("verdict %q, want a stale baseline", verdict)
		}
	case r.Baseline != nil && !r.Conformant && contract(r) == 0:
		if !strings.HasPrefix(verdict, "NOT CONFORMANT, AS THE BASELINE SAYS: ") {
			t.Errorf("verdict %q, want one that matches the baseline", verdict)
		}
	case r.Conformant:
		if !strings.HasPrefix(verdict, "CONFORMANT (") {
			t.Errorf("verdict %q, want CONFORMANT", verdict)
		}
	default:
		if !strings.HasPrefix(verdict, "NOT CONFORMANT (") {
			t.Errorf("verdict %q, want NOT CONFORMANT", verdict)
		}
	}
}

type junitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

type junitDoc struct {
	XMLName  xml.Name `xml:"testsuites"`
	Name     string   `xml:"name,attr"`
	Tests    int      `xml:"tests,attr"`
	Failures int      `xml:"failures,attr"`
	Errors   int      `xml:"errors,attr"`
	Skipped  int      `xml:"skipped,attr"`
	Suites   []struct {
		Name       string `xml:"name,attr"`
		Tests      int    `xml:"tests,attr"`
		Failures   int    `xml:"failures,attr"`
		Errors     int    `xml:"errors,attr"`
		Skipped    int    `xml:"skipped,attr"`
		Properties []struct {
			Name  string `xml:"name,attr"`
			Value string `xml:"value,attr"`
		} `xml:"properties>property"`
		Cases []struct {
			Name      string        `xml:"name,attr"`
			Classname string        `xml:"classname,attr"`
			Failure   *junitProblem `xml:"failure"`
			Error     *junitProblem `xml:"error"`
			Skipped   *junitProblem `xml:"skipped"`
			SystemOut string        `xml:"system-out"`
			SystemErr string        `xml:"system-err"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

// checkJUnit checks the mapping: fail is <failure>, error is <error>,
// not-checked is <skipped>, with the counts and properties on the suite.
func checkJUnit(t *testing.T, raw []byte, r *docReport) {
	t.Helper()
	var doc junitDoc
	if err := xml.Unmarshal(raw, &doc); err != nil {
		t.Fatalf("JUnit report: %v", err)
	}
	if doc.Name != "referee" || len(doc.Suites) != 1 {
		t.Fatalf("want <testsuites name=\"referee\"> around one <testsuite>, got %q with %d", doc.Name, len(doc.Suites))
	}
	s := doc.Suites[0]
	n := r.Counts
	stale := 0 // a stale pass is a JUnit failure: the run fails on it
	for _, c := range r.Checks {
		if c.Stale {
			stale++
		}
	}
	warn := 0 // a failed should check is a JUnit failure only under strict
	if r.Strict {
		warn = n.Warn
	}
	for _, got := range [][3]int{{doc.Tests, doc.Failures, doc.Errors}, {s.Tests, s.Failures, s.Errors}} {
		if got != [3]int{len(r.Checks), n.Fail + stale + warn, n.Error} {
			t.Errorf("JUnit tests/failures/errors %v, report %d/%d+%d+%d/%d", got, len(r.Checks), n.Fail, stale, warn, n.Error)
		}
	}
	if doc.Skipped != 0 || s.Skipped != n.NotChecked {
		t.Errorf("JUnit skipped: %d on testsuites (junit-10.xsd allows none), %d on testsuite; report %d", doc.Skipped, s.Skipped, n.NotChecked)
	}
	if s.Name != r.Suite.Name {
		t.Errorf("testsuite name %q, suite %q", s.Name, r.Suite.Name)
	}
	props := map[string]string{}
	for _, p := range s.Properties {
		props[p.Name] = p.Value
	}
	want := map[string]string{
		"format": r.Format, "corpus": r.Suite.Corpus, "corpus_digest": r.Suite.CorpusDigest,
		"complete": strconv.FormatBool(r.Complete), "conformant": strconv.FormatBool(r.Conformant),
	}
	for k, v := range want {
		if props[k] != v {
			t.Errorf("property %s = %q, want %q", k, props[k], v)
		}
	}
	for _, k := range []string{"tool", "implementation"} {
		if props[k] == "" {
			t.Errorf("no property %s", k)
		}
	}
	if len(s.Cases) != len(r.Checks) {
		t.Fatalf("%d testcases for %d checks", len(s.Cases), len(r.Checks))
	}
	for i, c := range r.Checks {
		jc := s.Cases[i]
		cls := c.ID
		if j := strings.LastIndex(c.ID, "/"); j > 0 {
			cls = strings.ReplaceAll(c.ID[:j], "/", ".")
		}
		if jc.Name != c.ID || jc.Classname != cls {
			t.Errorf("testcase %d is %q (%s), want %q (%s)", i, jc.Name, jc.Classname, c.ID, cls)
		}
		got := "pass"
		var p *junitProblem
		switch {
		case jc.Failure != nil:
			got, p = "fail", jc.Failure
		case jc.Error != nil:
			got, p = "error", jc.Error
		case jc.Skipped != nil:
			got, p = "not-checked", jc.Skipped
		}
		if c.Stale && got == "fail" && p.Type == "stale" {
			continue
		}
		warning := c.Status == "fail" && c.Level == "should"
		if warning && !r.Strict {
			// A warning: a passed testcase that says why in its system-out.
			if got != "pass" || !strings.Contains(jc.SystemOut, "\nwarning: ") {
				t.Errorf("%s: a warning is %s in JUnit, system-out %q", c.ID, got, jc.SystemOut)
			}
			continue
		}
		if got != c.Status {
			t.Errorf("%s: JUnit says %s, report %s", c.ID, got, c.Status)
			continue
		}
		if p != nil && p.Message != c.Reason {
			t.Errorf("%s: message %q, reason %q", c.ID, p.Message, c.Reason)
		}
		wantType := c.Status
		if warning {
			wantType = "should"
		}
		if c.Known != "" {
			wantType += " (known " + c.Known + ")"
		}
		if (c.Status == "fail" || c.Status == "error") && p.Type != wantType {
			t.Errorf("%s: type %q, want %q", c.ID, p.Type, wantType)
		}
		if c.Status == "fail" && !strings.HasPrefix(p.Text, "expected: ") {
			t.Errorf("%s: failure text does not start with the expected value: %q", c.ID, p.Text)
		}
		if c.Evidence != nil && jc.SystemErr != c.Evidence.Stderr {
			t.Errorf("%s: system-err %q, stderr %q", c.ID, jc.SystemErr, c.Evidence.Stderr)
		}
	}
}

// TestReportSchemaRejectsMalformed breaks real reports one member at a time.
func TestReportSchemaRejectsMalformed(t *testing.T) {
	t.Parallel()
	s := schema(t, reportSchema, "")
	honest := referee(t, "run", "jcs", "--format", "json", "--run", "jcs/keys")
	broken := referee(t, "run", "jcs", "--format", "json", "--mode", "codepoint-order", "--run", "jcs/keys")
	for _, base := range []string{honest.stdout, broken.stdout} {
		if err := validate(t, s, base); err != nil {
			t.Fatalf("an unbroken report does not validate: %v", err)
		}
	}
	firstFail := func(r map[string]any) map[string]any {
		for _, c := range r["checks"].([]any) {
			if c := c.(map[string]any); c["status"] == "fail" {
				return c
			}
		}
		t.Fatal("no failed check")
		return nil
	}
	cases := []struct {
		name   string
		base   string
		mutate func(r map[string]any)
	}{
		{"no format", honest.stdout, func(r map[string]any) { delete(r, "format") }},
		{"format version 1", honest.stdout, func(r map[string]any) { r["format"] = "referee-report/1" }},
		{"no warn count", honest.stdout, func(r map[string]any) { delete(r["counts"].(map[string]any), "warn") }},
		{"unknown member", honest.stdout, func(r map[string]any) { r["verdict"] = "ok" }},
		{"status passed", honest.stdout, func(r map[string]any) { r["checks"].([]any)[0].(map[string]any)["status"] = "passed" }},
		{"count as a string", honest.stdout, func(r map[string]any) { r["counts"].(map[string]any)["pass"] = "10" }},
		{"no error count", honest.stdout, func(r map[string]any) { delete(r["counts"].(map[string]any), "error") }},
		{"no checks", honest.stdout, func(r map[string]any) { r["checks"] = []any{} }},
		{"check id with one segment", honest.stdout, func(r map[string]any) { r["checks"].([]any)[0].(map[string]any)["id"] = "ascii" }},
		{"pass with evidence", honest.stdout, func(r map[string]any) { r["checks"].([]any)[0].(map[string]any)["evidence"] = map[string]any{} }},
		{"negative duration", honest.stdout, func(r map[string]any) { r["duration_ms"] = -1 }},
		{"digest not sha256", honest.stdout, func(r map[string]any) { r["suite"].(map[string]any)["corpus_digest"] = "md5:00" }},
		{"unknown transport", honest.stdout, func(r map[string]any) { r["implementation"].(map[string]any)["transport"] = "grpc" }},
		{"stdio without command", honest.stdout, func(r map[string]any) { r["implementation"].(map[string]any)["transport"] = "stdio" }},
		{"clean run not conformant", honest.stdout, func(r map[string]any) { r["conformant"] = false }},
		{"incomplete but conformant", honest.stdout, func(r map[string]any) { r["complete"] = false }},
		{"conformant with a failure", broken.stdout, func(r map[string]any) { r["conformant"] = true }},
		// A warning is a judged outcome; a run that judged nothing is not conformant.
		{"warnings alone not conformant", honest.stdout, func(r map[string]any) {
			n := r["counts"].(map[string]any)
			n["warn"], n["pass"] = n["pass"], 0
			r["conformant"] = false
		}},
		{"nothing judged but conformant", honest.stdout, func(r map[string]any) {
			n := r["counts"].(map[string]any)
			n["not_checked"], n["pass"] = n["pass"], 0
		}},
		{"fail without expected", broken.stdout, func(r map[string]any) { delete(firstFail(r), "expected") }},
		{"fail without evidence", broken.stdout, func(r map[string]any) { delete(firstFail(r), "evidence") }},
		{"fail without reason", broken.stdout, func(r map[string]any) { delete(firstFail(r), "reason") }},
		{"not-checked with actual", broken.stdout, func(r map[string]any) {
			c := firstFail(r)
			c["status"], c["reason"] = "not-checked", "adapter offers no canonicalJson"
			delete(c, "evidence")
			delete(c, "expected")
		}},
		{"uppercase hex", broken.stdout, func(r map[string]any) {
			d := firstFail(r)["evidence"].(map[string]any)["diff"].(map[string]any)
			d["expected_hex"] = strings.ToUpper(d["expected_hex"].(string))
		}},
		{"diff without offset", broken.stdout, func(r map[string]any) {
			delete(firstFail(r)["evidence"].(map[string]any)["diff"].(map[string]any), "offset")
		}},
		{"an outcome not known", honest.stdout, func(r map[string]any) {
			c := r["checks"].([]any)[0].(map[string]any)
			c["level"], c["outcome"] = "may", "maybe"
		}},
		{"exchange without request", broken.stdout, func(r map[string]any) {
			delete(firstFail(r)["evidence"].(map[string]any)["exchanges"].([]any)[0].(map[string]any), "request")
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var r map[string]any
			if err := json.Unmarshal([]byte(tc.base), &r); err != nil {
				t.Fatal(err)
			}
			tc.mutate(r)
			b, err := json.Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			if err := validate(t, s, string(b)); err == nil {
				t.Errorf("a report with %s validates", tc.name)
			}
		})
	}
}

// TestReportFormatDocumentsEveryMember requires each member the report
// schema names to appear, in backticks, in report-format.md.
func TestReportFormatDocumentsEveryMember(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("report-format.md")
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(reportSchema)
	if err != nil {
		t.Fatal(err)
	}
	var walk func(v any)
	seen := map[string]bool{}
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if props, ok := v["properties"].(map[string]any); ok {
				for k := range props {
					seen[k] = true
				}
			}
			for _, x := range v {
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	var s any
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	walk(s)
	for k := range seen {
		if !bytes.Contains(doc, []byte("`"+k+"`")) {
			t.Errorf("report-format.md does not mention `%s`", k)
		}
	}
}

// ---- the examples in the pages ----

// TestPythonExample runs the adapter shown in adapter-protocol.md and checks
// the report the page describes.
func TestPythonExample(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not on PATH")
	}
	page, err := os.ReadFile("adapter-protocol.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)```python\n(.*?)```\n").FindSubmatch(page)
	if m == nil {
		t.Fatal("adapter-protocol.md has no python block")
	}
	if n := bytes.Count(m[1], []byte("\n")); n > 30 {
		t.Errorf("the example adapter is %d lines, want at most 30", n)
	}
	file := filepath.Join(t.TempDir(), "naive_jcs.py")
	if err := os.WriteFile(file, m[1], 0o644); err != nil {
		t.Fatal(err)
	}
	out := referee(t, "run", "jcs", "--format", "json", "--", "python3", file)
	r := decodeReport(t, out.stdout)
	// Input that is not UTF-8 goes to canonicalJsonBytes, which the example
	// does not offer: those checks, and only those, are not checked.
	if out.code != 1 || !r.Complete || r.Counts.Error != 0 || r.Counts.NotChecked != 22 {
		t.Fatalf("exit %d, counts %+v; want a complete run with failures only\n%s", out.code, r.Counts, out.stderr)
	}
	var failed, nesting []string
	groups := map[string]int{}
	for _, c := range r.Checks {
		switch {
		case c.Status == "not-checked" && !strings.HasPrefix(c.ID, "jcs/utf8/"):
			t.Errorf("%s not checked: %s", c.ID, c.Reason)
		case c.Status != "fail":
		case strings.HasPrefix(c.ID, "jcs/surrogates/"), strings.HasPrefix(c.ID, "jcs/appendix-b/"), strings.HasPrefix(c.ID, "jcs/scale/"), strings.HasPrefix(c.ID, "jcs/top-level/"):
			groups[strings.Split(c.ID, "/")[1]]++
		case strings.HasPrefix(c.ID, "jcs/nesting/"):
			nesting = append(nesting, c.ID)
		default:
			failed = append(failed, c.ID)
		}
	}
	// As adapter-protocol.md explains them: floats written with ".0" or in
	// Python's exponent form, exact big integers, code-point key order,
	// duplicate keys and lone surrogates accepted.
	want := []string{
		"jcs/numbers/zero-fraction", "jcs/numbers/minus-zero-exponent", "jcs/numbers/trailing-zeros",
		"jcs/numbers/exponent-integer", "jcs/numbers/million", "jcs/numbers/1e20", "jcs/numbers/below-1e21",
		"jcs/numbers/2-pow-68", "jcs/numbers/1e-6", "jcs/numbers/below-1e-6", "jcs/numbers/1e-7",
		"jcs/numbers/negative-small", "jcs/numbers/2-pow-53", "jcs/numbers/2-pow-53-plus-1", "jcs/numbers/large-integer",
		"jcs/numbers/top-level",
		"jcs/keys/utf16-vs-codepoint", "jcs/keys/utf16-private-use", "jcs/keys/utf16-ffff", "jcs/keys/utf16-fffd",
		"jcs/rejects/duplicate-key", "jcs/rejects/duplicate-key-nested", "jcs/rejects/duplicate-key-escaped",
		"jcs/rejects/lone-high-surrogate", "jcs/rejects/lone-low-surrogate", "jcs/rejects/lone-surrogate-key",
		"jcs/rejects/reversed-pair",
		"jcs/numbers/random/024", "jcs/numbers/random/154", "jcs/numbers/random/251",
	}
	slices.Sort(want)
	slices.Sort(failed)
	if !slices.Equal(failed, want) {
		t.Errorf("failed outside jcs/nesting:\n%s\nwant:\n%s", strings.Join(failed, "\n"), strings.Join(want, "\n"))
	}
	// The newer groups, as the page counts them: 15 broken surrogate shapes
	// and one uppercase pair's key order, 10 Appendix B values, the doubles,
	// the 500-member object and the long array of scale, and -0.0 and 1E3 alone.
	if fmt.Sprint(groups) != "map[appendix-b:10 scale:18 surrogates:16 top-level:2]" {
		t.Errorf("failures in the newer groups: %v", groups)
	}
	// Nesting beyond 64 is a may: Python's recursion limit rejects the
	// deepest vectors, which conforms.
	if len(nesting) > 0 {
		t.Errorf("nesting checks failed: %s", strings.Join(nesting, ", "))
	}
	warnings := ""
	if r.Counts.Warn > 0 {
		warnings = fmt.Sprintf(", %d warnings", r.Counts.Warn)
	}
	summary := fmt.Sprintf("%d passed, %d failed%s, %d not checked, %d errors", r.Counts.Pass, r.Counts.Fail, warnings, r.Counts.NotChecked, r.Counts.Error)
	if !bytes.Contains(page, []byte("\n"+summary+"\n")) {
		t.Errorf("adapter-protocol.md does not show the summary line %q", summary)
	}
}

// myHandler is the Handler of the Go example in adapter-protocol.md: a Go
// canonicaliser run in-process.
type myHandler struct{}

func (myHandler) Hello() adapter.Hello {
	return adapter.Hello{Name: "my-jcs", Version: "1.0.0", Ops: []string{"canonicalJson", "canonicalJsonBytes"}, Concurrency: 4}
}

func (myHandler) Handle(ctx context.Context, op string, args []byte) (json.RawMessage, *adapter.Error) {
	var a struct {
		ValueText string `json:"value_text"` // canonicalJson: the text
		ValueHex  string `json:"value_hex"`  // canonicalJsonBytes: bytes that may not be UTF-8
	}
	if (op != "canonicalJson" && op != "canonicalJsonBytes") || json.Unmarshal(args, &a) != nil {
		return nil, &adapter.Error{Code: "bad_request", Message: op}
	}
	input := []byte(a.ValueText)
	if op == "canonicalJsonBytes" {
		var err error
		if input, err = hex.DecodeString(a.ValueHex); err != nil {
			return nil, &adapter.Error{Code: "bad_request", Message: err.Error()}
		}
	}
	out, err := canon.JCS.Canonicalize(input, canon.ReadOptions{})
	if err != nil {
		return nil, &adapter.Error{Code: "parse_error", Message: err.Error()}
	}
	text, err := json.Marshal(string(out))
	if err != nil {
		return nil, &adapter.Error{Code: "internal", Message: err.Error()}
	}
	return text, nil
}

// TestConformance is the Go example in adapter-protocol.md, as it stands there.
func TestConformance(t *testing.T) {
	// The run pipeline, as referee run drives it: selection, baselines,
	// execution, the report and the verdict.
	plan, err := run.Prepare(&jcs.Definition, check.Spec{Handler: myHandler{}}, run.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res := plan.Execute(context.Background())
	for _, r := range res.Execution.Results {
		if r.Status != check.Pass {
			t.Errorf("%s: %s (%s): %s", r.ID, r.Status, r.Level, r.Reason)
		}
	}
	if code := res.ExitCode(); code != 0 {
		t.Errorf("exit status %d: %+v", code, res.Report.Counts)
	}
}

// TestGoExampleIsThisFile requires the Go example in adapter-protocol.md to
// be TestConformance above, character for character.
func TestGoExampleIsThisFile(t *testing.T) {
	page, err := os.ReadFile("adapter-protocol.md")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("schema_test.go")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)```go\n(func TestConformance[(].*?\n}\n)```").FindSubmatch(page)
	if m == nil {
		t.Fatal("adapter-protocol.md has no func TestConformance block")
	}
	if !bytes.Contains(src, m[1]) {
		t.Errorf("the Go example in adapter-protocol.md differs from TestConformance in schema_test.go:\n%s", m[1])
	}
}

// TestConformanceSubtests is the one-line form the page gives.
func TestConformanceSubtests(t *testing.T) {
	res := checktest.Suite(t, &jcs.Definition, check.Spec{Handler: myHandler{}}, run.Options{})
	if n := res.Execution.Counts(); n.Pass != len(res.Execution.Results) {
		t.Errorf("counts %+v", n)
	}
}

// TestSuitePage checks docs/suites/jcs.md against the suite: the size of
// each vector group and the list of broken modes.
func TestSuitePage(t *testing.T) {
	t.Parallel()
	page, err := os.ReadFile(filepath.Join("suites", "jcs.md"))
	if err != nil {
		t.Fatal(err)
	}
	list := referee(t, "list", "jcs")
	groups := map[string]int{}
	for _, l := range strings.Split(strings.TrimSpace(list.stdout), "\n") {
		id, _, _ := strings.Cut(l, "\t")
		groups[strings.Split(id, "/")[1]]++
	}
	rows := regexp.MustCompile("(?m)^\\| `jcs/([a-z0-9-]+)/` \\| ([0-9]+) \\|").FindAllSubmatch(page, -1)
	documented := map[string]int{}
	for _, row := range rows {
		n, _ := strconv.Atoi(string(row[2]))
		documented[string(row[1])] = n
	}
	if fmt.Sprint(documented) != fmt.Sprint(groups) {
		t.Errorf("jcs.md documents the groups %v, the suite has %v", documented, groups)
	}
	modes := referee(t, "list", "jcs", "--modes")
	for _, l := range strings.Split(strings.TrimSpace(modes.stdout), "\n") {
		name := strings.Fields(l)[0]
		if !bytes.Contains(page, []byte("| `"+name+"` |")) {
			t.Errorf("jcs.md does not list the broken mode %s", name)
		}
	}
}
