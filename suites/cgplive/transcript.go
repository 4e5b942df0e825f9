package cgplive

import (
	"github.com/refereehq/referee/adapter"
	"github.com/refereehq/referee/protocols/cgp/host"
)

// exchanges returns h's transcript as evidence exchanges.
func exchanges(h *host.Host) []adapter.Exchange {
	tr := h.Transcript()
	if tr == nil {
		return nil
	}
	out := make([]adapter.Exchange, len(tr))
	for i, x := range tr {
		out[i] = adapter.Exchange{Request: x.Request, Reply: x.Reply}
	}
	return out
}
