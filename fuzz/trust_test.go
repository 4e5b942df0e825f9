package fuzz_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/refereehq/referee/adapter"
	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/corpus"
	"github.com/refereehq/referee/fuzz"
	"github.com/refereehq/referee/report"
	"github.com/refereehq/referee/suites/jcs"
)

// jcsReference is the jcs suite's built-in implementation.
func jcsReference(t *testing.T) adapter.Handler {
	t.Helper()
	loaded, err := jcs.Definition.Load(check.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	h, err := loaded.Reference("")
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// liar answers as the jcs reference does, except when lie says so: then
// it answers a canonical text no input has. It records the inputs it lied
// on.
type liar struct {
	ref  adapter.Handler
	lie  func(input string) bool
	mu   sync.Mutex
	lied map[string]bool
}

func (l *liar) Hello() adapter.Hello {
	h := l.ref.Hello()
	h.Name = "liar"
	return h
}

func (l *liar) Handle(ctx context.Context, op string, args []byte) (json.RawMessage, *adapter.Error) {
	in := inputOf(args)
	l.mu.Lock()
	lie := l.lie(in)
	if lie {
		l.lied[in] = true
	}
	l.mu.Unlock()
	if lie {
		return json.RawMessage(`"lie"`), nil
	}
	return l.ref.Handle(ctx, op, args)
}

// inputOf is the input args carry: value_text, or value_hex decoded.
func inputOf(args []byte) string {
	var a struct {
		Text *string `json:"value_text"`
		Hex  string  `json:"value_hex"`
	}
	json.Unmarshal(args, &a)
	if a.Text != nil {
		return *a.Text
	}
	b, _ := hex.DecodeString(a.Hex)
	return string(b)
}

// TestFlakyIsAFinding: an implementation that answers wrongly and then,
// asked again, rightly, is never certified. Its divergence is a finding
// of its own, flaky, with the input as generated; it is written with
// --out and fails the run.
func TestFlakyIsAFinding(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		lie  func() func(string) bool
	}{
		{"lies on first sight", func() func(string) bool {
			seen := map[string]bool{}
			return func(args string) bool {
				first := !seen[args]
				seen[args] = true
				return first
			}
		}},
		{"lies at random", func() func(string) bool {
			r := rand.New(rand.NewPCG(24, 1))
			return func(string) bool { return r.IntN(5) == 0 }
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			l := &liar{ref: jcsReference(t), lie: tc.lie(), lied: map[string]bool{}}
			out := filepath.Join(t.TempDir(), "found")
			s, err := fuzz.Campaign(t.Context(), &jcs.Definition, []fuzz.Impl{{Spec: check.Spec{Handler: l}}}, fuzz.Options{Seed: 1, Count: 200, Out: out, Tool: tool})
			if err != nil {
				t.Fatal(err)
			}
			var text bytes.Buffer
			if err := fuzz.WriteText(&text, s, out); err != nil {
				t.Fatal(err)
			}
			if s.ExitCode() != report.ExitFailed {
				t.Errorf("exit %d, want 1 for an implementation that answered wrongly:\n%s", s.ExitCode(), text.String())
			}
			flaky := 0
			for _, f := range s.Findings {
				if !f.Flaky {
					continue
				}
				flaky++
				if !l.lied[string(f.Input)] {
					t.Errorf("flaky finding %s: input %q is not one it lied on (shrunk?)", f.Check, f.Input)
				}
				if f.Rerun != "passed" {
					t.Errorf("flaky finding %s: again %q, want passed", f.Check, f.Rerun)
				}
			}
			if flaky == 0 {
				t.Fatalf("no flaky finding:\n%s", text.String())
			}
			if strings.Contains(text.String(), "no divergence") || !strings.Contains(text.String(), "FLAKY FAIL (must)") {
				t.Errorf("the summary does not say so:\n%s", text.String())
			}
			prov := provenanceOf(t, out)
			written := 0
			for _, v := range prov.Vectors {
				if v.Flaky {
					written++
				}
			}
			if written != flaky {
				t.Errorf("%d flaky vectors in the provenance, want %d", written, flaky)
			}
		})
	}
}

// provenanceOf reads the fuzz provenance of the corpus in dir, which must
// verify.
func provenanceOf(t *testing.T, dir string) fuzz.Provenance {
	t.Helper()
	c, err := corpus.OpenDir(dir, corpus.DefaultMaxFileSize)
	if err != nil {
		t.Fatalf("the corpus written does not verify: %v", err)
	}
	var prov fuzz.Provenance
	for _, m := range c.Manifest.Meta {
		if m.Key == "fuzz" {
			if err := json.Unmarshal([]byte(m.Value.String()), &prov); err != nil {
				t.Fatal(err)
			}
		}
	}
	return prov
}

// manifestOf is a manifest a fuzz run could have written, listing files.
func manifestOf(files map[string]string) []byte {
	b, _ := json.Marshal(map[string]any{"files": files, "fuzz": map[string]any{"format": corpus.FuzzProvenanceFormat}})
	return b
}

func digestOf(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// TestOutNeverTouchesOutside: an --out whose manifest lists a path out of
// the directory, an absolute path, a file reached through a symlink, or a
// file edited since it was written is refused before the first input, and
// the file is left as it was.
func TestOutNeverTouchesOutside(t *testing.T) {
	t.Parallel()
	victim := []byte("the user's own file\n")
	for _, tc := range []struct {
		name string
		// make fills out (whose parent holds victim.txt) and returns the
		// path of the file that must be left alone.
		make func(t *testing.T, base, out string) string
	}{
		{"a path out of the directory", func(t *testing.T, base, out string) string {
			write(t, filepath.Join(out, "manifest.json"), manifestOf(map[string]string{"../victim.txt": digestOf(victim)}))
			return filepath.Join(base, "victim.txt")
		}},
		{"an absolute path", func(t *testing.T, base, out string) string {
			abs := filepath.ToSlash(filepath.Join(base, "victim.txt"))
			write(t, filepath.Join(out, "manifest.json"), manifestOf(map[string]string{abs: digestOf(victim)}))
			return filepath.Join(base, "victim.txt")
		}},
		{"a symlink out", func(t *testing.T, base, out string) string {
			if err := os.Symlink(filepath.Join(base, "victim.txt"), filepath.Join(out, "vectors.json")); err != nil {
				t.Skip(err)
			}
			write(t, filepath.Join(out, "manifest.json"), manifestOf(map[string]string{"vectors.json": digestOf(victim)}))
			return filepath.Join(base, "victim.txt")
		}},
		{"a directory symlinked out", func(t *testing.T, base, out string) string {
			if err := os.Symlink(base, filepath.Join(out, "sub")); err != nil {
				t.Skip(err)
			}
			write(t, filepath.Join(out, "manifest.json"), manifestOf(map[string]string{"sub/victim.txt": digestOf(victim)}))
			return filepath.Join(base, "victim.txt")
		}},
		{"a file edited since", func(t *testing.T, base, out string) string {
			write(t, filepath.Join(out, "vectors.json"), victim)
			write(t, filepath.Join(out, "manifest.json"), manifestOf(map[string]string{"vectors.json": digestOf([]byte("what fuzz wrote"))}))
			return filepath.Join(out, "vectors.json")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			base := t.TempDir()
			out := filepath.Join(base, "out")
			if err := os.Mkdir(out, 0o755); err != nil {
				t.Fatal(err)
			}
			write(t, filepath.Join(base, "victim.txt"), victim)
			kept := tc.make(t, base, out)
			// Every answer wrong: were --out taken, there would be a corpus to write.
			calls := &counter{h: &liar{ref: jcsReference(t), lie: func(string) bool { return true }, lied: map[string]bool{}}}
			s, err := fuzz.Campaign(t.Context(), &jcs.Definition, []fuzz.Impl{{Spec: check.Spec{Handler: calls}}}, fuzz.Options{Seed: 1, Count: 100, Out: out, Tool: tool, StopAfter: 1})
			var ue *check.UsageError
			if !errors.As(err, &ue) || s != nil {
				t.Errorf("not refused: %v", err)
			}
			if n := calls.n.Load(); n > 0 {
				t.Errorf("the implementation got %d inputs before --out was refused", n)
			}
			if b, err := os.ReadFile(kept); err != nil || !bytes.Equal(b, victim) {
				t.Errorf("%s: %q, %v; want it untouched", kept, b, err)
			}
		})
	}
}

func write(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// counter is a handler that counts the calls it gets besides hello.
type counter struct {
	h adapter.Handler
	n atomic.Int64
}

func (c *counter) Hello() adapter.Hello { return c.h.Hello() }

func (c *counter) Handle(ctx context.Context, op string, args []byte) (json.RawMessage, *adapter.Error) {
	c.n.Add(1)
	return c.h.Handle(ctx, op, args)
}

// TestUnwritableOutRefusedFirst: an --out that cannot be written is
// refused before the first input, as run refuses its outputs.
func TestUnwritableOutRefusedFirst(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	write(t, filepath.Join(base, "file"), []byte("x"))
	cases := []struct{ name, out, want string }{
		{"its directory does not exist", filepath.Join(base, "none", "out"), "does not exist"},
		{"it is a file", filepath.Join(base, "file"), "not a directory"},
		{"its directory is a file", filepath.Join(base, "file", "out"), "not a directory"},
	}
	if os.Getuid() != 0 {
		ro := filepath.Join(base, "ro")
		if err := os.Mkdir(ro, 0o555); err != nil {
			t.Fatal(err)
		}
		cases = append(cases, struct{ name, out, want string }{"its directory is read-only", filepath.Join(ro, "out"), "cannot write in"})
	} else if st, err := os.Stat("/sys/kernel"); err == nil && st.IsDir() {
		// root writes in a directory of mode 0555; nobody makes one in sysfs.
		cases = append(cases, struct{ name, out, want string }{"its directory is read-only", "/sys/kernel/referee-out", "cannot write in"})
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			calls := &counter{h: jcsReference(t)}
			s, err := fuzz.Campaign(t.Context(), &jcs.Definition, []fuzz.Impl{{Spec: check.Spec{Handler: calls}}}, fuzz.Options{Seed: 1, Count: 100, Out: tc.out, Tool: tool})
			var ue *check.UsageError
			if !errors.As(err, &ue) || !strings.Contains(err.Error(), tc.want) || s != nil {
				t.Errorf("got %v, want a usage error saying %q", err, tc.want)
			}
			if n := calls.n.Load(); n > 0 {
				t.Errorf("the implementation got %d inputs before --out was refused", n)
			}
		})
	}
}

// snapshot reads every file under dir.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		files[rel] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestFailedWriteKeepsCorpus: a write that fails (the disk is full) while
// a new corpus replaces an earlier one leaves the earlier one as it was,
// and nothing of the new one. Not parallel: it swaps the file writer.
func TestFailedWriteKeepsCorpus(t *testing.T) {
	for _, failing := range []string{"vectors.json", "manifest.json"} {
		t.Run(failing, func(t *testing.T) {
			out := t.TempDir()
			impl := []fuzz.Impl{{Spec: check.Spec{Mode: "go-float"}}}
			o := fuzz.Options{Seed: 1, Count: 3000, Out: out, Tool: tool, StopAfter: 1}
			if _, err := fuzz.Campaign(t.Context(), &jcs.Definition, impl, o); err != nil {
				t.Fatal(err)
			}
			before := snapshot(t, out)
			defer fuzz.SetWriteFile(func(path string, data []byte) error {
				if filepath.Base(path) == failing && strings.HasPrefix(path, out) {
					return &fs.PathError{Op: "write", Path: path, Err: syscall.ENOSPC}
				}
				return os.WriteFile(path, data, 0o644)
			})()
			o.Seed, o.StopAfter = 2, 2
			s, err := fuzz.Campaign(t.Context(), &jcs.Definition, impl, o)
			if err == nil || !strings.Contains(err.Error(), "no space left on device") {
				t.Fatalf("err = %v, want the write's failure", err)
			}
			if s == nil || len(s.Findings) == 0 {
				t.Fatalf("summary %+v: the second run found nothing to write", s)
			}
			after := snapshot(t, out)
			if len(after) != len(before) {
				t.Errorf("files before %v, after %v", keys(before), keys(after))
			}
			for f, b := range before {
				if after[f] != b {
					t.Errorf("%s changed or went (%d bytes, were %d)", f, len(after[f]), len(b))
				}
			}
			if _, err := corpus.OpenDir(out, corpus.DefaultMaxFileSize); err != nil {
				t.Errorf("the earlier corpus no longer verifies: %v", err)
			}
		})
	}
}

func keys(m map[string]string) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}

// TestInterrupted: a run whose context ends (SIGINT, SIGTERM) says it was
// interrupted and exits 3, whatever it found, and writes what it found.
func TestInterrupted(t *testing.T) {
	t.Parallel()
	t.Run("after a finding", func(t *testing.T) {
		t.Parallel()
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		out := filepath.Join(t.TempDir(), "found")
		o := fuzz.Options{Seed: 1, Count: 100_000, Out: out, Tool: tool, Progress: func(p fuzz.Progress) {
			if p.Findings > 0 {
				cancel()
			}
		}}
		s, err := fuzz.Campaign(ctx, &jcs.Definition, []fuzz.Impl{{Spec: check.Spec{Mode: "go-float"}}}, o)
		if err != nil {
			t.Fatal(err)
		}
		checkInterrupted(t, s, out)
	})
	t.Run("while shrinking", func(t *testing.T) {
		t.Parallel()
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		// Every answer is wrong; the first batch is 16 inputs, so the
		// 17th call sends the first divergence's input again, before it
		// is shrunk: that call is cut short.
		var calls atomic.Int64
		l := &liar{ref: jcsReference(t), lied: map[string]bool{}, lie: func(string) bool {
			if calls.Add(1) == 17 {
				cancel()
			}
			return true
		}}
		out := filepath.Join(t.TempDir(), "found")
		s, err := fuzz.Campaign(ctx, &jcs.Definition, []fuzz.Impl{{Spec: check.Spec{Handler: l}}}, fuzz.Options{Seed: 1, Count: 100_000, Out: out, Tool: tool})
		if err != nil {
			t.Fatal(err)
		}
		checkInterrupted(t, s, out)
	})
	t.Run("nothing found", func(t *testing.T) {
		t.Parallel()
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		o := fuzz.Options{Seed: 1, Count: 100_000, Tool: tool, Progress: func(fuzz.Progress) { cancel() }}
		s, err := fuzz.Campaign(ctx, &jcs.Definition, []fuzz.Impl{{Spec: check.Spec{}}}, o)
		if err != nil {
			t.Fatal(err)
		}
		var text bytes.Buffer
		if err := fuzz.WriteText(&text, s, ""); err != nil {
			t.Fatal(err)
		}
		if !s.Interrupted || s.ExitCode() != report.ExitIncomplete || len(s.Findings) != 0 {
			t.Errorf("interrupted %v, exit %d, %d findings; want true, 3, 0", s.Interrupted, s.ExitCode(), len(s.Findings))
		}
		if strings.Contains(text.String(), "no divergence") || !strings.Contains(text.String(), "INTERRUPTED after") {
			t.Errorf("the summary of an interrupted run:\n%s", text.String())
		}
	})
}

func checkInterrupted(t *testing.T, s *fuzz.Summary, out string) {
	t.Helper()
	var text bytes.Buffer
	if err := fuzz.WriteText(&text, s, out); err != nil {
		t.Fatal(err)
	}
	if !s.Interrupted || s.ExitCode() != report.ExitIncomplete || s.Inputs >= 100_000 {
		t.Errorf("interrupted %v, exit %d after %d inputs; want true and 3", s.Interrupted, s.ExitCode(), s.Inputs)
	}
	if len(s.Findings) == 0 || len(s.Written) == 0 {
		t.Fatalf("%d findings, %d files written; want what was found before the interruption:\n%s", len(s.Findings), len(s.Written), text.String())
	}
	if prov := provenanceOf(t, out); len(prov.Vectors) != len(s.Findings) {
		t.Errorf("%d vectors written, %d findings", len(prov.Vectors), len(s.Findings))
	}
	if !strings.Contains(text.String(), "INTERRUPTED after") {
		t.Errorf("the summary does not say it was interrupted:\n%s", text.String())
	}
}

// bigAnswers answers every input with a string of size bytes: a wrong
// canonical text each time. Every tenth call it measures the heap still
// in use, after a collection.
type bigAnswers struct {
	ref   adapter.Handler
	ok    json.RawMessage
	calls atomic.Int64
	peak  atomic.Uint64
}

// Hello says concurrency 2: the answers in flight are not what is measured.
func (b *bigAnswers) Hello() adapter.Hello {
	h := b.ref.Hello()
	h.Concurrency = 2
	return h
}

func (b *bigAnswers) Handle(context.Context, string, []byte) (json.RawMessage, *adapter.Error) {
	if b.calls.Add(1)%10 == 0 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		for p := b.peak.Load(); m.HeapAlloc > p && !b.peak.CompareAndSwap(p, m.HeapAlloc); p = b.peak.Load() {
		}
	}
	return b.ok, nil
}

// TestMemoryBounded: a batch of inputs answered with large wrong answers
// keeps none of them whole: the heap in use while a batch of 128 inputs,
// each answered with 512 KiB, is judged stays below half the 64 MiB those
// answers come to (about 15 MiB: the suite loaded, two answers in flight;
// 114 MiB when each result kept its answer and its reply line). Not
// parallel: it reads the process's heap.
func TestMemoryBounded(t *testing.T) {
	const size, count = 512 << 10, 128
	b := &bigAnswers{ref: jcsReference(t), ok: json.RawMessage(`"` + strings.Repeat("x", size) + `"`)}
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	base := m.HeapAlloc
	s, err := fuzz.Campaign(t.Context(), &jcs.Definition, []fuzz.Impl{{Spec: check.Spec{Handler: b}}}, fuzz.Options{Seed: 1, Count: count, Tool: tool, ShrinkBudget: 10})
	if err != nil {
		t.Fatal(err)
	}
	if s.Impls[0].Divergent == 0 {
		t.Fatalf("no divergence: %+v", s.Impls[0])
	}
	grew := int64(b.peak.Load()) - int64(base)
	t.Logf("heap in use grew by at most %d KiB over %d calls (each answer %d KiB)", grew>>10, b.calls.Load(), size>>10)
	if limit := int64(count * size / 2); grew > limit {
		t.Errorf("the heap in use grew by %d MiB while the inputs were judged: more than %d MiB, half the answers' %d MiB", grew>>20, limit>>20, count*size>>20)
	}
}

// TestNothingJudgedIsNoVerdict: a run that judged no input (its
// implementation could not be started, or its time ended before the first
// input) says so, exits 3, and never says "no divergence".
func TestNothingJudgedIsNoVerdict(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		impl check.Spec
		o    fuzz.Options
	}{
		{"not started", check.Spec{Argv: []string{filepath.Join(t.TempDir(), "no-such-adapter")}}, fuzz.Options{Seed: 1, Count: 50, Tool: tool}},
		{"no time", check.Spec{}, fuzz.Options{Seed: 1, Time: 1, Tool: tool}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := fuzz.Campaign(t.Context(), &jcs.Definition, []fuzz.Impl{{Spec: tc.impl}}, tc.o)
			if err != nil {
				t.Fatal(err)
			}
			var text bytes.Buffer
			if err := fuzz.WriteText(&text, s, ""); err != nil {
				t.Fatal(err)
			}
			if s.Judged != 0 || s.ExitCode() != report.ExitIncomplete || strings.Contains(text.String(), "no divergence") || !strings.Contains(text.String(), "NOTHING JUDGED") {
				t.Errorf("judged %d, exit %d:\n%s", s.Judged, s.ExitCode(), text.String())
			}
		})
	}
	// One implementation of two not driven: no verdict on it, and no
	// "no divergence" said of the run.
	s, err := fuzz.Campaign(t.Context(), &jcs.Definition, []fuzz.Impl{{Spec: check.Spec{}}, {Spec: check.Spec{Argv: []string{filepath.Join(t.TempDir(), "no-such-adapter")}}}}, fuzz.Options{Seed: 1, Count: 50, Tool: tool})
	if err != nil {
		t.Fatal(err)
	}
	var text bytes.Buffer
	if err := fuzz.WriteText(&text, s, ""); err != nil {
		t.Fatal(err)
	}
	if s.ExitCode() != report.ExitIncomplete || !strings.Contains(text.String(), "INCOMPLETE: ") || !strings.Contains(text.String(), "\nno divergence in the others\n") {
		t.Errorf("exit %d:\n%s", s.ExitCode(), text.String())
	}
}
