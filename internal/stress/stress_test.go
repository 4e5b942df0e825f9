package stress

import (
	"testing"
	"time"
)

func TestFor(t *testing.T) {
	t.Setenv(Env, "")
	if got := For(t, time.Second); got != time.Second {
		t.Errorf("unset: %v, want the short 1s", got)
	}
	t.Setenv(Env, "90s")
	if got := For(t, time.Second); got != 90*time.Second {
		t.Errorf("%s=90s: %v", Env, got)
	}
}

func TestPauserRepeatsItsSeed(t *testing.T) {
	a, b := NewPauser(7), NewPauser(7)
	for range 100 {
		if x, y := a.IntN(1000), b.IntN(1000); x != y {
			t.Fatalf("same seed, %d and %d", x, y)
		}
	}
}
