package lazy

import (
	"sync"
	"testing"
)

var calls int

// counted is package-level, as the values of this package are meant to be.
var counted = &Value[int]{New: func() int { calls++; return 42 }}

func TestValueComputedOnceOnFirstGet(t *testing.T) {
	if calls != 0 {
		t.Fatalf("the function ran %d times before the first Get", calls)
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if got := counted.Get(); got != 42 {
				t.Errorf("Get = %d, want 42", got)
			}
		}()
	}
	wg.Wait()
	if calls != 1 {
		t.Errorf("the function ran %d times, want 1", calls)
	}
}
