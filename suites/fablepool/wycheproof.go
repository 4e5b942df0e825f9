package fablepool

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/corpus"
	"github.com/refereehq/referee/internal/regularfile"
)

// wycheproofFile is the part of a Wycheproof EddsaVerify file the suite reads.
type wycheproofFile struct {
	Algorithm  string `json:"algorithm"`
	TestGroups []struct {
		PublicKey struct {
			PK string `json:"pk"`
		} `json:"publicKey"`
		Tests []struct {
			TcID    int      `json:"tcId"`
			Comment string   `json:"comment"`
			Msg     string   `json:"msg"`
			Sig     string   `json:"sig"`
			Result  string   `json:"result"`
			Flags   []string `json:"flags"`
		} `json:"tests"`
	} `json:"testGroups"`
}

// wycheproofChecks reads a Wycheproof Ed25519 verify file of at most limit
// bytes as fablepool/wycheproof/<tcId> checks: valid must verify, invalid
// must not.
func wycheproofChecks(path string, limit int64) ([]check.Check, error) {
	raw, err := regularfile.ReadFile(path, limit)
	if err != nil {
		return nil, fmt.Errorf("--wycheproof: %w", err)
	}
	if err := corpus.DecodeJSON(raw, new(json.RawMessage)); err != nil {
		return nil, fmt.Errorf("--wycheproof %s: %w", path, err)
	}
	var f wycheproofFile
	if err := json.Unmarshal(raw, &f); err != nil {
		return nil, fmt.Errorf("--wycheproof %s: %w", path, err)
	}
	if f.Algorithm != "EDDSA" {
		return nil, fmt.Errorf("--wycheproof %s: algorithm %q, want EDDSA", path, f.Algorithm)
	}
	var out []check.Check
	seen := map[int]bool{}
	for _, g := range f.TestGroups {
		for _, t := range g.Tests {
			if seen[t.TcID] {
				return nil, fmt.Errorf("--wycheproof %s: tcId %d twice", path, t.TcID)
			}
			seen[t.TcID] = true
			// A value that is not hex is the file's fault, not the
			// implementation's: verify would be blamed for refusing it.
			for _, f := range []struct{ name, v string }{{"publicKey.pk", g.PublicKey.PK}, {"msg", t.Msg}, {"sig", t.Sig}} {
				if _, err := hex.DecodeString(f.v); err != nil {
					return nil, fmt.Errorf("--wycheproof %s: tcId %d: %s is not hex: %v", path, t.TcID, f.name, err)
				}
			}
			var want bool
			switch t.Result {
			case "valid":
				want = true
			case "invalid":
			default:
				return nil, fmt.Errorf("--wycheproof %s: tcId %d: result %q (only valid and invalid are defined for Ed25519)", path, t.TcID, t.Result)
			}
			doc := fmt.Sprintf("Wycheproof tcId %d (%s): %s", t.TcID, t.Result, t.Comment)
			out = append(out, verifyCheck("fablepool/wycheproof/"+strconv.Itoa(t.TcID), doc, clauseStrictVerify, g.PublicKey.PK, t.Msg, t.Sig, want))
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("--wycheproof %s: no tests", path)
	}
	return out, nil
}
