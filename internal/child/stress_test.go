package child

import (
	"bufio"
	"context"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// stressFor is how long a stress test runs: REFEREE_STRESS (a duration),
// or short.
func stressFor(t *testing.T, short time.Duration) time.Duration {
	if s := os.Getenv("REFEREE_STRESS"); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil {
			t.Fatalf("REFEREE_STRESS=%q: %v", s, err)
		}
		return d
	}
	return short
}

// pauser makes random pauses; it is safe for concurrent use.
type pauser struct {
	mu sync.Mutex
	r  *rand.Rand
}

func newPauser(seed uint64) *pauser { return &pauser{r: rand.New(rand.NewPCG(seed, ^seed))} }

func (p *pauser) intN(n int) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.r.IntN(n)
}

// pause yields the processor, sleeps up to 200µs or does nothing, at random.
func (p *pauser) pause() {
	switch p.intN(10) {
	case 0:
		time.Sleep(time.Duration(p.intN(200)) * time.Microsecond)
	case 1, 2, 3:
		runtime.Gosched()
	}
}

// jitterEcho is the child of the stress test: four workers echo stdin's
// lines, in whatever order they finish, each after a random pause and in
// pieces written apart.
func jitterEcho() int {
	p := newPauser(uint64(time.Now().UnixNano()) ^ uint64(os.Getpid()))
	var mu sync.Mutex // one line at a time on stdout
	lines := make(chan string)
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for l := range lines {
				p.pause()
				b := []byte(l + "\n")
				mu.Lock()
				for len(b) > 0 {
					k := 1 + p.intN(len(b))
					os.Stdout.Write(b[:k])
					b = b[k:]
					p.pause()
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
	d := stressFor(t, 500*time.Millisecond)
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
			pz := newPauser(seed)
			rt := &router{t: t, pending: map[string]chan struct{}{}, pause: pz.pause}
			cfg := child("jitter-echo")
			cfg.Stdout, cfg.Waiting, cfg.pause = rt.stdout, rt.waiting, pz.pause
			cfg.idleWait = time.Hour
			if tt.idle {
				cfg.idleWait = time.Duration(50+pz.intN(3000)) * time.Microsecond
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
						pz.pause()
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
				pz.pause()
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
			end := time.Now().Add(d)
			for time.Now().Before(end) && !stalled.Load() {
				var wg sync.WaitGroup
				for range 1 + pz.intN(8) {
					n := 1 + pz.intN(30)
					wg.Add(1)
					go func() {
						defer wg.Done()
						for range n {
							if stalled.Load() {
								return
							}
							pz.pause()
							call()
						}
					}()
				}
				wg.Wait()
			}
			close(stop)
			side.Wait()
			t.Logf("%d calls in %s (idle wait %s)", calls.Load(), d, cfg.idleWait)
		})
	}
}
