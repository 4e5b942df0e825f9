package composer

import "strings"

// Mode is a deliberate breakage of one rule; Doc says which.
type Mode struct{ Name, Doc string }

// The mode names.
const (
	modePrefixVersion       = "prefix-version"
	modeExactVersion        = "exact-version"
	modeTruncateOverBudget  = "truncate-over-budget"
	modeNoFloodCheck        = "no-flood-check"
	modeComposeRaw          = "compose-raw"
	modeNoConsentGate       = "no-consent-gate"
	modeQueryBeforeConsent  = "query-before-consent"
	modeConsentCoversScopes = "consent-covers-scopes"
	modeTrustProvenance     = "trust-provenance"
	modeWholeFileDigest     = "whole-file-digest"
	modeRawContent          = "raw-content"
	modeCrashPoisons        = "crash-poisons"
	modeLeakCredential      = "leak-credential"
	modeNoBudgetBound       = "no-budget-bound"
	modeSilentDrop          = "silent-drop"
	modeArrivalOrder        = "arrival-order"
)

// Modes lists every broken mode, in a stable order.
var Modes = []Mode{
	{modePrefixVersion, `takes an ack for compatible when its version starts with "contextgraph/1", so contextgraph/10.0 passes (H3, §3.1)`},
	{modeExactVersion, `accepts only contextgraph/1.0 itself, refusing contextgraph/1.9 and contextgraph/1.0-draft of its own family (§3.1)`},
	{modeTruncateOverBudget, "keeps the frames of an over-budget reply that fit max_tokens instead of dropping the reply with a report (B2)"},
	{modeNoFloodCheck, "admits a reply with more frames than max_frames (B4)"},
	{modeComposeRaw, "reports over-budget and flooding replies, then composes from the raw replies anyway (the quarantine)"},
	{modeNoConsentGate, "queries an egress provider with no consent recorded (C1/C2)"},
	{modeQueryBeforeConsent, "queries every provider first and applies the consent gates to the reply: its answer looks right, but the payload left (C2, C6)"},
	{modeConsentCoversScopes, "lets boolean egress consent open the scope gate too, with no receipt per scope (C6)"},
	{modeTrustProvenance, "never re-reads file provenance, so a tampered digest reaches the prompt (§6.2)"},
	{modeWholeFileDigest, "hashes the whole file for a provenance link with a line range, so an honest range digest looks tampered (§6.2, F17)"},
	{modeRawContent, "puts frame content in the prompt as it is, so a </frame> in it closes the fence (R3)"},
	{modeCrashPoisons, "abandons the whole composition when one provider crashes (crash isolation)"},
	{modeLeakCredential, "quotes the bearer credential in the error it reports for a provider that refuses it, and logs it (C8)"},
	{modeNoBudgetBound, "admits every accepted frame, however far the sum runs over max_tokens (the composition's budget bound)"},
	{modeSilentDrop, "drops the frames that do not fit the budget without reporting them (total partition)"},
	{modeArrivalOrder, "selects and renders frames in the order the providers were given and served them, not by score and canonical identity (determinism)"},
}

func modeDoc(name string) (string, bool) {
	for _, m := range Modes {
		if m.Name == name {
			return m.Doc, true
		}
	}
	return "", false
}

func modeNames() string {
	var names []string
	for _, m := range Modes {
		names = append(names, m.Name)
	}
	return strings.Join(names, ", ")
}
