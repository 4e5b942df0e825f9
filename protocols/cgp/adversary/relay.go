package adversary

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/refereehq/referee/protocols/cgp"
)

// relayTimeout bounds each request a relay makes of its server.
const relayTimeout = time.Minute

// Relay makes a stdio provider of the one its server serves at relayURL:
// it posts each line of stdin there and writes the reply it gets back to
// stdout, until stdin ends (exit status 0), the host asks for shutdown (0)
// or the provider crashes (1). A server it cannot reach is status 1, said
// on stderr.
func Relay(ctx context.Context, relayURL string, stdin io.Reader, stdout, stderr io.Writer) int {
	if u, err := url.Parse(relayURL); err != nil || u.Scheme != "http" {
		fmt.Fprintf(stderr, "referee: --provider %q: want the http:// URL a cgp-host run gives\n", relayURL)
		return 2
	}
	r := &relay{url: relayURL, session: newKey(), client: &http.Client{Timeout: relayTimeout}}
	defer r.client.CloseIdleConnections()
	if _, _, err := r.post(ctx, "start", nil); err != nil {
		fmt.Fprintf(stderr, "referee: relay: %v\n", err)
		return 1
	}
	lines := make(chan cgp.Line)
	go cgp.ReadLines(ctx, stdin, true, lines)
	for {
		var l cgp.Line
		var ok bool
		select {
		case <-ctx.Done():
			return 1
		case l, ok = <-lines:
		}
		if !ok || l.Err != nil {
			r.post(ctx, "eof", nil) // the host closed stdin: the session ends
			return 0
		}
		if !l.TooLong && len(bytes.TrimSpace(l.Data)) == 0 {
			continue // a blank line is no envelope, and no provider answers it
		}
		kind := "line"
		if l.TooLong {
			kind = "too-long"
		}
		reply, then, err := r.post(ctx, kind, l.Data)
		if err != nil {
			fmt.Fprintf(stderr, "referee: relay: %v\n", err)
			return 1
		}
		if len(reply) > 0 {
			if _, err := stdout.Write(append(reply, '\n')); err != nil {
				fmt.Fprintf(stderr, "referee: relay: writing to stdout: %v\n", err)
				return 1
			}
		}
		switch then {
		case thenExit0:
			return 0
		case thenExit1:
			fmt.Fprintln(stderr, "referee: relay: the provider crashed on purpose (adversarial provider)")
			return 1
		}
	}
}

type relay struct {
	url, session string
	client       *http.Client
}

// post sends one relay request and returns the reply line and what to do then.
func (r *relay) post(ctx context.Context, kind string, body []byte) ([]byte, string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.url, bytes.NewReader(body))
	if err != nil {
		return nil, "", err
	}
	req.Header.Set(RelayHeader, kind)
	req.Header.Set(SessionHeader, r.session)
	resp, err := r.client.Do(req)
	if err != nil {
		return nil, "", fmt.Errorf("the cgp-host run that serves this provider is gone: %w", err)
	}
	defer resp.Body.Close()
	reply, err := io.ReadAll(io.LimitReader(resp.Body, cgp.MaxLine+1))
	if err != nil {
		return nil, "", fmt.Errorf("reading the provider's reply: %w", err)
	}
	if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusNoContent {
		return nil, "", fmt.Errorf("the cgp-host run answered HTTP %d: %s", resp.StatusCode, bytes.TrimSpace(reply))
	}
	return reply, resp.Header.Get(ThenHeader), nil
}
