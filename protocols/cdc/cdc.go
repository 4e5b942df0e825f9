// Package cdc is a Go implementation of the Cognitive Delivery Contract: the
// ten shapes and their draft-07 schemas, canonical bytes, declared hashes,
// HMAC-SHA256 lease signatures, the lease rules L1–L3 and narrowing.
package cdc

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/refereehq/referee/canon"
	"github.com/refereehq/referee/internal/lazyregexp"
)

// Shapes are the artefact shapes, in the order fixture names are matched
// against them: agent-lease-manifest before agent-lease.
var Shapes = []string{
	"provenance", "audit-event", "cdi-signal", "cdi-assessment", "config-core",
	"agent-lease-manifest", "agent-lease", "lease-record", "plugin-manifest", "plugin-marketplace",
}

// ShapeOf returns the shape a fixture file names by its prefix, or "".
func ShapeOf(file string, shapes []string) string {
	base := path.Base(file)
	for _, s := range shapes {
		if strings.HasPrefix(base, s+".") {
			return s
		}
	}
	return ""
}

// Profile is the contract's canonical JSON: RFC 8785 with lone surrogates
// escaped as \udxxx (JSON text has no absent members to drop).
var Profile = &canon.JSONStringify

// Canonical returns the canonical bytes of v.
func Canonical(v canon.Value) ([]byte, error) { return Profile.Append(nil, v) }

// Hash is the lowercase hex SHA-256 of v's canonical bytes (declared_hash, granted_hash).
func Hash(v canon.Value) (string, error) {
	b, err := Canonical(v)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

var sigPattern = lazyregexp.New(`^[0-9a-f]{64}$`)

// Sign returns the HMAC-SHA256, lowercase hex, of the canonical bytes of
// every member of lease but signature.
func Sign(lease canon.Value, key []byte) (string, error) {
	var unsigned canon.Value
	unsigned.Kind = canon.Object
	for _, m := range lease.Members {
		if m.Key != "signature" {
			unsigned.Members = append(unsigned.Members, m)
		}
	}
	b, err := Canonical(unsigned)
	if err != nil {
		return "", err
	}
	mac := hmac.New(sha256.New, key)
	mac.Write(b)
	return hex.EncodeToString(mac.Sum(nil)), nil
}

// Verify reports whether lease carries a valid HMAC-SHA256 signature under key.
func Verify(lease canon.Value, key []byte) bool {
	if lease.Kind != canon.Object {
		return false
	}
	sig, ok := lease.Lookup("signature")
	if !ok || sig.Kind != canon.String || !sigPattern.MatchString(sig.Str) {
		return false
	}
	want, err := Sign(lease, key)
	if err != nil {
		return false
	}
	return hmac.Equal([]byte(want), []byte(sig.Str))
}

// Finding is one broken lease rule.
type Finding struct {
	Rule    string `json:"rule"`
	Path    string `json:"path"`
	Message string `json:"message,omitempty"`
}

var stampPattern = lazyregexp.New(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$`)

// Rules applies SPEC §6's rules L1–L3 to a lease or lease record. chain is
// the journal's ancestors of the lease (chainOf); L3 applies only when the
// journal is given (haveChain), since a reader without it cannot check it.
func Rules(lease canon.Value, chain []string, haveChain bool) []Finding {
	if lease.Kind != canon.Object {
		return []Finding{{Rule: "L1", Path: "", Message: "not an object"}}
	}
	var out []Finding
	issued, _ := lease.Lookup("issued_at")
	expires, _ := lease.Lookup("expires_at")
	if issued.Kind == canon.String && expires.Kind == canon.String && stampPattern.MatchString(issued.Str) && stampPattern.MatchString(expires.Str) {
		i, err1 := time.Parse(time.RFC3339Nano, issued.Str)
		e, err2 := time.Parse(time.RFC3339Nano, expires.Str)
		if err1 == nil && err2 == nil && !e.After(i) {
			out = append(out, Finding{Rule: "L1", Path: "/expires_at", Message: fmt.Sprintf("expires_at %s is not after issued_at %s", expires.Str, issued.Str)})
		}
	}
	id, _ := lease.Lookup("lease_id")
	parent, ok := lease.Lookup("parent_lease_id")
	if ok && parent.Kind == canon.String && id.Kind == canon.String && parent.Str == id.Str {
		out = append(out, Finding{Rule: "L2", Path: "/parent_lease_id", Message: "a lease cannot be its own parent"})
	}
	event, _ := lease.Lookup("event")
	by, ok := lease.Lookup("by")
	if haveChain && event.Kind == canon.String && event.Str == "revoked" && ok && by.Kind == canon.String && by.Str != "issuer" {
		found := false
		for _, c := range chain {
			found = found || c == by.Str
		}
		if !found {
			out = append(out, Finding{Rule: "L3", Path: "/by", Message: "revoked by " + by.Str + ", who is not an ancestor of the lease"})
		}
	}
	return out
}
