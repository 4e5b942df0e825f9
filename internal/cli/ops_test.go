package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/refereehq/referee/adapter"
	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/internal/golden"
	"github.com/refereehq/referee/internal/sharedtest"
	"github.com/refereehq/referee/run"
	"github.com/refereehq/referee/suites"
)

// opSchemas are one op's compiled schemas.
type opSchemas struct{ args, ok, err *jsonschema.Schema }

// compileOps compiles each of def's ops' schemas on its own, as a reader of
// the ops document would.
func compileOps(t *testing.T, def *check.Definition) map[string]opSchemas {
	t.Helper()
	ops, err := def.OpList()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]opSchemas{}
	for _, o := range ops {
		var s opSchemas
		for _, part := range []struct {
			what   string
			schema json.RawMessage
			into   **jsonschema.Schema
		}{{"args", o.Args, &s.args}, {"ok", o.OK, &s.ok}, {"err", o.Err, &s.err}} {
			doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(part.schema))
			if err != nil {
				t.Fatalf("%s %s %s: %v", def.Name, o.Name, part.what, err)
			}
			c := jsonschema.NewCompiler()
			c.DefaultDraft(jsonschema.Draft2020)
			url := fmt.Sprintf("mem:///%s/%s/%s.json", def.Name, o.Name, part.what)
			if err := c.AddResource(url, doc); err != nil {
				t.Fatalf("%s %s %s: %v", def.Name, o.Name, part.what, err)
			}
			if *part.into, err = c.Compile(url); err != nil {
				t.Fatalf("%s %s %s: %v", def.Name, o.Name, part.what, err)
			}
		}
		out[o.Name] = s
	}
	return out
}

// lockedBuffer is a buffer written from several goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// wireCall is one request of a trace and its reply.
type wireCall struct {
	op         string
	args       json.RawMessage
	ok, err    json.RawMessage
	hasReply   bool
	request    string
	replyFound string
}

// callsOf pairs the requests and replies of a trace by id, leaving out
// hello.
func callsOf(t *testing.T, trace []byte) []*wireCall {
	t.Helper()
	byID := map[int64]*wireCall{}
	var calls []*wireCall
	sc := bufio.NewScanner(bytes.NewReader(trace))
	sc.Buffer(nil, 1<<30)
	for sc.Scan() {
		f := strings.SplitN(sc.Text(), " ", 3)
		if len(f) < 3 || (f[1] != "->" && f[1] != "<-") {
			continue
		}
		var m struct {
			ID   int64           `json:"id"`
			Op   string          `json:"op"`
			Args json.RawMessage `json:"args"`
			OK   json.RawMessage `json:"ok"`
			Err  json.RawMessage `json:"err"`
		}
		if err := json.Unmarshal([]byte(f[2]), &m); err != nil {
			t.Fatalf("trace line %q: %v", f[2], err)
		}
		if m.ID == 0 {
			continue // hello
		}
		if f[1] == "->" {
			c := &wireCall{op: m.Op, args: m.Args, request: f[2]}
			if byID[m.ID] != nil {
				t.Fatalf("id %d sent twice", m.ID)
			}
			byID[m.ID] = c
			calls = append(calls, c)
			continue
		}
		c := byID[m.ID]
		if c == nil {
			t.Fatalf("reply to no request: %s", f[2])
		}
		c.ok, c.err, c.hasReply, c.replyFound = m.OK, m.Err, true, f[2]
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return calls
}

// opsRuns are the corpora each suite is run over: its embedded one, and
// those of ../shared when REFEREE_SHARED names it.
var opsRuns = map[string][]string{
	"cdc":         {"", "corpora/cdc"},
	"cgp-host":    {""},
	"cgp-vectors": {"", "corpora/cgp/contextgraph-1.0"},
	"crosslink":   {"", "corpora/crosslink"},
	"fablepool":   {"", "corpora/fablepool"},
	"jcs":         {"", "corpora/jcs"},
}

// Every request each suite sends in a full run against its built-in
// adapter, and every reply that adapter gives, validates against the
// schemas of the op the suite declares; the adapter offers exactly the
// declared ops, each is sent, and no args schema accepts {}.
func TestOpsHoldEveryRequestAndReply(t *testing.T) {
	if raceEnabled {
		// Full runs of six suites over their corpora, checked against
		// schemas: no concurrency of this package's own to watch, and
		// minutes under the race detector. The plain run holds them.
		t.Skip("schemas against full runs: left to the run without -race")
	}
	shared, haveShared := sharedtest.Lookup()
	for _, def := range suites.All() {
		if def.Live {
			if def.Ops != nil {
				t.Errorf("%s: a live suite declares adapter ops", def.Name)
			}
			continue
		}
		t.Run(def.Name, func(t *testing.T) {
			schemas := compileOps(t, def)
			if len(schemas) == 0 {
				t.Fatalf("%s talks to an adapter and declares no ops", def.Name)
			}
			empty, _ := jsonschema.UnmarshalJSON(strings.NewReader("{}"))
			for name, s := range schemas {
				if s.args.Validate(empty) == nil {
					t.Errorf("%s: the args schema accepts {}", name)
				}
			}
			corpora, ok := opsRuns[def.Name]
			if !ok {
				t.Fatalf("no corpora listed for %s in opsRuns", def.Name)
			}
			sent := map[string]int{}
			var requests, oks, errs int
			ranAll := true // every corpus listed, the shared ones too
			for _, dir := range corpora {
				if dir != "" {
					if !haveShared {
						ranAll = false
						continue
					}
					dir = filepath.Join(shared, dir)
				}
				var trace lockedBuffer
				plan, err := run.Prepare(def, check.Spec{}, run.Options{Corpus: dir, Trace: adapter.NewTrace(&trace), Timeout: 10 * time.Minute})
				if err != nil {
					t.Fatalf("corpus %q: %v", dir, err)
				}
				ref, err := plan.Loaded.Reference("")
				if err != nil {
					t.Fatal(err)
				}
				hello := ref.Hello().Ops
				if !slices.Equal(slices.Sorted(slices.Values(hello)), slices.Sorted(func(yield func(string) bool) {
					for n := range schemas {
						if !yield(n) {
							return
						}
					}
				})) {
					t.Errorf("the built-in adapter offers %v; the suite declares %d ops", hello, len(schemas))
				}
				res := plan.Execute(context.Background())
				if res.StartErr != nil {
					t.Fatalf("corpus %q: %v", dir, res.StartErr)
				}
				if d := os.Getenv("REFEREE_OPS_DUMP"); d != "" {
					_ = os.WriteFile(filepath.Join(d, def.Name+"-"+strings.ReplaceAll(dir, "/", "_")+".trace"), trace.b.Bytes(), 0o644)
				}
				calls := callsOf(t, trace.b.Bytes())
				if len(calls) == 0 {
					t.Fatalf("corpus %q: no request in the trace", dir)
				}
				for _, c := range calls {
					s, ok := schemas[c.op]
					if !ok {
						t.Errorf("op %q is sent but not declared: %.300s", c.op, c.request)
						continue
					}
					sent[c.op]++
					requests++
					failIfInvalid(t, s.args, c.args, "args of "+c.op, c.request)
					switch {
					case !c.hasReply:
						t.Errorf("no reply to %.300s", c.request)
					case c.err != nil:
						errs++
						failIfInvalid(t, s.err, c.err, "err of "+c.op, c.replyFound)
					default:
						oks++
						failIfInvalid(t, s.ok, c.ok, "ok of "+c.op, c.replyFound)
					}
				}
			}
			for name := range schemas {
				switch {
				case sent[name] > 0:
				case ranAll:
					t.Errorf("%s is declared and never sent", name)
				default:
					t.Logf("%s is not sent over the embedded corpus; without %s (the shared corpora) it is not checked", name, sharedtest.Var)
				}
			}
			t.Logf("%s: %d requests validated (%d ok replies, %d err replies); per op %v", def.Name, requests, oks, errs, sent)
		})
	}
}

func failIfInvalid(t *testing.T, s *jsonschema.Schema, value json.RawMessage, what, line string) {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(value))
	if err != nil {
		t.Errorf("%s: %v", what, err)
		return
	}
	if err := s.Validate(v); err != nil {
		t.Errorf("%s does not follow its schema: %v\n%.400s", what, err, line)
	}
}

// docs/suites/SUITE.ops.json is what `referee list SUITE --ops --format
// json` prints.
func TestOpsDocuments(t *testing.T) {
	for _, def := range suites.All() {
		if def.Ops == nil {
			continue
		}
		var out, stderr bytes.Buffer
		if code := Main([]string{"list", def.Name, "--ops", "--format", "json"}, strings.NewReader(""), &out, &stderr); code != 0 {
			t.Fatalf("referee list %s --ops --format json: exit %d\n%s", def.Name, code, stderr.String())
		}
		path := filepath.Join("..", "..", "docs", "suites", def.Name+".ops.json")
		golden.Check(t, path, out.Bytes())
		// Each schema compiles in place, by a pointer into the document,
		// as well as on its own (TestOpsHoldEveryRequestAndReply).
		var doc check.OpsDocument
		if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		c := jsonschema.NewCompiler()
		for name := range doc.Ops {
			for _, part := range []string{"args", "ok", "err"} {
				if _, err := c.Compile(path + "#/ops/" + name + "/" + part); err != nil {
					t.Errorf("%s#/ops/%s/%s: %v", path, name, part, err)
				}
			}
		}
	}
}

// The text form gives each op and its arguments in one line, its doc
// below; a live suite and --format without --ops are usage errors.
func TestListOpsText(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"list", "jcs", "--ops"}, 0, "canonicalJson(value_text: string)\n    Canonicalise JSON text by RFC 8785; reject what is not I-JSON.\ncanonicalJsonBytes(value_hex: string)\n"},
		{[]string{"list", "fablepool", "--ops"}, 0, "canonicalize(input: any | input_text: string)\n"},
		{[]string{"list", "cgp", "--ops"}, 2, "talks to no referee-adapter/1 adapter"},
		{[]string{"list", "jcs", "--format", "json"}, 2, "--format json needs --ops"},
		{[]string{"list", "jcs", "--ops", "--format", "yaml"}, 2, `--format "yaml": want text or json`},
		{[]string{"list", "--ops"}, 2, "need a suite"},
	} {
		var stdout, stderr bytes.Buffer
		code := Main(tc.args, strings.NewReader(""), &stdout, &stderr)
		if code != tc.code || !strings.Contains(stdout.String()+stderr.String(), tc.want) {
			t.Errorf("referee %s: exit %d, want %d and %q in:\n%s%s", strings.Join(tc.args, " "), code, tc.code, tc.want, stdout.String(), stderr.String())
		}
	}
}
