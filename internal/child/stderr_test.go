//go:build linux

package child

import (
	"context"
	"sync"
	"testing"
	"time"
)

// TestStderrSettles: Stderr waits until what the child wrote to stderr
// before a stdout line has been read into the tail, however late the
// copier is, but no longer than settleWait. The copier is held back before
// its first read until Stderr waits (or, for "held-back", for good), so
// without the wait the line would be missing every time.
func TestStderrSettles(t *testing.T) {
	tests := []struct {
		name    string
		write   string // to the echo child's stdin
		release bool   // Stderr's wait lets the copier go
		want    string // in the tail
		settles bool   // Stderr waits
	}{
		{"line-before-reply", "x\n", true, "got x\n", true},
		{"nothing-written", "", true, "", false},
		{"held-back", "x\n", false, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			release := make(chan struct{})
			var once sync.Once
			free := func() { once.Do(func() { close(release) }) }
			settled := make(chan struct{}, 1)
			got := make(chan string, 1)
			cfg := child("echo")
			cfg.Stdout = func(line []byte, err error) {
				if err == nil {
					got <- string(line)
				}
			}
			cfg.errHook = func(step string) {
				switch step {
				case "read":
					<-release
				case "settle":
					settled <- struct{}{}
					if tt.release {
						free()
					}
				}
			}
			p := start(t, cfg)
			t.Cleanup(free) // before Stop, which waits for the copier
			if tt.write != "" {
				p.WriteStdin(context.Background(), time.Time{}, []byte(tt.write))
				select {
				case <-got:
				case <-time.After(10 * time.Second):
					t.Fatal("no stdout line in 10s")
				}
			}
			begin := time.Now()
			tail := p.Stderr()
			d := time.Since(begin)
			if tail != tt.want {
				t.Errorf("Stderr = %q, want %q", tail, tt.want)
			}
			if waited := len(settled) > 0; waited != tt.settles {
				t.Errorf("Stderr waited: %v, want %v", waited, tt.settles)
			}
			if !tt.release && tt.settles && (d < settleWait || d > 5*time.Second) {
				t.Errorf("Stderr returned after %s with the copier held back, want %s", d, settleWait)
			}
		})
	}
}
