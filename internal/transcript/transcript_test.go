package transcript

import (
	"bytes"
	"testing"
	"time"
)

func TestTrace(t *testing.T) {
	at := time.Date(2026, 12, 1, 19, 53, 37, 585777000, time.FixedZone("x", 3600))
	tests := []struct {
		name string
		do   func(*Trace)
		want string
	}{
		{"line", func(tr *Trace) { tr.Line("->", []byte(`{"id":1}`)) }, "2026-12-01T18:53:37.585777Z -> {\"id\":1}\n"},
		{"event", func(tr *Trace) { tr.Event("started %q (pid %d)", []string{"a", "b"}, 7) }, "2026-12-01T18:53:37.585777Z ## started [\"a\" \"b\"] (pid 7)\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			tr := New(&b)
			tr.now = func() time.Time { return at }
			tt.do(tr)
			if b.String() != tt.want {
				t.Errorf("got %q, want %q", b.String(), tt.want)
			}
		})
	}
}

func TestNilTraceDoesNothing(t *testing.T) {
	var tr *Trace
	tr.Line("<-", []byte("x"))
	tr.Event("e %d", 1)
}
