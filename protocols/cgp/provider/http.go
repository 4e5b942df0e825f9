package provider

import (
	"errors"
	"io"
	"net/http"

	"github.com/refereehq/referee/protocols/cgp"
)

// Handler is the HTTP binding: POST one envelope, get 200 and the reply, 204 for none, 400 for a bad body.
func (p *Provider) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", http.MethodPost)
			http.Error(w, "a CGP provider answers POST only", http.StatusMethodNotAllowed)
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, cgp.MaxLine))
		if err != nil {
			var tooBig *http.MaxBytesError
			if errors.As(err, &tooBig) {
				p.writeEnvelope(w, http.StatusRequestEntityTooLarge, errorReply(cgp.CodeBadRequest, "request body was longer than 16 MiB"))
				return
			}
			http.Error(w, "reading the request body: "+err.Error(), http.StatusBadRequest)
			return
		}
		reply, out := p.handle(body, msgBadBody)
		switch {
		case out == outCrash:
			w.WriteHeader(http.StatusInternalServerError)
		case reply == nil:
			w.WriteHeader(http.StatusNoContent)
		case reply.Type == cgp.TypeError && reply.Message != nil && *reply.Message == msgBadBody:
			p.writeEnvelope(w, http.StatusBadRequest, reply)
		default:
			p.writeEnvelope(w, http.StatusOK, reply)
		}
	})
}

// writeEnvelope writes an envelope as the JSON response body.
func (p *Provider) writeEnvelope(w http.ResponseWriter, status int, env *cgp.Envelope) {
	b, err := p.encode(env)
	if err != nil {
		http.Error(w, "encoding the reply: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(b)
}
