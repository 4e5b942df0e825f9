package cdc

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"math"
	"slices"
	"strings"

	"github.com/refereehq/referee/adapter"
	"github.com/refereehq/referee/canon"
	"github.com/refereehq/referee/canon/mutant"
	"github.com/refereehq/referee/check"
	pc "github.com/refereehq/referee/protocols/cdc"
)

// Mode is a deliberately broken variant of the built-in adapter.
type Mode struct {
	Name string
	Doc  string

	noPaths       bool           // validate reports no errors array
	childPaths    bool           // errors reported one level too deep
	rejectAll     bool           // validate refuses everything
	acceptAll     bool           // validate accepts everything
	strip         bool           // roundTrip drops unknown members
	writer        *mutant.Writer // canonical bytes written this way
	nonfiniteNull bool           // a non-finite number is written as null
	narrowNoClamp bool           // budgets not clamped to the parent's
	narrowNoUnion bool           // deny lists and approvals not unioned with the parent's
	narrowPass    bool           // the declaration granted as it stands, never refused
	hashRaw       bool           // hash of the value as sent, not of its canonical bytes
	verifyTrim    bool           // verify trims the purpose first, so an edited purpose verifies
	verifyKeyText bool           // the key's hex text used as the HMAC key
	verifyAlways  bool           // verify says true for any well-formed signature
	l3NoJournal   bool           // L3 applied without the journal
	rulesNone     bool           // rules never finds anything
	l2Present     bool           // L2 flags any parent_lease_id
	l1Inverted    bool           // L1's comparison the wrong way round
	l1NoExpiry    bool           // a missing expires_at counts as expired

	// The bugs of validators and writers that are not Ajv, which only the
	// supplement catches (see supplement.go).
	dialect        *dialect  // patterns read in another regular-expression dialect
	lengthUTF16    bool      // string lengths counted in UTF-16 code units
	integerLexeme  bool      // an integer written with a fraction or exponent refused
	closedDeep     bool      // undeclared members refused two levels down or deeper
	stripDeep      bool      // roundTrip drops undeclared members two levels down or deeper
	verifyAnyCase  bool      // verify compares the bytes the signature's hex decodes to
	narrowReversed bool      // containment also tested backwards, child as the pattern
	narrowPrefix   bool      // dir/** contains anything whose text starts with dir
	hostSuffix     bool      // *.domain contains every host ending in .domain, at any depth
	floats         floatForm // how numbers with a fraction or exponent are written

	// The bugs the fuzz targets find (see fuzz.go).
	schemas        func(canon.Value) canon.Value // each schema object read otherwise (draft4, exclusive-inclusive, pattern-full-match)
	verifyLenient  bool                          // verify decodes the signature's hex up to the first pair that is not hex
	l1SameInstant  bool                          // L1 flags only an expiry before the issue
	narrowToolPref bool                          // a declared tool kept when a parent tool is a prefix of it
}

// Modes lists the built-in adapter's broken modes.
var Modes = []Mode{
	{Name: "no-paths", Doc: "validate reports no errors, so rejection paths cannot be checked", noPaths: true},
	{Name: "child-paths", Doc: "reports each error one level below where it is", childPaths: true},
	{Name: "reject-all", Doc: "validate refuses everything, as a validator whose schemas did not compile", rejectAll: true},
	{Name: "accept-all", Doc: "validate accepts everything, as a validator that skips unknown keywords", acceptAll: true},
	{Name: "strip-unknown", Doc: "roundTrip drops members it does not know, as a typed reader does", strip: true},
	{Name: "unsorted", Doc: "canonical members in input order", writer: &mutant.Writer{Keys: mutant.Unsorted, Surrogates: mutant.Escape}},
	{Name: "ascii-escape", Doc: `canonical strings with non-ASCII escaped as \uXXXX`, writer: &mutant.Writer{Strings: mutant.ASCII, Surrogates: mutant.Escape}},
	{Name: "codepoint-order", Doc: "canonical keys by code point, not UTF-16 code units", writer: &mutant.Writer{Keys: mutant.CodePoint, Surrogates: mutant.Escape}},
	{Name: "reject-surrogates", Doc: "canonicalise refuses lone surrogates, as a strict RFC 8785 library does", writer: &mutant.Writer{}},
	{Name: "html-escape", Doc: `canonical strings escaped as Go's encoding/json does`, writer: &mutant.Writer{Strings: mutant.HTML}},
	{Name: "go-float", Doc: "canonical numbers in Go's 'g' format", writer: &mutant.Writer{Numbers: mutant.GoFloat, Surrogates: mutant.Escape}},
	{Name: "nonfinite-null", Doc: "writes null for NaN and Infinity instead of failing", nonfiniteNull: true},
	{Name: "narrow-no-clamp", Doc: "narrow keeps the declared budget, depth and fan_out", narrowNoClamp: true},
	{Name: "narrow-no-union", Doc: "narrow keeps only the declared deny lists and approvals", narrowNoUnion: true},
	{Name: "narrow-passthrough", Doc: "narrow grants the declaration as it stands and refuses nothing", narrowPass: true},
	{Name: "hash-raw", Doc: "hash over the value as sent, not its canonical bytes", hashRaw: true},
	{Name: "verify-trims-purpose", Doc: "verify trims the purpose before checking, so an edited purpose still verifies", verifyTrim: true},
	{Name: "verify-key-text", Doc: "uses the key's hex text as the HMAC key instead of its 32 bytes", verifyKeyText: true},
	{Name: "verify-rubber-stamp", Doc: "verify says true for any well-formed signature", verifyAlways: true},
	{Name: "l3-without-journal", Doc: "applies L3 when no journal is given, as if the chain were empty", l3NoJournal: true},
	{Name: "rules-none", Doc: "rules finds nothing", rulesNone: true},
	{Name: "l1-inverted", Doc: "L1 flags a lease whose expiry is after its issue, the comparison reversed", l1Inverted: true},
	{Name: "l1-missing-expiry", Doc: "L1 flags a lease or record without expires_at, as if it had expired", l1NoExpiry: true},
	{Name: "l2-any-parent", Doc: "L2 flags any parent_lease_id, not only one equal to lease_id", l2Present: true},
	{Name: "python-re", Doc: `validate reads patterns as Python's re does (python-jsonschema): $ also matches before a final line feed, \d any Unicode decimal digit, \s Python's white space, . anything but a line feed`, dialect: &pythonRe},
	{Name: "re2-classes", Doc: `validate reads patterns with Go's RE2 classes: \s is only [\t\n\f\r ], . anything but a line feed`, dialect: &re2Classes},
	{Name: "length-utf16", Doc: "validate counts string lengths in UTF-16 code units (String.length, Java, .NET), so a character beyond the BMP counts twice", lengthUTF16: true},
	{Name: "integer-lexeme", Doc: "validate refuses an integer written with a fraction or exponent (200.0, 4E5), as a reader into a typed integer field does", integerLexeme: true},
	{Name: "closed-deep", Doc: "validate refuses members no schema declares in objects two levels down or deeper, as typed readers with closed nested models do", closedDeep: true},
	{Name: "strip-deep", Doc: "roundTrip drops members no schema declares from objects two levels down or deeper", stripDeep: true},
	{Name: "verify-any-case", Doc: "verify compares the bytes the signature's hex decodes to, so an upper-case signature verifies", verifyAnyCase: true},
	{Name: "narrow-wildcard-reversed", Doc: "narrow also keeps a declared host or path that, read as a pattern, matches a parent entry: containment tested backwards", narrowReversed: true},
	{Name: "narrow-path-prefix", Doc: "narrow reads dir/** as containing anything whose text starts with dir, separator or not", narrowPrefix: true},
	{Name: "narrow-host-suffix", Doc: "narrow reads *.example.com as containing every host that ends in .example.com, a.b.example.com too, not a single label only", hostSuffix: true},
	{Name: "float-repr", Doc: "canonical numbers written with a fraction or exponent come out as Python's repr writes floats (1.0, 1e+16, 1e-05), the exponent's leading zeros dropped", floats: floatRepr},
	{Name: "float-exponent-16", Doc: "canonical numbers switch to exponent form from 1e16 and below 1e-4, as Python's repr does, integral values below 1e16 written as integers", floats: floatExponent16},
	{Name: "negative-zero", Doc: "canonical numbers keep the sign of zero: -0, as Go's strconv writes it, where ECMAScript writes 0", floats: floatNegativeZero},
	{Name: "draft4", Doc: "validate ignores the keywords draft-06 and draft-07 added (const, contains, propertyNames, if, then, else), as a draft-04 validator does", schemas: draft4},
	{Name: "exclusive-inclusive", Doc: "validate reads exclusiveMinimum and exclusiveMaximum as inclusive bounds, so the bound itself passes (a hook timeout of 0)", schemas: inclusiveBounds},
	{Name: "pattern-full-match", Doc: "validate requires a pattern to match the whole string, as Java's String.matches and Python's re.fullmatch do, where JSON Schema's may match anywhere in it: a path a/../b escapes no longer", schemas: fullMatch},
	{Name: "verify-lenient-hex", Doc: "verify decodes the signature's hex as Node's Buffer.from(sig, 'hex') does, up to the first pair that is not hex digits (of either case), so a signature with something appended, or upper-cased, still verifies", verifyLenient: true},
	{Name: "l1-same-instant", Doc: "L1 flags only an expiry before the issue: a lease that expires at the instant it was issued passes, the boundary off by one", l1SameInstant: true},
	{Name: "narrow-tool-prefix", Doc: "narrow keeps a declared tool when a parent tool is a prefix of it (github/create_issue_comment under github/create_issue), as a startsWith test does", narrowToolPref: true},
}

// Handler is the built-in adapter: protocols/cdc over a corpus's schemas,
// with every hook, narrow included.
type Handler struct {
	v    *pc.Validator // nil for a corpus without schemas
	mode Mode
	// declared holds, per shape, every member name the shape's schema
	// declares (closed-deep and strip-deep).
	declared map[string]map[string]bool
}

// Reference returns the built-in adapter for cp in mode ("" for the honest one).
func Reference(cp *Corpus, mode string) (*Handler, error) {
	h := &Handler{}
	if mode != "" {
		m, err := check.FindMode(Name, Modes, func(m *Mode) string { return m.Name }, mode)
		if err != nil {
			return nil, err
		}
		h.mode = *m
	}
	if len(cp.Shapes) == 0 {
		return h, nil // vectors only: nothing to validate against
	}
	var err error
	if rw := h.mode.rewrite(); rw != nil {
		var fsys fs.FS
		if fsys, err = rewriteSchemas(cp.FS, rw); err != nil {
			return nil, err
		}
		h.v, err = pc.NewValidator(fsys)
	} else {
		h.v, err = cp.validator()
	}
	if err != nil {
		return nil, err
	}
	if h.mode.closedDeep || h.mode.stripDeep {
		if h.declared, err = declaredNames(cp); err != nil {
			return nil, err
		}
	}
	return h, nil
}

// Hello describes the built-in adapter.
func (h *Handler) Hello() adapter.Hello {
	name := "referee-cdc"
	if h.mode.Name != "" {
		name += "+" + h.mode.Name
	}
	return adapter.Hello{Name: name, Version: "1.0.0", Ops: []string{OpValidate, OpRoundTrip, OpCanonicalise, OpNarrow, OpHash, OpVerify, OpRules}, Concurrency: 8}
}

func bad(msg string) *adapter.Error { return &adapter.Error{Code: "bad_args", Message: msg} }

// Handle performs one op.
func (h *Handler) Handle(ctx context.Context, op string, raw []byte) (json.RawMessage, *adapter.Error) {
	args, err := canon.Parse(raw, canon.ReadOptions{})
	if err != nil || args.Kind != canon.Object {
		return nil, bad("args must be an object")
	}
	arg := func(k string) canon.Value { v, _ := args.Lookup(k); return v }
	// A value sent with its text (name_text) is read from the text, which
	// keeps what the verdict depends on; the value is the same JSON.
	for _, k := range []string{"value", "declared", "parent", "lease"} {
		t, ok := args.Lookup(k + "_text")
		if !ok || t.Kind != canon.String {
			continue
		}
		v, err := canon.Parse([]byte(t.Str), canon.ReadOptions{})
		if err != nil {
			return nil, bad(k + "_text is not JSON: " + err.Error())
		}
		for i := range args.Members {
			if args.Members[i].Key == k {
				args.Members[i].Value = v
			}
		}
	}
	m := h.mode
	switch op {
	case OpValidate:
		shape, value := arg("shape").Str, arg("value")
		if h.v == nil {
			return nil, &adapter.Error{Code: "unknown_shape", Message: fmt.Sprintf("cdc: unknown shape %q: the corpus has no schemas", shape)}
		}
		switch {
		case m.lengthUTF16:
			value = doubleAstral(value)
		case m.integerLexeme:
			value = unIntegral(value)
		}
		ok, errs, err := h.v.Validate(shape, value)
		if err != nil {
			return nil, &adapter.Error{Code: "unknown_shape", Message: err.Error()}
		}
		if m.closedDeep && ok {
			if p, found := undeclaredDeep(value, h.declared[shape]); found {
				ok, errs = false, []pc.SchemaError{{InstancePath: p, Keyword: "additionalProperties"}}
			}
		}
		switch {
		case m.rejectAll:
			ok, errs = false, []pc.SchemaError{{InstancePath: "", Keyword: "schema"}}
		case m.acceptAll:
			ok, errs = true, nil
		case m.childPaths:
			for i := range errs {
				errs[i].InstancePath += "/x"
			}
		}
		reply := map[string]any{"valid": ok}
		if !m.noPaths {
			if errs == nil {
				errs = []pc.SchemaError{}
			}
			reply["errors"] = errs
		}
		b, _ := json.Marshal(reply)
		return b, nil
	case OpRoundTrip:
		v := arg("value")
		switch {
		case m.strip:
			v = stripPlanted(v)
		case m.stripDeep:
			v = stripDeep(v, h.declared[arg("shape").Str], 0)
		}
		return json.RawMessage(v.String()), nil
	case OpCanonicalise:
		v := arg("value")
		if nf, ok := args.Lookup("nonfinite"); ok {
			if m.nonfiniteNull {
				return json.RawMessage(`"{\"x\":null}"`), nil
			}
			which, _ := nf.Lookup("value")
			return nil, &adapter.Error{Code: "non_finite", Message: fmt.Sprintf("canonicalise: %s is not serialisable (%v)", which.Str, math.NaN())}
		}
		b, err := h.canonical(v)
		if err != nil {
			return nil, &adapter.Error{Code: "canonical_unsupported", Message: err.Error()}
		}
		out, _ := canon.JSONStringify.Marshal(string(b))
		return out, nil
	case OpNarrow:
		granted, refusals := h.narrow(arg("declared"), arg("parent"))
		if len(refusals) > 0 {
			b, _ := json.Marshal(map[string]any{"refusals": refusals})
			return b, nil
		}
		return json.RawMessage(`{"granted":` + granted.String() + `}`), nil
	case OpHash:
		v := arg("value")
		if m.hashRaw {
			return jsonString(sha256Hex([]byte(v.String()))), nil
		}
		b, err := h.canonical(v)
		if err != nil {
			return nil, &adapter.Error{Code: "canonical_unsupported", Message: err.Error()}
		}
		return jsonString(sha256Hex(b)), nil
	case OpVerify:
		lease := arg("lease")
		keyHex := arg("key_hex").Str
		key, err := hex.DecodeString(keyHex)
		if err != nil {
			return nil, bad("key_hex is not hex")
		}
		if m.verifyKeyText {
			key = []byte(keyHex)
		}
		if m.verifyTrim {
			lease = trimPurpose(lease)
		}
		ok := pc.Verify(lease, key)
		if m.verifyLenient {
			ok = verifyLenientHex(lease, key)
		}
		if m.verifyAlways {
			sig, _ := lease.Lookup("signature")
			ok = len(sig.Str) == 64
		}
		if m.verifyAnyCase && !ok {
			ok = pc.Verify(lowerSignature(lease), key)
		}
		return json.RawMessage(fmt.Sprint(ok)), nil
	case OpRules:
		chainV, haveChain := args.Lookup("chain")
		var chain []string
		for _, e := range chainV.Elems {
			chain = append(chain, e.Str)
		}
		lease := arg("lease")
		found := pc.Rules(lease, chain, haveChain || m.l3NoJournal)
		if m.rulesNone {
			found = nil
		}
		if m.l2Present {
			if p, ok := lease.Lookup("parent_lease_id"); ok && p.Kind == canon.String && !slices.ContainsFunc(found, func(f pc.Finding) bool { return f.Rule == "L2" }) {
				found = append(found, pc.Finding{Rule: "L2", Path: "/parent_lease_id"})
			}
		}
		if m.l1Inverted {
			found = invertL1(lease, found)
		}
		if m.l1SameInstant && sameInstant(lease) {
			found = slices.DeleteFunc(found, func(f pc.Finding) bool { return f.Rule == "L1" })
		}
		if _, ok := lease.Lookup("expires_at"); m.l1NoExpiry && !ok {
			found = append(found, pc.Finding{Rule: "L1", Path: "/expires_at"})
		}
		if found == nil {
			found = []pc.Finding{}
		}
		b, _ := json.Marshal(found)
		return b, nil
	}
	return nil, &adapter.Error{Code: "unknown_op", Message: op}
}

func jsonString(s string) json.RawMessage {
	b, _ := canon.JSONStringify.Marshal(s)
	return b
}

func (h *Handler) canonical(v canon.Value) ([]byte, error) {
	switch {
	case h.mode.writer != nil:
		return h.mode.writer.Append(nil, v)
	case h.mode.floats != floatES:
		return (&mutant.Writer{Numbers: mutant.Lexeme, Surrogates: mutant.Escape}).Append(nil, writeFloats(v, h.mode.floats))
	}
	return pc.Canonical(v)
}

func (h *Handler) narrow(declared, parent canon.Value) (canon.Value, []string) {
	m := h.mode
	if m.narrowPass {
		return declared, nil
	}
	granted, refusals := pc.Narrow(declared, parent)
	if len(refusals) > 0 {
		return granted, refusals
	}
	if m.narrowReversed || m.narrowPrefix || m.hostSuffix || m.narrowToolPref {
		return widen(granted, declared, parent, m), nil
	}
	if !(m.narrowNoClamp || m.narrowNoUnion) {
		return granted, refusals
	}
	for i, mem := range granted.Members {
		d, ok := declared.Lookup(mem.Key)
		switch {
		case m.narrowNoClamp && (mem.Key == "budget" || mem.Key == "depth" || mem.Key == "fan_out") && ok:
			granted.Members[i].Value = d
		case m.narrowNoUnion && (mem.Key == "deny" || mem.Key == "approvals") && ok:
			granted.Members[i].Value = d
		}
	}
	return granted, nil
}

func stripPlanted(v canon.Value) canon.Value {
	if v.Kind != canon.Object {
		return v
	}
	out := v
	out.Members = nil
	for _, m := range v.Members {
		if m.Key != planted {
			out.Members = append(out.Members, canon.Member{Key: m.Key, Value: stripPlanted(m.Value)})
		}
	}
	return out
}

func trimPurpose(lease canon.Value) canon.Value { return mapPurpose(lease, strings.TrimSpace) }

// invertL1 flags L1 exactly where the real rule does not.
func invertL1(lease canon.Value, found []pc.Finding) []pc.Finding {
	had := slices.ContainsFunc(found, func(f pc.Finding) bool { return f.Rule == "L1" })
	found = slices.DeleteFunc(found, func(f pc.Finding) bool { return f.Rule == "L1" })
	_, i := lease.Lookup("issued_at")
	_, e := lease.Lookup("expires_at")
	if !had && i && e {
		found = append(found, pc.Finding{Rule: "L1", Path: "/expires_at"})
	}
	return found
}
