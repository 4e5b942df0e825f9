package adapter_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/refereehq/referee/adapter"
)

// hang is a handler that ignores its context and never returns.
type hang struct{ calls atomic.Int32 }

func (h *hang) Hello() adapter.Hello {
	return adapter.Hello{Name: "hang", Version: "1", Ops: []string{"wait"}, Concurrency: 1}
}

func (h *hang) Handle(ctx context.Context, op string, args []byte) (json.RawMessage, *adapter.Error) {
	h.calls.Add(1)
	select {} // ignores ctx on purpose
}

func TestInProcessBoundsAbandonedCalls(t *testing.T) {
	t.Parallel()
	h := &hang{}
	start := adapter.InProcess(h)
	for i := range 3 {
		conn, err := start(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		_, _, err = conn.Call(ctx, int64(i+1), "wait", []byte(`{}`))
		cancel()
		var f *adapter.Fault
		if !errors.As(err, &f) || f.Kind != adapter.FaultTimeout {
			t.Fatalf("call %d: error = %v, want a timeout fault", i, err)
		}
	}
	if n := h.calls.Load(); n != 1 {
		t.Errorf("handler entered %d times, want 1: a hung call keeps its slot across connections", n)
	}
}
