package cdc

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"

	"github.com/refereehq/referee/canon"
	pc "github.com/refereehq/referee/protocols/cdc"
)

// validateInput returns {"shape": S, "value": V}: an instance of a shape
// the corpus has a schema for (drawn by m.weights), from schemagen, seeded
// with the corpus's valid fixtures of that shape.
func (m *fuzzMaterial) validateInput(r *rand.Rand) []byte {
	if m.load() != nil || m.gen == nil {
		return []byte(`{}`)
	}
	x := r.Float64() * m.weights[len(m.weights)-1]
	shape := m.cp.Shapes[min(len(m.cp.Shapes)-1, sort.SearchFloat64s(m.weights, x))]
	v, _ := m.gen.Instance(r, shape, m.seeds[shape])
	return []byte(`{"shape":` + jsonText(shape) + `,"value":` + v.String() + `}`)
}

// validateVector is the fixture an input makes (fixtureFor).
func (m *fuzzMaterial) validateVector(name string, input []byte) (any, bool) {
	in, err := canon.Parse(input, canon.ReadOptions{})
	if err != nil || m.load() != nil || m.v == nil {
		return nil, false
	}
	shape, ok1 := in.Lookup("shape")
	value, ok2 := in.Lookup("value")
	if !ok1 || !ok2 || shape.Kind != canon.String || !slices.Contains(m.cp.Shapes, shape.Str) {
		return nil, false
	}
	return m.fixtureFor(name, shape.Str, value, nil, false)
}

// applicators are the keywords the reference reports around the errors
// of what they apply (Ajv's terms): where an error is, is where the
// first other keyword failed.
var applicators = []string{"$ref", "allOf", "anyOf", "oneOf", "if", "then", "else"}

// fixtureFor makes the fixture of value as shape, judged as the checks of
// a fixture judge it, by the reference:
//   - refused by the schema: an invalid fixture, expected at the instance
//     path of the reference's first error that is not an applicator's;
//   - a lease or record that breaks a rule (given chain, when haveChain): a
//     by-rule fixture at the reference's first finding, with the chain as
//     context;
//   - else a valid fixture, when the checks a valid fixture makes pass on
//     the reference: the unknown field planted is tolerated, and a
//     config-core's sealed paths name something.
//
// ok is false for a value no fixture can hold: one the reference could
// not decide (a pattern's match budget spent), one already holding the
// field the round-trip checks plant, a schema-invalid value of the rules
// target (haveChain: a by-rule fixture must be schema-valid).
func (m *fuzzMaterial) fixtureFor(name, shape string, value canon.Value, chain []string, haveChain bool) (any, bool) {
	if holdsPlanted(value) {
		return nil, false
	}
	ok, errs, err := m.v.Validate(shape, value)
	if err != nil {
		return nil, false
	}
	text := json.RawMessage(value.String())
	if !ok {
		if haveChain || len(errs) == 0 {
			return nil, false
		}
		e := errs[0]
		for _, x := range errs {
			if x.Message != "" {
				return nil, false // undecided
			}
		}
		if i := slices.IndexFunc(errs, func(x pc.SchemaError) bool { return !slices.Contains(applicators, x.Keyword) }); i >= 0 {
			e = errs[i]
		}
		path := e.InstancePath
		if path == "" {
			path = "/" // as upstream's expectations and runner write the root
		}
		reason := fmt.Sprintf("Found by referee fuzz: the reference's validator refuses it at %s (%s).", path, e.Keyword)
		return fuzzFixture{Kind: "invalid", Shape: shape, Name: name, Value: text, Reason: reason, Expect: &fuzzExpect{Path: &path, Keyword: e.Keyword}}, true
	}
	if shape == "agent-lease" || shape == "lease-record" {
		if found := pc.Rules(value, chain, haveChain); len(found) > 0 {
			f := found[0]
			rule, path := f.Rule, f.Path
			x := &fuzzExpect{Rule: &rule, Path: &path}
			given := "without the chain"
			if haveChain {
				x.Context = &fuzzContext{Chain: chain}
				if x.Context.Chain == nil {
					x.Context.Chain = []string{}
				}
				given = "given the chain " + jsonText(x.Context.Chain)
			}
			reason := fmt.Sprintf("Found by referee fuzz: schema-valid, and the reference's rules find %s at %s %s: %s.", rule, pathOrRoot(path), given, f.Message)
			return fuzzFixture{Kind: "invalid-by-rule", Shape: shape, Name: name, Value: text, Reason: reason, Expect: x}, true
		}
	}
	if marked, _ := plant(Release12, value); !m.valid(shape, marked) {
		return nil, false
	}
	if shape == "config-core" && !sealedResolve(value) {
		return nil, false
	}
	return fuzzFixture{Kind: "valid", Shape: shape, Name: name, Value: text}, true
}

func pathOrRoot(p string) string {
	if p == "" {
		return "the root"
	}
	return p
}

// holdsPlanted reports whether value, or the object plant would plant in,
// already has the field the round-trip checks plant.
func holdsPlanted(value canon.Value) bool {
	found := false
	value.Walk(func(x *canon.Value) bool {
		for _, mem := range x.Members {
			found = found || mem.Key == planted
		}
		return !found
	})
	return found
}

// sealedResolve reports whether every path a config-core's sealed names
// resolves in it (the corpus's completeness rule for valid fixtures).
func sealedResolve(v canon.Value) bool {
	sealed, ok := v.Lookup("sealed")
	if !ok || sealed.Kind != canon.Array {
		return true
	}
	for _, s := range sealed.Elems {
		if s.Kind == canon.String && !resolves(v, strings.Split(s.Str, ".")) {
			return false
		}
	}
	return true
}
