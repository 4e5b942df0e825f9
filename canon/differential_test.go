package canon

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"os/exec"
	"strings"
	"testing"

	"github.com/gowebpki/jcs"
)

// nodeScript reads one JSON text per line and writes, per line, its form
// with object keys sorted by JavaScript's default (UTF-16 code unit) sort
// and everything else written by JSON.stringify.
const nodeScript = `
const rl = require('readline').createInterface({input: process.stdin, crlfDelay: Infinity});
function ser(v) {
  if (v === null || typeof v !== 'object') return JSON.stringify(v);
  if (Array.isArray(v)) return '[' + v.map(ser).join(',') + ']';
  return '{' + Object.keys(v).sort().map(k => JSON.stringify(k) + ':' + ser(v[k])).join(',') + '}';
}
let out = [];
rl.on('line', l => {
  out.push(ser(JSON.parse(l)));
  if (out.length >= 64) { process.stdout.write(out.join('\n') + '\n'); out = []; }
});
rl.on('close', () => { if (out.length) process.stdout.write(out.join('\n') + '\n'); });
`

// diffLine is one line of differential input and what we make of it.
type diffLine struct {
	in     string
	floats []float64 // the numbers of a float batch, else nil
	ours   string
	err    error
}

// diffInput returns the float batches, then documents for JCS, then
// documents with lone surrogates for JSONStringify (when surrogates).
func diffInput(surrogates bool) []diffLine {
	fs := diffFloats(diffFloatCount())
	var lines []diffLine
	for i, line := range floatLines(fs) {
		batch := fs[i*floatBatch : min((i+1)*floatBatch, len(fs))]
		var b []byte
		var err error
		b = append(b, '[')
		for j, f := range batch {
			if j > 0 {
				b = append(b, ',')
			}
			s, ferr := FormatES6(f)
			if ferr != nil && err == nil {
				err = ferr
			}
			b = append(b, s...)
		}
		b = append(b, ']')
		// The whole line through Canonicalize must agree with FormatES6.
		canon, cerr := JCS.Canonicalize([]byte(line), ReadOptions{})
		if err == nil {
			err = cerr
		}
		if err == nil && !bytes.Equal(canon, b) {
			err = fmt.Errorf("Canonicalize of the batch differs from FormatES6")
		}
		lines = append(lines, diffLine{in: line, floats: batch, ours: string(b), err: err})
	}
	ndocs := 4000
	if testing.Short() {
		ndocs = 500
	}
	for _, doc := range diffDocs(1, ndocs, false) {
		out, err := JCS.Canonicalize([]byte(doc), ReadOptions{})
		lines = append(lines, diffLine{in: doc, ours: string(out), err: err})
	}
	if surrogates {
		for _, doc := range diffDocs(2, ndocs/2, true) {
			out, err := JSONStringify.Canonicalize([]byte(doc), ReadOptions{})
			lines = append(lines, diffLine{in: doc, ours: string(out), err: err})
		}
	}
	return lines
}

// mismatches collects the first few differences from an oracle.
type mismatches struct {
	n    int
	list []string
}

func (m *mismatches) add(format string, args ...any) {
	m.n++
	if len(m.list) < 5 {
		m.list = append(m.list, fmt.Sprintf(format, args...))
	}
}

func (m *mismatches) report(t *testing.T, oracle string, total int) {
	t.Helper()
	if m.n > 0 {
		t.Errorf("%d of %d lines differ from %s; first ones:\n%s", m.n, total, oracle, strings.Join(m.list, "\n"))
	}
}

// compareLine compares our output of one line with an oracle's.
func (m *mismatches) compareLine(l diffLine, theirs string) {
	if l.err != nil {
		m.add("input %.200s: our error %v; oracle %.200s", l.in, l.err, theirs)
		return
	}
	if l.ours == theirs {
		return
	}
	if l.floats == nil {
		m.add("input %.300s\n  ours   %.300s\n  oracle %.300s", l.in, l.ours, theirs)
		return
	}
	ours := strings.Split(strings.Trim(l.ours, "[]"), ",")
	them := strings.Split(strings.Trim(theirs, "[]"), ",")
	if len(ours) != len(them) {
		m.add("float batch %.100s: %d numbers from us, %d from the oracle", l.in, len(ours), len(them))
		return
	}
	for i := range ours {
		if ours[i] != them[i] {
			m.add("float %#016x (%g): ours %s, oracle %s", math.Float64bits(l.floats[i]), l.floats[i], ours[i], them[i])
		}
	}
}

func TestDifferentialNode(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not found in PATH: the differential test against JavaScript needs Node.js")
	}
	lines := diffInput(true)
	cmd := exec.Command(node, "-e", nodeScript)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		w := bufio.NewWriterSize(stdin, 1<<16)
		for _, l := range lines {
			w.WriteString(l.in)
			w.WriteByte('\n')
		}
		w.Flush()
		stdin.Close()
	}()
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	var m mismatches
	for i, l := range lines {
		if !sc.Scan() {
			cmd.Wait()
			t.Fatalf("node stopped after %d of %d lines: %v\n%s", i, len(lines), sc.Err(), stderr.String())
		}
		m.compareLine(l, sc.Text())
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("node: %v\n%s", err, stderr.String())
	}
	m.report(t, "node JSON.stringify", len(lines))
}

func TestDifferentialGowebpki(t *testing.T) {
	lines := diffInput(false)
	var m mismatches
	for _, l := range lines {
		out, err := jcs.Transform([]byte(l.in))
		if err != nil {
			m.add("input %.200s: gowebpki error %v; ours %.200s", l.in, err, l.ours)
			continue
		}
		m.compareLine(l, string(out))
	}
	m.report(t, "gowebpki/jcs", len(lines))
}
