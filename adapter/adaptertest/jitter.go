package adaptertest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"runtime"
	"sync"
	"time"

	"github.com/refereehq/referee/adapter"
)

// Jitter is a fake served by adapter.Serve (concurrency 8, ops "echo" and
// "fail") that pauses at random: it reads stdin in small pieces, writes
// each reply batch in pieces, and waits before handling a request.
const Jitter = "jitter"

// Pauser makes random pauses; it is safe for concurrent use.
type Pauser struct {
	mu sync.Mutex
	r  *rand.Rand
}

// NewPauser returns a Pauser seeded with seed.
func NewPauser(seed uint64) *Pauser {
	return &Pauser{r: rand.New(rand.NewPCG(seed, seed>>32^0x9e3779b97f4a7c15))}
}

// IntN returns a random int in [0, n).
func (p *Pauser) IntN(n int) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.r.IntN(n)
}

// Pause yields the processor, sleeps up to 300µs or does nothing, at random.
func (p *Pauser) Pause() {
	switch p.IntN(8) {
	case 0:
		time.Sleep(time.Duration(p.IntN(300)) * time.Microsecond)
	case 1, 2:
		runtime.Gosched()
	}
}

// runJitter serves the jitter fake until stdin ends.
func runJitter() int {
	p := NewPauser(uint64(time.Now().UnixNano()) ^ uint64(os.Getpid()))
	in := &jitterReader{r: os.Stdin, p: p}
	out := &jitterWriter{w: os.Stdout, p: p}
	if err := adapter.Serve(context.Background(), jitterHandler{p}, in, out); err != nil {
		fmt.Fprintln(os.Stderr, "fake:", err)
		return 1
	}
	return 0
}

// jitterReader reads at most a few hundred bytes at a time, after a pause.
type jitterReader struct {
	r io.Reader
	p *Pauser
}

func (j *jitterReader) Read(b []byte) (int, error) {
	j.p.Pause()
	if len(b) > 1 {
		b = b[:1+j.p.IntN(min(len(b), 512))]
	}
	return j.r.Read(b)
}

// jitterWriter writes in pieces, pausing between them.
type jitterWriter struct {
	w io.Writer
	p *Pauser
}

func (j *jitterWriter) Write(b []byte) (int, error) {
	written := 0
	for len(b) > 0 {
		k := 1 + j.p.IntN(len(b))
		n, err := j.w.Write(b[:k])
		written += n
		if err != nil {
			return written, err
		}
		b = b[k:]
		if len(b) > 0 {
			j.p.Pause()
		}
	}
	return written, nil
}

// jitterHandler echoes, or fails, after a pause.
type jitterHandler struct{ p *Pauser }

func (jitterHandler) Hello() adapter.Hello {
	return adapter.Hello{Name: "fake-" + Jitter, Version: "0.0.1", Ops: []string{"echo", "fail"}, Concurrency: 8}
}

func (h jitterHandler) Handle(ctx context.Context, op string, args []byte) (json.RawMessage, *adapter.Error) {
	h.p.Pause()
	if op == "fail" {
		return nil, &adapter.Error{Code: "nope", Message: "fails on purpose"}
	}
	return args, nil
}
