// Package cdc is referee's Cognitive Delivery Contract suite: upstream's
// seven steps over a contract checkout or installed package (fixtures,
// rejection paths, round trips, canonical bytes, narrowing, signatures and
// lease rules), with each absent hook reported as NOT CHECKED, never passed.
package cdc

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"

	"github.com/refereehq/referee/check"
)

// Name is the suite's name, as in `referee run cdc`.
const Name = "cdc"

// Version is the suite's own version.
const Version = "1.1.0"

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// NativeReport is upstream's report: runConformance's return value, and
// what a loaded suite's Native returns. The 1.0 releases have only the
// first three members and failures.
type NativeReport struct {
	ValidCount        int      `json:"validCount"`
	InvalidCount      int      `json:"invalidCount"`
	CanonicalChecked  bool     `json:"canonicalChecked"`
	NarrowingChecked  *bool    `json:"narrowingChecked,omitempty"`
	SignaturesChecked *bool    `json:"signaturesChecked,omitempty"`
	RulesChecked      *bool    `json:"rulesChecked,omitempty"`
	ErrorPathsChecked *bool    `json:"errorPathsChecked,omitempty"`
	Failures          []string `json:"failures"`
}

// Native renders a run over cp as upstream's report: each flag is whether
// that hook ran, and failures carry upstream's messages. A check the run
// never got to ("not run: ", after it gave up or was interrupted) ran no
// hook: an incomplete run's report claims no check it did not make. Only
// upstream's corpus counts: the supplement's checks are left out.
func (cp *Corpus) Native(run *check.Execution) *NativeReport {
	out := &NativeReport{ValidCount: len(cp.Valid), InvalidCount: len(cp.Invalid), Failures: []string{}}
	flags := map[string]bool{}
	for _, r := range run.All() {
		if strings.HasPrefix(r.ID, supplementPrefix) {
			continue
		}
		fam := family(r.ID)
		notRun := r.NotRun()
		ran := (r.Status == check.Pass || r.Status == check.Fail || r.Status == check.Error) && !notRun
		switch {
		case fam == "canonical" && ran:
			flags["canonical"] = true
		case fam == "narrowing" && !strings.HasSuffix(r.ID, "/vector") && ran && r.Reason != narrowNeeds:
			flags["narrowing"] = true
		case fam == "signatures" && !strings.HasSuffix(r.ID, "/lease") && ran:
			flags["signatures"] = true
		case fam == "rules" && !strings.HasSuffix(r.ID, "/schema-valid") && ran:
			flags["rules"] = true
		case fam == "invalid" && strings.HasSuffix(r.ID, "/path") && ran:
			flags["paths"] = true
		}
		switch r.Status {
		case check.Fail:
			// Upstream records its one run-wide failure (narrow without
			// canonicalise) once; every other failure is its own line.
			if r.Reason != narrowNeeds || !slices.Contains(out.Failures, r.Reason) {
				out.Failures = append(out.Failures, r.Reason)
			}
		case check.Error:
			out.Failures = append(out.Failures, r.ID+": error: "+r.Reason)
		}
	}
	out.CanonicalChecked = flags["canonical"]
	if cp.Release == Release12 {
		b := func(k string) *bool { v := flags[k]; return &v }
		out.NarrowingChecked, out.SignaturesChecked, out.RulesChecked, out.ErrorPathsChecked = b("narrowing"), b("signatures"), b("rules"), b("paths")
	}
	return out
}

func family(id string) string {
	parts := strings.SplitN(id, "/", 3)
	if len(parts) < 2 {
		return ""
	}
	return parts[1]
}
