// Package stress holds what referee's stress tests share: random pauses
// at the points where two goroutines or processes hand work over, and how
// long a stress test runs.
package stress

import (
	"math/rand/v2"
	"os"
	"runtime"
	"sync"
	"testing"
	"time"
)

// Env names the variable that makes stress tests run longer: a duration
// (REFEREE_STRESS=60s).
const Env = "REFEREE_STRESS"

// For is how long a stress test runs: the duration Env gives, or short.
func For(tb testing.TB, short time.Duration) time.Duration {
	s := os.Getenv(Env)
	if s == "" {
		return short
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		tb.Fatalf("%s=%q: %v", Env, s, err)
	}
	return d
}

// Pauser makes random pauses; it is safe for concurrent use.
type Pauser struct {
	mu sync.Mutex
	r  *rand.Rand
}

// NewPauser returns a Pauser seeded with seed: the same seed gives the
// same pauses in the same order.
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

// Waves calls call until d has passed or stop reports true, in waves: each
// wave starts 1 to 8 goroutines at once, each making 1 to most calls with a
// pause before each (none once stop reports true), and ends when they all
// have. call is given the wave's number.
func (p *Pauser) Waves(d time.Duration, most int, stop func() bool, call func(wave int)) {
	end := time.Now().Add(d)
	for wave := 0; time.Now().Before(end) && !stop(); wave++ {
		var wg sync.WaitGroup
		for range 1 + p.IntN(8) {
			n := 1 + p.IntN(most)
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range n {
					if stop() {
						return
					}
					p.Pause()
					call(wave)
				}
			}()
		}
		wg.Wait()
	}
}
