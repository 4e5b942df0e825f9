package provider

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/refereehq/referee/protocols/cgp"
)

// docsDir materialises the embedded docs in a fresh folder.
func docsDir(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	if err := WriteDocs(dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

func newProvider(t testing.TB, mode string) *Provider {
	t.Helper()
	p, err := New(docsDir(t), mode)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// session is a ServeStdio run driven through pipes.
type session struct {
	t      *testing.T
	in     *io.PipeWriter
	lines  chan string
	done   chan error
	cancel context.CancelFunc
}

func start(t *testing.T, p *Provider) *session {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	s := &session{t: t, in: inW, lines: make(chan string, 16), done: make(chan error, 1), cancel: cancel}
	go func() {
		err := p.ServeStdio(ctx, inR, outW)
		outW.Close()
		inR.Close()
		s.done <- err
	}()
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, cgp.MaxLine+1)
		for sc.Scan() {
			s.lines <- sc.Text()
		}
		close(s.lines)
	}()
	t.Cleanup(func() {
		cancel()
		inW.Close()
	})
	return s
}

// send writes one line to the provider's stdin.
func (s *session) send(line string) {
	s.t.Helper()
	errc := make(chan error, 1)
	go func() { _, err := io.WriteString(s.in, line+"\n"); errc <- err }()
	select {
	case err := <-errc:
		if err != nil {
			s.t.Fatalf("writing %q: %v", line, err)
		}
	case <-time.After(5 * time.Second):
		s.t.Fatalf("the provider did not read %q", line)
	}
}

// recvLine reads one raw reply line.
func (s *session) recvLine() string {
	s.t.Helper()
	select {
	case l, ok := <-s.lines:
		if !ok {
			s.t.Fatal("the provider closed stdout")
		}
		return l
	case <-time.After(5 * time.Second):
		s.t.Fatal("no reply within 5s")
	}
	return ""
}

func (s *session) recv() *cgp.Envelope {
	s.t.Helper()
	l := s.recvLine()
	env, err := cgp.DecodeEnvelope([]byte(l))
	if err != nil {
		s.t.Fatalf("reply %q: %v", l, err)
	}
	return env
}

// call sends an envelope and returns the reply.
func (s *session) call(env *cgp.Envelope) *cgp.Envelope {
	s.t.Helper()
	b, err := cgp.Encode(env)
	if err != nil {
		s.t.Fatal(err)
	}
	s.send(string(b))
	return s.recv()
}

// exit waits for ServeStdio to return.
func (s *session) exit() error {
	s.t.Helper()
	select {
	case err := <-s.done:
		return err
	case <-time.After(5 * time.Second):
		s.t.Fatal("ServeStdio did not return within 5s")
	}
	return nil
}

func handshake() *cgp.Envelope {
	return &cgp.Envelope{Type: cgp.TypeHandshake, ProtocolVersion: "contextgraph/1.0-draft"}
}

// probe is the conformance suite's sample query.
func probe() *cgp.ContextQuery {
	return &cgp.ContextQuery{Goal: "conformance probe: return your most relevant frames", QueryText: cgp.Str("conformance probe"), MaxFrames: 8, MaxTokens: 4096}
}

func queryEnv(q *cgp.ContextQuery) *cgp.Envelope { return &cgp.Envelope{Type: cgp.TypeQuery, Query: q} }

func ids(frames []cgp.ContextFrame) []string {
	var out []string
	for _, f := range frames {
		out = append(out, f.ID)
	}
	return out
}

func mustFrames(t *testing.T, env *cgp.Envelope) *cgp.ContextQueryResult {
	t.Helper()
	if env.Type != cgp.TypeFrames || env.Result == nil {
		t.Fatalf("want frames, got %s", mustJSON(env))
	}
	return env.Result
}

func mustError(t *testing.T, env *cgp.Envelope, code string) {
	t.Helper()
	if env.Type != cgp.TypeError || env.Code == nil || *env.Code != code {
		t.Fatalf("want error %s, got %s", code, mustJSON(env))
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// fileBytes reads the file a file:// uri names.
func fileBytes(t *testing.T, uri string) []byte {
	t.Helper()
	path, ok := strings.CutPrefix(uri, "file://")
	if !ok {
		t.Fatalf("uri %q is not file://", uri)
	}
	b, err := os.ReadFile(filepath.FromSlash(path))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// checkHonest recomputes everything about a result that can be: costs,
// digests, provenance bytes, labels, relations, timestamps and attestations.
func checkHonest(t *testing.T, res *cgp.ContextQueryResult) {
	t.Helper()
	for _, f := range res.Frames {
		if f.Content == nil || f.ContentDigest == nil || f.URI == nil || f.CitationLabel == nil {
			t.Fatalf("%s: missing members: %s", f.ID, mustJSON(f))
		}
		data := fileBytes(t, *f.URI)
		if *f.Content != string(data) {
			t.Errorf("%s: content is not the file's text", f.ID)
		}
		if want := (len(data) + 3) / 4; int(f.TokenCost) != want {
			t.Errorf("%s: token_cost %d, canonical %d", f.ID, f.TokenCost, want)
		}
		sum := sha256.Sum256(data)
		if want := "sha256:" + hex.EncodeToString(sum[:]); *f.ContentDigest != want {
			t.Errorf("%s: content_digest %s, want %s", f.ID, *f.ContentDigest, want)
		}
		if f.Score < 0 || f.Score > 1 {
			t.Errorf("%s: score %v", f.ID, f.Score)
		}
		if cgp.IsBlank(f.Title) || cgp.IsBlank(*f.CitationLabel) {
			t.Errorf("%s: blank title or citation label", f.ID)
		}
		if f.Representation != nil {
			t.Errorf("%s: representation %s", f.ID, *f.Representation)
		}
		for _, ts := range []*string{f.ValidFrom, f.ValidTo, f.RecordedAt} {
			if ts != nil {
				if _, err := parseTimestamp(*ts); err != nil {
					t.Errorf("%s: %v", f.ID, err)
				}
			}
		}
		if len(f.Provenance) != 2 || f.Provenance[0].Type != "file" || f.Provenance[1].Type != "derivation" {
			t.Fatalf("%s: provenance %s", f.ID, mustJSON(f.Provenance))
		}
		l := f.Provenance[0]
		if l.Range == nil || l.Digest == nil || *l.URI != *f.URI {
			t.Fatalf("%s: file link %s", f.ID, mustJSON(l))
		}
		addressed, err := cgp.RangeBytes(fileBytes(t, *l.URI), *l.Range, true)
		if err != nil {
			t.Fatal(err)
		}
		sum = sha256.Sum256(addressed)
		if want := "sha256:" + hex.EncodeToString(sum[:]); *l.Digest != want {
			t.Errorf("%s: provenance digest %s, bytes hash to %s", f.ID, *l.Digest, want)
		}
		name := filepath.Base(*f.URI)
		if want := name + " " + *l.Range; *f.CitationLabel != want {
			t.Errorf("%s: citation_label %q, want %q", f.ID, *f.CitationLabel, want)
		}
		if len(f.Relations) != 1 || f.Relations[0].TargetURI != "symbol:///docs/"+name+"#overview" || f.Relations[0].DisplayName == nil || *f.Relations[0].DisplayName != f.Title {
			t.Errorf("%s: relations %s", f.ID, mustJSON(f.Relations))
		}
	}
	if v := attestationVerdicts(t, res); len(v) != len(res.Frames)+1 {
		t.Errorf("%d attestations for %d frames", len(v), len(res.Frames))
	} else {
		for id, verdict := range v {
			if verdict.Kind != cgp.VerdictValid {
				t.Errorf("%s: attestation %v", id, verdict)
			}
		}
	}
}

// resultKey is the key of the result attestation's verdict in
// attestationVerdicts' map (no frame id has a space).
const resultKey = "result attestation"

// attestationVerdicts verifies each frame attestation against the frame it
// names, as served, and the result attestation against the root of the
// served frames (under resultKey). It fails the test when an attestation
// names a frame that was not served, or when a frame whose attestation is
// valid has an inclusion proof that does not replay to the signed root.
func attestationVerdicts(t *testing.T, res *cgp.ContextQueryResult) map[string]cgp.Verdict {
	t.Helper()
	pub := PublicKeyHex()
	_, leaves := cgp.ResultLeaves(Name, res.Frames)
	if res.ResultAttestation == nil {
		t.Fatal("no result_attestation")
	}
	out := map[string]cgp.Verdict{resultKey: cgp.VerifyAttestation(*res.ResultAttestation, cgp.MerkleRoot(leaves), pub)}
	signedRoot, err := cgp.ParseHash(res.ResultAttestation.SignedCommitment)
	if err != nil {
		t.Fatalf("result attestation: %v", err)
	}
	for _, fa := range res.FrameAttestations {
		i := slices.IndexFunc(res.Frames, func(f cgp.ContextFrame) bool { return f.ID == fa.Frame.FrameID })
		if i < 0 {
			t.Fatalf("attestation for %s, which was not served", fa.Frame.FrameID)
		}
		f := &res.Frames[i]
		if fa.Frame.ProviderID != Name || fa.Frame.ContentDigest == nil || *fa.Frame.ContentDigest != *f.ContentDigest {
			t.Errorf("%s: attestation names %s", f.ID, mustJSON(fa.Frame))
		}
		c := cgp.CommitmentOf(Name, f)
		out[f.ID] = cgp.VerifyAttestation(*fa.Attestation, c, pub)
		if fa.InclusionProof == nil {
			t.Fatalf("%s: no inclusion proof", f.ID)
		}
		if fa.InclusionProof.LeafCount != uint64(len(res.Frames)) {
			t.Errorf("%s: leaf_count %d for %d frames", f.ID, fa.InclusionProof.LeafCount, len(res.Frames))
		}
		got, err := cgp.ProofRoot(c, *fa.InclusionProof)
		if err != nil {
			t.Fatalf("%s: proof: %v", f.ID, err)
		}
		if got != signedRoot && out[f.ID].Kind == cgp.VerdictValid {
			t.Errorf("%s: proof replays to %s, the signed root is %s", f.ID, got, signedRoot)
		}
	}
	return out
}

func TestDefaultDocs(t *testing.T) {
	p := newProvider(t, "")
	c, err := loadCorpus(p.Dir())
	if err != nil {
		t.Fatal(err)
	}
	type want struct{ id, kind, title, from, to string }
	wants := []want{
		{"frm_configuration", "snippet", "Configuring a run", "2026-09-01T00:00:00Z", ""},
		{"frm_getting_started", "doc", "Getting started with referee", "2026-01-01T00:00:00Z", ""},
		{"frm_release_notes_2025", "doc", "Release notes for 2025", "2025-01-01T00:00:00Z", "2026-03-01T00:00:00Z"},
	}
	if len(c.docs) != len(wants) {
		t.Fatalf("%d frames, want %d", len(c.docs), len(wants))
	}
	for i, w := range wants {
		f := c.docs[i].frame
		if got := (want{f.ID, f.Kind, f.Title, deref(f.ValidFrom), deref(f.ValidTo)}); got != w {
			t.Errorf("frame %d: %+v, want %+v", i, got, w)
		}
		if n := len(cgp.Lines([]byte(*f.Content))); n < 4 || n > 15 {
			t.Errorf("%s: %d lines", f.ID, n)
		}
	}
}

func TestSession(t *testing.T) {
	p := newProvider(t, "")
	s := start(t, p)
	ack := s.call(handshake())
	if ack.Type != cgp.TypeHandshakeAck || ack.ProtocolVersion != cgp.ProtocolVersion || ack.Provider.Name != Name || ack.Provider.Version != Version {
		t.Fatalf("ack %s", mustJSON(ack))
	}
	df := ack.Provider.DataFlow
	if !df.Reads || df.Writes || df.Egress || !slices.Equal(df.EgressScopes, []string{"local-only"}) {
		t.Errorf("data_flow %+v", df)
	}
	caps := ack.Capabilities
	if !slices.Equal(caps.Query.Kinds, []string{"doc", "snippet"}) || !caps.Correlation || !caps.Graph || !caps.Verify || caps.EmbeddingsFingerprint == nil || *caps.EmbeddingsFingerprint != Fingerprint {
		t.Errorf("capabilities %s", mustJSON(caps))
	}
	if len(ack.AttesterKeys) != 1 || ack.AttesterKeys[0] != (cgp.AttesterKey{KeyID: KeyID, Algorithm: "ed25519", PublicKey: PublicKeyHex()}) {
		t.Errorf("attester_keys %s", mustJSON(ack.AttesterKeys))
	}

	all := mustFrames(t, s.call(queryEnv(probe())))
	if len(all.Frames) != 3 || all.Truncated || all.DroppedEstimate != nil {
		t.Fatalf("probe: %v truncated %v", ids(all.Frames), all.Truncated)
	}
	checkHonest(t, all)
	byID := map[string]cgp.ContextFrame{}
	for _, f := range all.Frames {
		byID[f.ID] = f
	}
	last := all.Frames[len(all.Frames)-1]

	with := func(edit func(q *cgp.ContextQuery)) *cgp.Envelope {
		q := probe()
		edit(q)
		return queryEnv(q)
	}
	emb := Embed(*byID["frm_release_notes_2025"].Content)
	steps := []struct {
		name  string
		send  *cgp.Envelope
		check func(t *testing.T, r *cgp.Envelope)
	}{
		{"kinds doc", with(func(q *cgp.ContextQuery) { q.Kinds = []string{"doc"} }), func(t *testing.T, r *cgp.Envelope) {
			got := ids(mustFrames(t, r).Frames)
			slices.Sort(got)
			if !slices.Equal(got, []string{"frm_getting_started", "frm_release_notes_2025"}) {
				t.Errorf("frames %v", got)
			}
		}},
		{"kinds unsupported and snippet", with(func(q *cgp.ContextQuery) { q.Kinds = []string{"symbol", "snippet"} }), func(t *testing.T, r *cgp.Envelope) {
			if got := ids(mustFrames(t, r).Frames); !slices.Equal(got, []string{"frm_configuration"}) {
				t.Errorf("frames %v", got)
			}
		}},
		{"kinds only unsupported", with(func(q *cgp.ContextQuery) { q.Kinds = []string{"symbol"} }), func(t *testing.T, r *cgp.Envelope) {
			mustError(t, r, cgp.CodeUnsupportedKind)
		}},
		{"as_of mid 2026", with(func(q *cgp.ContextQuery) { q.AsOf = cgp.Str("2026-07-01T00:00:00Z") }), func(t *testing.T, r *cgp.Envelope) {
			if got := ids(mustFrames(t, r).Frames); !slices.Equal(got, []string{"frm_getting_started"}) {
				t.Errorf("frames %v", got)
			}
		}},
		{"as_of 2025", with(func(q *cgp.ContextQuery) { q.AsOf = cgp.Str("2025-06-01T00:00:00Z") }), func(t *testing.T, r *cgp.Envelope) {
			if got := ids(mustFrames(t, r).Frames); !slices.Equal(got, []string{"frm_release_notes_2025"}) {
				t.Errorf("frames %v", got)
			}
		}},
		{"as_of at valid_to, as an offset instant", with(func(q *cgp.ContextQuery) { q.AsOf = cgp.Str("2026-02-28T22:00:00-02:00") }), func(t *testing.T, r *cgp.Envelope) {
			if got := ids(mustFrames(t, r).Frames); !slices.Equal(got, []string{"frm_getting_started"}) {
				t.Errorf("frames %v (valid_to is exclusive)", got)
			}
		}},
		{"as_of just before valid_to", with(func(q *cgp.ContextQuery) { q.AsOf = cgp.Str("2026-02-28T23:59:59.5Z") }), func(t *testing.T, r *cgp.Envelope) {
			got := ids(mustFrames(t, r).Frames)
			slices.Sort(got)
			if !slices.Equal(got, []string{"frm_getting_started", "frm_release_notes_2025"}) {
				t.Errorf("frames %v", got)
			}
		}},
		{"as_of not a timestamp", with(func(q *cgp.ContextQuery) { q.AsOf = cgp.Str("yesterday") }), func(t *testing.T, r *cgp.Envelope) {
			mustError(t, r, cgp.CodeBadRequest)
		}},
		{"anchor on the last frame", with(func(q *cgp.ContextQuery) { q.Anchors = []string{last.Relations[0].TargetURI} }), func(t *testing.T, r *cgp.Envelope) {
			if got := mustFrames(t, r).Frames; got[0].ID != last.ID {
				t.Errorf("frames %v, want %s first", ids(got), last.ID)
			}
		}},
		{"anchor on a uri", with(func(q *cgp.ContextQuery) { q.Anchors = []string{"file:///nowhere", *last.URI} }), func(t *testing.T, r *cgp.Envelope) {
			if got := mustFrames(t, r).Frames; got[0].ID != last.ID {
				t.Errorf("frames %v, want %s first", ids(got), last.ID)
			}
		}},
		{"max_frames 1", with(func(q *cgp.ContextQuery) { q.MaxFrames = 1 }), func(t *testing.T, r *cgp.Envelope) {
			res := mustFrames(t, r)
			if len(res.Frames) != 1 || res.Frames[0].ID != all.Frames[0].ID || !res.Truncated || res.DroppedEstimate == nil || *res.DroppedEstimate != 2 {
				t.Errorf("frames %v truncated %v dropped %v", ids(res.Frames), res.Truncated, mustJSON(res.DroppedEstimate))
			}
			checkHonest(t, res)
		}},
		{"max_tokens 0", with(func(q *cgp.ContextQuery) { q.MaxTokens = 0 }), func(t *testing.T, r *cgp.Envelope) {
			res := mustFrames(t, r)
			if len(res.Frames) != 0 || !res.Truncated || *res.DroppedEstimate != 3 || res.ResultAttestation == nil {
				t.Errorf("result %s", mustJSON(res))
			}
		}},
		{"embedding ranks", with(func(q *cgp.ContextQuery) { q.Goal, q.QueryText, q.Embedding = "", nil, emb }), func(t *testing.T, r *cgp.Envelope) {
			if got := mustFrames(t, r).Frames; got[0].ID != "frm_release_notes_2025" {
				t.Errorf("frames %v", ids(got))
			}
		}},
		{"embedding of the wrong length", with(func(q *cgp.ContextQuery) { q.Embedding = []float32{1} }), func(t *testing.T, r *cgp.Envelope) {
			mustError(t, r, cgp.CodeBadRequest)
		}},
		{"representation compact only", with(func(q *cgp.ContextQuery) { q.RepresentationPreferences = []string{"compact"} }), func(t *testing.T, r *cgp.Envelope) {
			mustError(t, r, cgp.CodeUnsupportedRepresentation)
		}},
		{"id echoed", &cgp.Envelope{Type: cgp.TypeQuery, ID: cgp.Str("cgp-conformance-h4-7f3a"), Query: probe()}, func(t *testing.T, r *cgp.Envelope) {
			mustFrames(t, r)
			if r.ID == nil || *r.ID != "cgp-conformance-h4-7f3a" {
				t.Errorf("id %v", mustJSON(r.ID))
			}
		}},
		{"id echoed on an error", &cgp.Envelope{Type: cgp.TypeQuery, ID: cgp.Str("q2"), Query: &cgp.ContextQuery{Kinds: []string{"symbol"}}}, func(t *testing.T, r *cgp.Envelope) {
			mustError(t, r, cgp.CodeUnsupportedKind)
			if r.ID == nil || *r.ID != "q2" {
				t.Errorf("id %v", mustJSON(r.ID))
			}
		}},
		{"verify", &cgp.Envelope{Type: cgp.TypeVerify, Request: &cgp.VerifyRequest{Frames: []cgp.FrameID{
			{ProviderID: "provider-under-test", FrameID: "frm_configuration", ContentDigest: byID["frm_configuration"].ContentDigest},
			{ProviderID: Name, FrameID: "frm_getting_started", ContentDigest: cgp.Str(*byID["frm_getting_started"].ContentDigest + "-contextgraph-conformance-mutated")},
			{ProviderID: Name, FrameID: "frm_release_notes_2025"},
			{ProviderID: Name, FrameID: "frm_never_served", ContentDigest: byID["frm_configuration"].ContentDigest},
		}}}, func(t *testing.T, r *cgp.Envelope) {
			if r.Type != cgp.TypeVerified || r.Response == nil || len(r.Response.Verdicts) != 4 {
				t.Fatalf("reply %s", mustJSON(r))
			}
			v := r.Response.Verdicts
			want := []string{cgp.StatusValid, cgp.StatusStale, cgp.StatusUnknown, cgp.StatusGone}
			for i := range v {
				if v[i].Status != want[i] {
					t.Errorf("verdict %d: %s, want %s", i, v[i].Status, want[i])
				}
			}
			if v[0].Frame.ProviderID != "provider-under-test" || *v[0].Frame.ContentDigest != *byID["frm_configuration"].ContentDigest {
				t.Errorf("identity not echoed: %s", mustJSON(v[0].Frame))
			}
			if v[1].ReplacementDigest == nil || *v[1].ReplacementDigest != *byID["frm_getting_started"].ContentDigest {
				t.Errorf("replacement %s", mustJSON(v[1]))
			}
		}},
		{"unknown type with a payload", &cgp.Envelope{Type: "resolve", ProtocolVersion: "x"}, func(t *testing.T, r *cgp.Envelope) {
			mustError(t, r, cgp.CodeBadRequest)
		}},
		{"incompatible handshake", &cgp.Envelope{Type: cgp.TypeHandshake, ProtocolVersion: "contextgraph/2.0"}, func(t *testing.T, r *cgp.Envelope) {
			mustError(t, r, cgp.CodeIncompatibleVersion)
		}},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) { st.check(t, s.call(st.send)) })
	}

	t.Run("garbage", func(t *testing.T) {
		s.send("this is not valid json {{{")
		if got, want := s.recvLine(), `{"type":"error","code":"bad_request","message":"line was not a valid CGP envelope"}`; got != want {
			t.Errorf("reply %s, want %s", got, want)
		}
		s.send(`{"type":"query","query":"not an object"}`)
		mustError(t, s.recv(), cgp.CodeBadRequest)
	})
	t.Run("ignored notification and blank line", func(t *testing.T) {
		s.send(`{"type":"ping"}`)
		s.send("")
		if r := s.call(handshake()); r.Type != cgp.TypeHandshakeAck {
			t.Errorf("reply %s", mustJSON(r))
		}
	})
	s.send(`{"type":"shutdown"}`)
	if err := s.exit(); err != nil {
		t.Errorf("after shutdown: %v", err)
	}
}

func TestLongLine(t *testing.T) {
	s := start(t, newProvider(t, ""))
	s.send(strings.Repeat("x", cgp.MaxLine+10))
	mustError(t, s.recv(), cgp.CodeBadRequest)
	mustFrames(t, s.call(queryEnv(probe())))
}

func TestEOF(t *testing.T) {
	p := newProvider(t, "")
	var out bytes.Buffer
	in := strings.NewReader(`{"type":"handshake","protocol_version":"contextgraph/1.0"}` + "\n" + `{"type":"query","id":"last","query":{"goal":"x","max_frames":1,"max_tokens":100}}`)
	if err := p.ServeStdio(context.Background(), in, &out); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 2 || !strings.Contains(lines[1], `"id":"last"`) {
		t.Errorf("output %q", out.String())
	}
}

func TestHTTP(t *testing.T) {
	srv := httptest.NewServer(newProvider(t, "").Handler())
	defer srv.Close()
	crash := httptest.NewServer(newProvider(t, modeCrashOnQuery).Handler())
	defer crash.Close()
	post := func(url, body string) (int, string) {
		t.Helper()
		resp, err := http.Post(url, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	query := `{"type":"query","id":"h1","query":{"goal":"configure","max_frames":8,"max_tokens":4096}}`
	cases := []struct {
		name, url, method, body string
		status                  int
		check                   func(t *testing.T, body string)
	}{
		{"get", srv.URL, http.MethodGet, "", http.StatusMethodNotAllowed, nil},
		{"garbage", srv.URL, http.MethodPost, "this is not valid json {{{", http.StatusBadRequest, func(t *testing.T, body string) {
			if want := `{"type":"error","code":"bad_request","message":"request body was not a valid CGP envelope"}`; body != want {
				t.Errorf("body %s", body)
			}
		}},
		{"handshake", srv.URL, http.MethodPost, `{"type":"handshake","protocol_version":"contextgraph/1.0"}`, http.StatusOK, func(t *testing.T, body string) {
			if !strings.HasPrefix(body, `{"type":"handshake_ack"`) {
				t.Errorf("body %s", body)
			}
		}},
		{"query", srv.URL, http.MethodPost, query, http.StatusOK, func(t *testing.T, body string) {
			env, err := cgp.DecodeEnvelope([]byte(body))
			if err != nil {
				t.Fatal(err)
			}
			checkHonest(t, mustFrames(t, env))
			if *env.ID != "h1" {
				t.Errorf("id %s", *env.ID)
			}
		}},
		{"unsupported kind", srv.URL, http.MethodPost, `{"type":"query","query":{"goal":"x","kinds":["symbol"],"max_frames":8,"max_tokens":4096}}`, http.StatusOK, func(t *testing.T, body string) {
			if !strings.Contains(body, `"code":"unsupported_kind"`) {
				t.Errorf("body %s", body)
			}
		}},
		{"shutdown", srv.URL, http.MethodPost, `{"type":"shutdown"}`, http.StatusNoContent, func(t *testing.T, body string) {
			if body != "" {
				t.Errorf("body %q", body)
			}
		}},
		{"still serving after shutdown", srv.URL, http.MethodPost, query, http.StatusOK, nil},
		{"crash-on-query", crash.URL, http.MethodPost, query, http.StatusInternalServerError, func(t *testing.T, body string) {
			if body != "" {
				t.Errorf("body %q", body)
			}
		}},
		{"crash-on-query handshake", crash.URL, http.MethodPost, `{"type":"handshake","protocol_version":"contextgraph/1.0"}`, http.StatusOK, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var status int
			var body string
			if c.method == http.MethodPost {
				status, body = post(c.url, c.body)
			} else {
				resp, err := http.Get(c.url)
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				status = resp.StatusCode
			}
			if status != c.status {
				t.Fatalf("status %d, want %d (body %s)", status, c.status, body)
			}
			if c.check != nil {
				c.check(t, body)
			}
		})
	}
}

func TestNewErrors(t *testing.T) {
	cases := []struct {
		name  string
		files map[string]string
		mode  string
		want  string
	}{
		{"unknown mode", nil, "no-such-mode", "lying-costs"},
		{"invalid UTF-8", map[string]string{"bad.txt": "\xff\xfe"}, "", "bad.txt"},
		{"sidecar timestamp", map[string]string{"a.md": "# A\n", ".cgp.json": `{"a.md":{"valid_from":"2026-01-01 00:00:00"}}`}, "", "a.md"},
		{"sidecar member", map[string]string{"a.md": "# A\n", ".cgp.json": `{"a.md":{"valid_form":"2026-01-01T00:00:00Z"}}`}, "", ".cgp.json"},
		{"sidecar names a missing file", map[string]string{"a.md": "# A\n", ".cgp.json": `{"b.md":{}}`}, "", "b.md"},
		{"duplicate id", map[string]string{"a.md": "# A\n", "a.txt": "A\n"}, "", "frm_a"},
		{"window inverted", map[string]string{"a.md": "# A\n", ".cgp.json": `{"a.md":{"valid_from":"2026-01-01T00:00:00Z","valid_to":"2025-01-01T00:00:00Z"}}`}, "", "a.md"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, text := range c.files {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			_, err := New(dir, c.mode)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one naming %q", err, c.want)
			}
		})
	}
}

func TestFolderDefaults(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"notes-on-retry.md": "intro line\n```\n# not a heading\n```\n## Retry policy ##\nbody\n",
		"main.go":           "package main\n",
		"plain.txt":         "no heading here",
		"empty.md":          "",
		".hidden":           "skipped",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	c, err := loadCorpus(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range c.docs {
		got = append(got, d.frame.ID+"|"+d.frame.Kind+"|"+d.frame.Title+"|"+*d.frame.CitationLabel)
	}
	want := []string{
		"frm_empty|doc|empty.md|empty.md",
		"frm_main|snippet|main.go|main.go L1-1",
		"frm_notes_on_retry|doc|Retry policy|notes-on-retry.md L1-6",
		"frm_plain|doc|plain.txt|plain.txt L1-1",
	}
	if !slices.Equal(got, want) {
		t.Errorf("frames\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	p, err := New(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	res := mustFrames(t, p.query(&cgp.ContextQuery{Goal: "retry policy", MaxFrames: 8, MaxTokens: 4096}))
	if res.Frames[0].ID != "frm_notes_on_retry" || res.Frames[0].Score != 1 || res.Frames[len(res.Frames)-1].Score != scoreFloor {
		t.Errorf("ranking %s", mustJSON(res.Frames))
	}
}

func TestBudgetSkipsWhatDoesNotFit(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"big.md":    "# Budget budget budget\n" + strings.Repeat("x", 400) + "\n",
		"small1.md": "# Small one\nbudget\n",
		"small2.md": "# Small two\nnothing\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p, err := New(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	q := &cgp.ContextQuery{Goal: "budget", MaxFrames: 8, MaxTokens: 4096}
	all := mustFrames(t, p.query(q))
	if got := ids(all.Frames); !slices.Equal(got, []string{"frm_big", "frm_small1", "frm_small2"}) {
		t.Fatalf("ranking %v", got)
	}
	cases := []struct {
		name      string
		maxFrames uint32
		maxTokens uint32
		want      []string
		truncated bool
		dropped   uint32
	}{
		{"everything fits", 8, 4096, []string{"frm_big", "frm_small1", "frm_small2"}, false, 0},
		{"the big frame is skipped", 8, all.Frames[1].TokenCost + all.Frames[2].TokenCost, []string{"frm_small1", "frm_small2"}, true, 1},
		{"exactly the big frame", 8, all.Frames[0].TokenCost, []string{"frm_big"}, true, 2},
		{"two frames", 2, 4096, []string{"frm_big", "frm_small1"}, true, 1},
		{"no frames", 0, 4096, nil, true, 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := mustFrames(t, p.query(&cgp.ContextQuery{Goal: "budget", MaxFrames: c.maxFrames, MaxTokens: c.maxTokens}))
			var dropped uint32
			if res.DroppedEstimate != nil {
				dropped = *res.DroppedEstimate
			}
			if got := ids(res.Frames); !slices.Equal(got, c.want) || res.Truncated != c.truncated || dropped != c.dropped {
				t.Errorf("frames %v truncated %v dropped %d; want %v %v %d", got, res.Truncated, dropped, c.want, c.truncated, c.dropped)
			}
			checkHonest(t, res)
		})
	}
}

func TestCrashModes(t *testing.T) {
	s := start(t, newProvider(t, modeCrashOnQuery))
	if r := s.call(handshake()); r.Type != cgp.TypeHandshakeAck {
		t.Fatalf("ack %s", mustJSON(r))
	}
	s.send(mustJSON(queryEnv(probe())))
	if err := s.exit(); !errors.Is(err, ErrCrash) {
		t.Errorf("crash-on-query: %v", err)
	}
	s = start(t, newProvider(t, modeCrashOnGarbage))
	mustFrames(t, s.call(queryEnv(probe())))
	s.send("this is not valid json {{{")
	if err := s.exit(); !errors.Is(err, ErrCrash) {
		t.Errorf("crash-on-garbage: %v", err)
	}
}

func TestHangOnShutdown(t *testing.T) {
	s := start(t, newProvider(t, modeHangOnShutdown))
	s.send(`{"type":"shutdown"}`)
	if r := s.call(handshake()); r.Type != cgp.TypeHandshakeAck {
		t.Fatalf("after shutdown: %s", mustJSON(r))
	}
	s.in.Close()
	select {
	case err := <-s.done:
		t.Fatalf("returned at EOF: %v", err)
	case <-time.After(100 * time.Millisecond):
	}
	s.cancel()
	if err := s.exit(); !errors.Is(err, context.Canceled) {
		t.Errorf("after cancel: %v", err)
	}
}

func TestWriteDocsIncludesSidecar(t *testing.T) {
	dir := docsDir(t)
	for _, name := range []string{SidecarName, "getting-started.md", "configuration.md", "release-notes-2025.md"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Error(err)
		}
	}
	if len(TestKeySeed) != 32 {
		t.Errorf("TestKeySeed is %d bytes", len(TestKeySeed))
	}
}
