package cdc

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/refereehq/referee/canon"
	pc "github.com/refereehq/referee/protocols/cdc"
)

// signInput returns {"declared": D, "lease": L, "tamper": [T, ...]}: a
// declaration (a manifest, spelled otherwise now and then: members out of
// order, numbers as 1e3 or 1000.0), a lease (one of the corpus's, its
// values taken to their edges now and then, members out of order) whose
// declared_hash and signature the vector computes, and up to two changes
// to make after signing (see tamperOf).
func (m *fuzzMaterial) signInput(r *rand.Rand) []byte {
	if m.load() != nil { // load first: another worker may be loading m
		return []byte(`{}`)
	}
	leases := m.seeds["agent-lease"]
	if m.gen == nil || len(leases) == 0 {
		return []byte(`{}`)
	}
	var declared canon.Value
	if ds := m.seeds["agent-lease-manifest"]; len(ds) > 0 && r.IntN(3) > 0 {
		declared = ds[r.IntN(len(ds))]
		if r.IntN(2) == 0 {
			declared = m.gen.Vary(r, "agent-lease-manifest", declared, false)
		}
	} else {
		declared = m.gen.Fresh(r, "agent-lease-manifest")
	}
	if r.IntN(2) == 0 {
		declared = respell(r, declared)
	}
	lease := leases[r.IntN(len(leases))]
	for range r.IntN(3) {
		lease = m.gen.Vary(r, "agent-lease", lease, false)
	}
	if r.IntN(4) == 0 {
		lease = shuffled(r, lease)
	}
	var tamper []string
	for range r.IntN(3) {
		tamper = append(tamper, tamperOf(r, lease))
	}
	return []byte(`{"declared":` + declared.String() + `,"lease":` + lease.String() + `,"tamper":[` + strings.Join(tamper, ",") + `]}`)
}

// tamperOf returns a change to make to a signed lease, as JSON: to its
// signature (one hex digit changed, upper-cased, something appended or put
// before it), or at a place in it (a string appended to, a number set one
// higher or only respelled, a member added or removed, an object's members
// reversed).
func tamperOf(r *rand.Rand, lease canon.Value) string {
	switch r.IntN(10) {
	case 0, 1:
		return `{"at":"/signature","flip":` + strconv.Itoa(r.IntN(64)) + `}`
	case 2:
		return `{"at":"/signature","upper":true}`
	case 3:
		return `{"at":"/signature","append":` + jsonText(pickOf(r, []string{"0", "00", " ", "\n", "g", "=", "0000000000000000000000000000000000000000000000000000000000000000"})) + `}`
	case 4:
		return `{"at":"/signature","prefix":` + jsonText(pickOf(r, []string{"0x", " ", "sha256:", "0"})) + `}`
	case 5:
		return `{"at":` + jsonText("/"+pickOf(r, []string{"x_added", "note", "signature2", "Signature"})) + `,"set":` + jsonText(pickOf(r, []string{"x", ""})) + `}`
	}
	var strs, nums, objs, members []string
	var walk func(v canon.Value, path string, depth int)
	walk = func(v canon.Value, path string, depth int) {
		switch v.Kind {
		case canon.String:
			if path != "/signature" {
				strs = append(strs, path)
			}
		case canon.Number:
			nums = append(nums, path)
		case canon.Object:
			objs = append(objs, path)
			for _, mem := range v.Members {
				p := path + "/" + canon.PointerToken(mem.Key)
				if depth == 0 && mem.Key != "signature" {
					members = append(members, p)
				}
				walk(mem.Value, p, depth+1)
			}
		case canon.Array:
			for i, e := range v.Elems {
				walk(e, path+"/"+strconv.Itoa(i), depth+1)
			}
		}
	}
	walk(lease, "", 0)
	objs = slices.DeleteFunc(objs, func(p string) bool { return p == "" })
	switch k := r.IntN(5); {
	case k == 0 && len(strs) > 0:
		return `{"at":` + jsonText(pickOf(r, strs)) + `,"append":` + jsonText(pickOf(r, []string{" ", "x", "\u00e9", "\u0000"})) + `}`
	case k == 1 && len(nums) > 0:
		return `{"at":` + jsonText(pickOf(r, nums)) + `,"respell":true}`
	case k == 2 && len(nums) > 0:
		return `{"at":` + jsonText(pickOf(r, nums)) + `,"add":1}`
	case k == 3 && len(objs) > 0:
		return `{"at":` + jsonText(pickOf(r, objs)) + `,"reorder":true}`
	case len(members) > 0:
		return `{"at":` + jsonText(pickOf(r, members)) + `,"remove":true}`
	}
	return `{"at":"/signature","upper":true}`
}

// signVector is the signature vector of an input: the lease with the
// declaration's hash as declared_hash, signed with the corpus's test key,
// and the input's changes as tamperings, each with the reference's verdict.
// ok is false unless the checks a signature vector makes pass on the
// reference: the lease validates as agent-lease and verifies, and fails to
// with its first signature digit flipped or its purpose edited.
func (m *fuzzMaterial) signVector(name string, input []byte) (any, bool) {
	in, err := canon.Parse(input, canon.ReadOptions{})
	if err != nil || m.load() != nil || m.key == nil {
		return nil, false
	}
	declared, ok1 := in.Lookup("declared")
	lease, ok2 := in.Lookup("lease")
	if !ok1 || !ok2 || lease.Kind != canon.Object {
		return nil, false
	}
	hash, err := pc.Hash(declared)
	if err != nil {
		return nil, false
	}
	lease = withMember(lease, "declared_hash", str(hash))
	sig, err := pc.Sign(lease, m.key)
	if err != nil {
		return nil, false
	}
	lease = withMember(lease, "signature", str(sig))
	if !m.valid("agent-lease", lease) || !pc.Verify(lease, m.key) || pc.Verify(flipSignature(lease), m.key) || pc.Verify(editPurpose(lease), m.key) {
		return nil, false
	}
	e := fuzzSigned{Name: name, Why: fuzzWhy, Lease: json.RawMessage(lease.String()), Declared: json.RawMessage(declared.String())}
	tamper, _ := in.Lookup("tamper")
	for _, op := range tamper.Elems {
		t, ok := resolveTamper(op, lease)
		if !ok {
			continue
		}
		changed, ok := t.apply(lease)
		if !ok || canon.Equal(changed, lease) {
			continue
		}
		t.Verifies = pc.Verify(changed, m.key)
		e.Tampered = append(e.Tampered, t)
	}
	return e, true
}

// withMember returns o with its member key set to v: where it is, or last.
func withMember(o canon.Value, key string, v canon.Value) canon.Value {
	out := o
	out.Members = slices.Clone(o.Members)
	for i, mem := range out.Members {
		if mem.Key == key {
			out.Members[i].Value = v
			return out
		}
	}
	out.Members = append(out.Members, canon.Member{Key: key, Value: v})
	return out
}

// resolveTamper makes an input's change to the signed lease a Tampering of
// the corpus format: the changes relative to what is there (flip, prefix,
// add, respell, reorder) become a set of the value they make.
func resolveTamper(op, lease canon.Value) (Tampering, bool) {
	at, _ := op.Lookup("at")
	if at.Kind != canon.String {
		return Tampering{}, false
	}
	t := Tampering{At: at.Str}
	toks, err := pointerTokens(at.Str)
	if err != nil || len(toks) == 0 {
		return Tampering{}, false
	}
	cur, present := lease.At(at.Str)
	setTo := func(v canon.Value, why string) (Tampering, bool) {
		t.Set, t.Why = json.RawMessage(v.String()), why
		return t, true
	}
	for _, mem := range op.Members {
		x := mem.Value
		switch mem.Key {
		case "upper":
			t.Upper, t.Why = true, "with "+at.Str+" upper-cased"
			return t, present && cur.Kind == canon.String
		case "append":
			if x.Kind != canon.String {
				return Tampering{}, false
			}
			s := x.Str
			t.Append, t.Why = &s, fmt.Sprintf("with %s appended to %s", jsonText(s), at.Str)
			return t, present && cur.Kind == canon.String
		case "remove":
			t.Remove, t.Why = true, "with "+at.Str+" removed"
			return t, present
		case "set":
			return setTo(x, "with "+at.Str+" set to "+jsonText(x.String()))
		case "flip":
			k, err := strconv.Atoi(x.Num)
			if !present || cur.Kind != canon.String || err != nil || k < 0 || k >= len(cur.Str) {
				return Tampering{}, false
			}
			c := "0123456789abcdef"[(strings.IndexByte("0123456789abcdef", cur.Str[k])+1+int(k%15))%16]
			return setTo(str(cur.Str[:k]+string(c)+cur.Str[k+1:]), fmt.Sprintf("with hex digit %d of %s changed", k+1, at.Str))
		case "prefix":
			if !present || cur.Kind != canon.String || x.Kind != canon.String {
				return Tampering{}, false
			}
			return setTo(str(x.Str+cur.Str), fmt.Sprintf("with %s put before %s", jsonText(x.Str), at.Str))
		case "add":
			f, err := strconv.ParseFloat(cur.Num, 64)
			if !present || cur.Kind != canon.Number || err != nil {
				return Tampering{}, false
			}
			return setTo(numberOf(f+1), "with "+at.Str+" one higher")
		case "respell":
			if !present || cur.Kind != canon.Number {
				return Tampering{}, false
			}
			n := respellNumber(cur.Num, len(at.Str))
			if n == cur.Num {
				return Tampering{}, false
			}
			return setTo(canon.Value{Kind: canon.Number, Num: n}, fmt.Sprintf("with %s respelled %s (the same number)", at.Str, n))
		case "reorder":
			if !present || cur.Kind != canon.Object || len(cur.Members) < 2 {
				return Tampering{}, false
			}
			rev := cur
			rev.Members = slices.Clone(cur.Members)
			slices.Reverse(rev.Members)
			return setTo(rev, "with the members of "+at.Str+" in reverse order")
		}
	}
	return Tampering{}, false
}

func numberOf(f float64) canon.Value {
	s, err := canon.FormatES6(f)
	if err != nil {
		s = "0"
	}
	return canon.Value{Kind: canon.Number, Num: s}
}

// respellNumber returns another lexeme of the number n: with a fraction,
// an exponent, an upper-case E (which, by k, is chosen).
func respellNumber(n string, k int) string {
	f, err := strconv.ParseFloat(n, 64)
	if err != nil {
		return n
	}
	forms := []string{strconv.FormatFloat(f, 'e', -1, 64), strings.ToUpper(strconv.FormatFloat(f, 'e', -1, 64))}
	if !strings.ContainsAny(n, ".eE") {
		forms = append(forms, n+".0", n+"e0", n+".00")
	}
	return forms[k%len(forms)]
}

// respell returns v spelled otherwise, the same JSON value: numbers in
// another form, the members of objects in reverse order now and then.
func respell(r *rand.Rand, v canon.Value) canon.Value {
	switch v.Kind {
	case canon.Number:
		if r.IntN(2) == 0 {
			v.Num = respellNumber(v.Num, r.IntN(5))
		}
	case canon.Array:
		elems := make([]canon.Value, len(v.Elems))
		for i, e := range v.Elems {
			elems[i] = respell(r, e)
		}
		v.Elems = elems
	case canon.Object:
		ms := make([]canon.Member, len(v.Members))
		for i, mem := range v.Members {
			ms[i] = canon.Member{Key: mem.Key, Value: respell(r, mem.Value)}
		}
		if r.IntN(3) == 0 {
			slices.Reverse(ms)
		}
		v.Members = ms
	}
	return v
}

// shuffled returns v with its members in a random order, at the top and
// in its objects one level down.
func shuffled(r *rand.Rand, v canon.Value) canon.Value {
	out := v
	out.Members = slices.Clone(v.Members)
	r.Shuffle(len(out.Members), func(i, j int) { out.Members[i], out.Members[j] = out.Members[j], out.Members[i] })
	for i, mem := range out.Members {
		if mem.Value.Kind == canon.Object && r.IntN(2) == 0 {
			inner := mem.Value
			inner.Members = slices.Clone(inner.Members)
			r.Shuffle(len(inner.Members), func(a, b int) { inner.Members[a], inner.Members[b] = inner.Members[b], inner.Members[a] })
			out.Members[i].Value = inner
		}
	}
	return out
}

// The instants the rules generator issues leases at, and the distances
// from issue to expiry it tries: none, a millisecond either way, within
// and across a second, across midnight, a month, a leap day and a year.
var (
	ruleInstants = []string{"2026-09-15T10:00:00.000Z", "2026-09-15T23:59:59.999Z", "2028-02-28T23:59:59.500Z",
		"2026-12-31T23:59:59.999Z", "2026-09-15T10:00:00.999Z", "1970-01-01T00:00:00.000Z", "2026-01-31T12:00:00.001Z"}
	ruleDeltas = []time.Duration{0, time.Millisecond, -time.Millisecond, 999 * time.Millisecond, -999 * time.Millisecond, time.Second,
		-time.Second, 1001 * time.Millisecond, 15 * time.Minute, -15 * time.Minute, 24 * time.Hour, -24 * time.Hour, 366 * 24 * time.Hour, 500 * time.Millisecond}
)

const stampLayout = "2006-01-02T15:04:05.000Z"

// uuidOf returns a lower-case UUID drawn from r.
func uuidOf(r *rand.Rand) string {
	const hexDigits = "0123456789abcdef"
	b := []byte("xxxxxxxx-xxxx-4xxx-8xxx-xxxxxxxxxxxx")
	for i, c := range b {
		if c == 'x' {
			b[i] = hexDigits[r.IntN(16)]
		}
	}
	return string(b)
}

// nearID returns id with one hex digit changed.
func nearID(r *rand.Rand, id string) string {
	if id == "" {
		return id
	}
	k := r.IntN(len(id))
	if id[k] == '-' {
		k = 0
	}
	c := byte('0')
	if id[k] == '0' {
		c = '1'
	}
	return id[:k] + string(c) + id[k+1:]
}

// rulesInput returns {"shape": S, "value": V} and, half the time, a
// "chain": a lease whose expiry is at, just before or just after its
// issue, that is or is not its own parent; or a lease record revoked by
// the issuer, an ancestor, its own parent, itself or a stranger, with or
// without expires_at and issued_at, given no chain, an empty one, or one
// that holds the revoker or not.
func (m *fuzzMaterial) rulesInput(r *rand.Rand) []byte {
	if m.load() != nil {
		return []byte(`{}`)
	}
	var shapes []string
	for _, s := range []string{"agent-lease", "lease-record"} {
		if len(m.seeds[s]) > 0 && slices.Contains(m.cp.Shapes, s) {
			shapes = append(shapes, s)
		}
	}
	if len(shapes) == 0 {
		return []byte(`{}`)
	}
	shape := shapes[r.IntN(len(shapes))]
	v := m.seeds[shape][r.IntN(len(m.seeds[shape]))]
	id := uuidOf(r)
	if old, ok := v.Lookup("lease_id"); ok && old.Kind == canon.String && r.IntN(2) == 0 {
		id = old.Str
	}
	v = withMember(v, "lease_id", str(id))
	stamps := func() {
		issued, _ := time.Parse(stampLayout, pickOf(r, ruleInstants))
		expires := issued.Add(ruleDeltas[r.IntN(len(ruleDeltas))])
		v = withMember(v, "issued_at", str(issued.UTC().Format(stampLayout)))
		v = withMember(v, "expires_at", str(expires.UTC().Format(stampLayout)))
	}
	parent := ""
	switch r.IntN(5) {
	case 0:
		parent = id
	case 1:
		parent = nearID(r, id)
	case 2:
		parent = uuidOf(r)
	case 3:
		if p, ok := v.Lookup("parent_lease_id"); ok {
			parent = p.Str
		}
	}
	if parent != "" {
		v = withMember(v, "parent_lease_id", str(parent))
	} else {
		v, _ = withoutMember(v, "parent_lease_id")
	}
	var chain []string
	haveChain := r.IntN(2) == 0
	if shape == "agent-lease" {
		stamps()
		if haveChain && parent != "" && r.IntN(2) == 0 {
			chain = []string{parent}
		}
	} else {
		if r.IntN(4) == 0 {
			stamps()
		}
		if r.IntN(3) > 0 {
			v = withMember(v, "event", str("revoked"))
			by := pickOf(r, []string{"issuer", parent, id, uuidOf(r), nearID(r, parent)})
			if by == "" {
				by = "issuer"
			}
			v = withMember(v, "by", str(by))
			switch r.IntN(4) {
			case 0:
				chain = []string{by}
			case 1:
				chain = []string{parent, by}
			case 2:
				chain = []string{uuidOf(r)}
			}
			chain = slices.DeleteFunc(chain, func(c string) bool { return c == "" })
		}
	}
	text := `{"shape":` + jsonText(shape) + `,"value":` + v.String()
	if haveChain {
		if chain == nil {
			chain = []string{}
		}
		text += `,"chain":` + jsonText(chain)
	}
	return []byte(text + "}")
}

// withoutMember returns o without its member key (ok false when it had none).
func withoutMember(o canon.Value, key string) (canon.Value, bool) {
	i := slices.IndexFunc(o.Members, func(m canon.Member) bool { return m.Key == key })
	if i < 0 {
		return o, false
	}
	out := o
	out.Members = slices.Delete(slices.Clone(o.Members), i, i+1)
	return out, true
}

// rulesVector is the valid or by-rule fixture of a schema-valid lease or
// record (fixtureFor), given its chain when the input has one.
func (m *fuzzMaterial) rulesVector(name string, input []byte) (any, bool) {
	in, err := canon.Parse(input, canon.ReadOptions{})
	if err != nil || m.load() != nil || m.v == nil {
		return nil, false
	}
	shape, ok1 := in.Lookup("shape")
	value, ok2 := in.Lookup("value")
	if !ok1 || !ok2 || (shape.Str != "agent-lease" && shape.Str != "lease-record") || !slices.Contains(m.cp.Shapes, shape.Str) || !m.valid(shape.Str, value) {
		return nil, false
	}
	c, haveChain := in.Lookup("chain")
	var chain []string
	if haveChain {
		if c.Kind != canon.Array {
			return nil, false
		}
		for _, e := range c.Elems {
			if e.Kind != canon.String {
				return nil, false
			}
			chain = append(chain, e.Str)
		}
	}
	return m.fixtureFor(name, shape.Str, value, chain, haveChain)
}
