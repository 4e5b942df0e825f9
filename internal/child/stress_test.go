package child

import (
	"bufio"
	"context"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/refereehq/referee/internal/stress"
)

// jitterEcho is the child of the stress test: four workers echo stdin's
// lines, in whatever order they finish, each after a random pause and in
// pieces written apart.
func jitterEcho() int {
	p := stress.NewPauser(uint64(time.Now().UnixNano()) ^ uint64(os.Getpid()))
	var mu sync.Mutex // one line at a time on stdout
	lines := make(chan string)
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for l := range lines {
				p.Pause()
				b := []byte(l + "\n")
				mu.Lock()
				for len(b) > 0 {
					k := 1 + p.IntN(len(b))
					os.Stdout.Write(b[:k])
					b = b[k:]
					p.Pause()
				}
				mu.Unlock()
			}
		}()
	}
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		lines <- in.Text()
	}
	close(lines)
	wg.Wait()
	return 0
}

// router hands each echoed line to the call waiting for it, as the
// adapter's client does.
type router struct {
	t       *testing.T
	mu      sync.Mutex
	pending map[string]chan struct{}
	pause   func()
}

func (r *router) stdout(line []byte, err error) {
	if err != nil {
		return
	}
	r.pause()
	r.mu.Lock()
	ch, ok := r.pending[string(line)]
	delete(r.pending, string(line))
	r.mu.Unlock()
	if !ok {
		r.t.Errorf("line %q matches no call", line)
		return
	}
	close(ch)
}

func (r *router) waiting() bool {
	r.pause()
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.pending) > 0
}

// TestStressOnDemand: calls in waves of 1 to 8 at once write a line each
// and wait for the child to echo it; a call alone reads its own reply
// (ReadStdout), as the adapter's client does. Pauses at every hand-over
// point, in the child's writes and in Stdout and Waiting shuffle the
// interleavings; with interrupts, InterruptRead also cuts reads short at
// random. Every line must reach its call within stallAfter.
func TestStressOnDemand(t *testing.T) {
	const stallAfter = 3 * time.Second
	d := stress.For(t, 500*time.Millisecond)
	tests := []struct {
		name       string
		idle       bool // the idle timer may wake the reading goroutine (else it never fires: a lost wake-up shows)
		interrupts bool
	}{
		{"idle", true, false},
		{"no-idle", false, false},
		{"idle-interrupts", true, true},
		{"no-idle-interrupts", false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			seed := uint64(time.Now().UnixNano())
			t.Logf("seed %d", seed)
			pz := stress.NewPauser(seed)
			rt := &router{t: t, pending: map[string]chan struct{}{}, pause: pz.Pause}
			cfg := child("jitter-echo")
			cfg.Stdout, cfg.Waiting, cfg.pause = rt.stdout, rt.waiting, pz.Pause
			cfg.idleWait = time.Hour
			if tt.idle {
				cfg.idleWait = time.Duration(50+pz.IntN(3000)) * time.Microsecond
			}
			p := start(t, cfg)

			stop := make(chan struct{})
			var side sync.WaitGroup
			if tt.interrupts {
				side.Add(1)
				go func() {
					defer side.Done()
					for {
						select {
						case <-stop:
							return
						default:
						}
						pz.Pause()
						p.InterruptRead()
					}
				}()
			}
			var calls atomic.Int64
			var stalled atomic.Bool
			call := func() {
				k := calls.Add(1)
				line := strconv.FormatInt(k, 10)
				ch := make(chan struct{})
				rt.mu.Lock()
				rt.pending[line] = ch
				alone := len(rt.pending) == 1
				rt.mu.Unlock()
				if err := p.WriteStdin(context.Background(), time.Time{}, []byte(line+"\n")); err != nil {
					t.Errorf("write %s: %v", line, err)
					stalled.Store(true)
					return
				}
				pz.Pause()
				if alone {
					p.ReadStdout(func() bool {
						select {
						case <-ch:
							return true
						default:
							return false
						}
					})
				}
				select {
				case <-ch:
				case <-time.After(stallAfter):
					if !stalled.Swap(true) {
						t.Errorf("call %s (alone %v): no reply in %s; leading %v, parked %v, turn free %v, wake set %v",
							line, alone, stallAfter, p.out.leading.Load(), p.out.parked.Load(), len(p.out.turn) > 0, len(p.out.wake) > 0)
					}
				}
			}
			pz.Waves(d, 30, stalled.Load, func(int) { call() })
			close(stop)
			side.Wait()
			t.Logf("%d calls in %s (idle wait %s)", calls.Load(), d, cfg.idleWait)
		})
	}
}
