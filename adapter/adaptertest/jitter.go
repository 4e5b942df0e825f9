package adaptertest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/refereehq/referee/adapter"
	"github.com/refereehq/referee/internal/stress"
)

// Jitter is a fake served by adapter.Serve (concurrency 8, ops "echo" and
// "fail") that pauses at random: it reads stdin in small pieces, writes
// each reply batch in pieces, and waits before handling a request.
const Jitter = "jitter"

// runJitter serves the jitter fake until stdin ends.
func runJitter() int {
	p := stress.NewPauser(uint64(time.Now().UnixNano()) ^ uint64(os.Getpid()))
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
	p *stress.Pauser
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
	p *stress.Pauser
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
type jitterHandler struct{ p *stress.Pauser }

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
