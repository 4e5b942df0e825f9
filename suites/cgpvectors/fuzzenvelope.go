package cgpvectors

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/refereehq/referee/canon"
	"github.com/refereehq/referee/internal/lazy"
	"github.com/refereehq/referee/jsongen"
)

// The envelope target: envelope lines for roundTripEnvelope, drawn from
// upstream's reference envelopes (one of every type, minimal and maximal)
// and respelled: every float in another spelling of the same f32 (1.0 as 1,
// 1e0, 10e-1, 1.00; 0.875 as 8.75E-1) or replaced by another f32 at the
// edges of serde's f32 formatting (the shortest digits, .0 on integral
// values below 1e13, plain decimals down to 1e-6 and exponents beyond, the
// largest and smallest f32s, -0), integers at the edges of u32, members in
// another order at any level, unknown members planted, optional members
// null, whitespace between tokens. The reference writes each back as
// serde_json over the wire types does.

// envelopeSeeds are upstream's reference envelopes, as trees.
var envelopeSeeds = &lazy.Value[[]*jsongen.Node]{New: func() []*jsongen.Node {
	c, err := Records()
	if err != nil {
		return nil
	}
	raw, err := c.ReadFile(EnvelopeVectorsFile)
	if err != nil {
		return nil
	}
	var out []*jsongen.Node
	for _, line := range bytes.Split(bytes.TrimSuffix(raw, []byte("\n")), []byte("\n")) {
		if n, ok := jsongen.ParseTree(line); ok {
			out = append(out, n)
		}
	}
	return out
}}

// f32Edges are f32 values where serde's f32 text changes form, as lexemes.
var f32Edges = []string{"1", "0", "-0", "0.5", "0.1", "0.875", "1e-6", "0.000001", "1e-7", "9.999999e-7", "1e13", "9999999999999", "1e12",
	"16777216", "16777217", "3.4028235e38", "1.1754944e-38", "1e-45", "1.4e-45", "123456.79", "0.3", "2.5", "100", "1e7", "12345678"}

// genEnvelope is one envelope line, without its line end.
func genEnvelope(r *rand.Rand) []byte {
	seeds := envelopeSeeds.Get()
	if len(seeds) == 0 {
		return []byte(`{"type":"shutdown"}`)
	}
	n := pick(r, seeds).Clone()
	respell(r, n, 0)
	if r.IntN(2) == 0 {
		return n.Encode()
	}
	return spacedLine(r, n, nil)
}

// respell rewrites a tree's numbers, member order and members as the
// package comment says.
func respell(r *rand.Rand, n *jsongen.Node, depth int) {
	switch n.Kind {
	case canon.Number:
		n.Raw = respellNum(r, n.Raw)
	case canon.Array:
		for _, e := range n.Elems {
			respell(r, e, depth+1)
		}
	case canon.Object:
		for _, v := range n.Vals {
			respell(r, v, depth+1)
		}
		if r.IntN(4) == 0 {
			r.Shuffle(len(n.Keys), func(i, j int) {
				n.Keys[i], n.Keys[j] = n.Keys[j], n.Keys[i]
				n.Vals[i], n.Vals[j] = n.Vals[j], n.Vals[i]
			})
		}
		if r.IntN(6) == 0 {
			at := r.IntN(len(n.Keys) + 1)
			name := jsongen.Lexeme(pick(r, []string{"x-unknown", "acme:extra", "future_field", "referee:extra"}))
			val := pick(r, []*jsongen.Node{jsongen.Num("1.5"), {Kind: canon.Null, Raw: "null"}, jsongen.Arr(jsongen.Num("1")), jsongen.Str("x")})
			n.Keys = append(n.Keys[:at], append([]string{name}, n.Keys[at:]...)...)
			n.Vals = append(n.Vals[:at], append([]*jsongen.Node{val}, n.Vals[at:]...)...)
		}
		if depth > 0 && len(n.Keys) > 0 && r.IntN(20) == 0 {
			// An optional member null (a required one makes the line unreadable, not judged).
			n.Vals[r.IntN(len(n.Vals))] = &jsongen.Node{Kind: canon.Null, Raw: "null"}
		}
	}
}

// respellNum writes a float lexeme (one with a fraction or an exponent:
// an f32 member, as the reference writes them) as another spelling or
// another f32, and an integer as another integer at times.
func respellNum(r *rand.Rand, lex string) string {
	if !strings.ContainsAny(lex, ".eE") {
		if r.IntN(6) == 0 {
			return pick(r, []string{"0", "1", "4294967295", "65536", "7"})
		}
		return lex
	}
	f, err := strconv.ParseFloat(lex, 32)
	if err != nil {
		return lex
	}
	if r.IntN(3) == 0 {
		g, _ := strconv.ParseFloat(pick(r, f32Edges), 32)
		f = g
	}
	x := float32(f)
	switch r.IntN(7) {
	case 0:
		return strconv.FormatFloat(float64(x), 'g', -1, 32)
	case 1:
		return strconv.FormatFloat(float64(x), 'e', -1, 32)
	case 2:
		return strings.ToUpper(strconv.FormatFloat(float64(x), 'E', -1, 32))
	case 3:
		return strconv.FormatFloat(float64(x), 'g', -1, 64) // widened
	case 4:
		if x == float32(math.Trunc(float64(x))) && math.Abs(float64(x)) < 1e15 {
			return strconv.FormatFloat(float64(x), 'f', 1, 64) + pick(r, []string{"", "0", "00"})
		}
	case 5:
		// The digits without a point: 8.75e-01 as 875e-3.
		mant, exp, _ := strings.Cut(strconv.FormatFloat(float64(x), 'e', -1, 32), "e")
		whole, frac, _ := strings.Cut(mant, ".")
		e, _ := strconv.Atoi(exp)
		return whole + frac + "e" + strconv.Itoa(e-len(frac))
	}
	return strconv.FormatFloat(float64(x), 'f', -1, 32)
}

// spacedLine writes n with spaces and tabs between tokens (no line ends:
// it is one line).
func spacedLine(r *rand.Rand, n *jsongen.Node, dst []byte) []byte {
	return jsongen.SpacedWith(r, n, dst, []string{" ", "\t", "  "})
}

// envelopeVector is the op case of one envelope line: the reference's
// re-serialisation. A line the reference cannot read, one with a line end
// in it, one whose type is none of the eight, one that lacks a member the
// reference writes, or one whose floats read as other f32s straight and
// through an f64 (serde's double rounding) is not judged: the vectors
// leave them open.
func envelopeVector(name string, input []byte) (any, bool) {
	if bytes.ContainsAny(input, "\r\n") {
		return nil, false
	}
	tree, ok := jsongen.ParseTree(input)
	if !ok || !floatsSettled(tree) {
		return nil, false
	}
	in, err := canon.Parse(input, canon.ReadOptions{})
	if err != nil {
		return nil, false
	}
	t, _ := in.Lookup("type")
	if t.Kind != canon.String || !slices.Contains(envelopeTypes, t.Str) {
		return nil, false
	}
	for _, k := range envelopeRequired.Get()[t.Str] {
		if x, ok := in.Lookup(k); !ok || x.Kind == canon.Null {
			return nil, false
		}
	}
	out, err := roundTrip(string(input))
	if err != nil {
		return nil, false
	}
	o, err := canon.Parse(out, canon.ReadOptions{})
	if err != nil || !membersGiven(in, o) {
		return nil, false
	}
	for _, k := range envelopeRequired.Get()[t.Str] {
		// The Go reference omits an empty protocol_version, which serde writes.
		if _, ok := o.Lookup(k); !ok {
			return nil, false
		}
	}
	args, err := json.Marshal(map[string]string{"line": string(input)})
	if err != nil {
		return nil, false
	}
	return opVector(OpRoundTripEnvelope, name, args)
}

// envelopeRequired are the top-level members every reference envelope of
// a type has (its minimal one's): the Go reference reads an envelope as one
// flat struct, and would write a handshake_ack without its provider, which
// serde's tagged enum refuses.
var envelopeRequired = &lazy.Value[map[string][]string]{New: func() map[string][]string {
	out := map[string][]string{}
	seen := map[string]bool{}
	for _, n := range envelopeSeeds.Get() {
		v, err := canon.Parse(n.Encode(), canon.ReadOptions{})
		if err != nil {
			continue
		}
		t, _ := v.Lookup("type")
		var keys []string
		for _, m := range v.Members {
			if !seen[t.Str] || slices.Contains(out[t.Str], m.Key) {
				keys = append(keys, m.Key)
			}
		}
		out[t.Str], seen[t.Str] = keys, true
	}
	return out
}}

// membersGiven reports whether every member the reference writes (out) was
// in the line it read (in), and not null: a required member the line
// lacks, which the Go reference reads as its zero value where serde refuses
// the line, is outside what the vectors settle.
func membersGiven(in, out canon.Value) bool {
	switch out.Kind {
	case canon.Object:
		for _, m := range out.Members {
			x, ok := in.Lookup(m.Key)
			if !ok || x.Kind == canon.Null || !membersGiven(x, m.Value) {
				return false
			}
		}
	case canon.Array:
		if in.Kind != canon.Array || len(in.Elems) != len(out.Elems) {
			return false
		}
		for i := range out.Elems {
			if !membersGiven(in.Elems[i], out.Elems[i]) {
				return false
			}
		}
	}
	return true
}

// floatsSettled reports whether every number with a fraction or exponent
// in n reads as the same f32 straight and through an f64.
func floatsSettled(n *jsongen.Node) bool {
	switch n.Kind {
	case canon.Number:
		return !strings.ContainsAny(n.Raw, ".eE") || f32Settled(n.Raw)
	case canon.Array:
		for _, e := range n.Elems {
			if !floatsSettled(e) {
				return false
			}
		}
	case canon.Object:
		for _, v := range n.Vals {
			if !floatsSettled(v) {
				return false
			}
		}
	}
	return true
}
