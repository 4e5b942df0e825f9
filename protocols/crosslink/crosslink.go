// Package crosslink is a Go implementation of the Crosslink v1 wire codec:
// canonical JSON, u32 length-prefixed frames, and decoding a payload into a
// validated message with the reference implementation's stable error codes.
//
// Where the Crosslink prose and its TypeScript reference disagree, this
// package follows the reference: object keys are sorted by UTF-16 code units
// (the prose says byte-wise), lone surrogates are written as \udxxx escapes,
// duplicate keys are accepted with the last one winning, and the version is
// checked before the message's structure.
package crosslink

import (
	"fmt"
	"slices"

	"github.com/refereehq/referee/canon"
	"github.com/refereehq/referee/frame"
)

// Version is the protocol version this package speaks.
const Version = "1.0"

// DefaultMaxFrameBytes is the reference's default payload limit, 4 MiB.
const DefaultMaxFrameBytes = 4 << 20

// MaxDepth is the deepest a value may be nested: the top level is depth 0,
// and a value inside more than MaxDepth containers is invalid_message.
const MaxDepth = 64

// The stable error codes. New codes may only be appended.
const (
	CodeParseError         = "parse_error"
	CodeInvalidMessage     = "invalid_message"
	CodeVersionUnsupported = "version_unsupported"
	CodePayloadTooLarge    = "payload_too_large"
)

// Codes lists all 23 stable error codes in the reference's order.
var Codes = []string{
	"parse_error", "invalid_message", "version_unsupported", "unauthorized", "capability_denied",
	"method_not_found", "validation_failed", "payload_too_large", "rate_limited", "device_revoked",
	"session_expired", "pairing_expired", "pairing_invalid", "host_offline", "timeout", "cancelled",
	"internal", "not_connected", "peer_lost", "grant_expired", "consent_denied", "consent_timeout",
	"policy_denied",
}

// IsCode reports whether code is one of the stable error codes.
func IsCode(code string) bool { return slices.Contains(Codes, code) }

// Error is a Crosslink protocol error with its stable code.
type Error struct {
	Code   string // one of Codes
	Reason string // a short machine-readable detail, e.g. "bad-type"
	Err    error  // the underlying error, if any
}

func (e *Error) Error() string {
	s := "crosslink: " + e.Code
	if e.Reason != "" {
		s += ": " + e.Reason
	}
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

func (e *Error) Unwrap() error { return e.Err }

// Profile is Crosslink's canonical JSON: UTF-16 key order, ECMAScript
// numbers, JSON.stringify escaping with lone surrogates as \udxxx.
var Profile = &canon.JSONStringify

// Canonical returns the canonical JSON of v. A number beyond double range
// (1e400, which the reference's JSON.parse reads as Infinity) fails, as the
// reference's canonicalJson throws a TypeError for a non-finite number; that
// failure carries no Crosslink code. A number that underflows (1e-400) is
// the finite 0 and is written so.
func Canonical(v canon.Value) ([]byte, error) { return Profile.Append(nil, v) }

// ParseValue reads JSON text as the reference's JSON.parse does: duplicate
// keys are accepted, the last one winning, and nesting is unlimited.
func ParseValue(text []byte) (canon.Value, error) {
	return canon.Parse(text, canon.ReadOptions{Duplicates: canon.LastWins})
}

// EncodeFrame returns u32_be(len(payload)) || payload with payload the
// canonical JSON of v. A payload over max bytes (max <= 0 means
// DefaultMaxFrameBytes) is payload_too_large.
func EncodeFrame(v canon.Value, max int) ([]byte, error) {
	if max <= 0 {
		max = DefaultMaxFrameBytes
	}
	payload, err := Canonical(v)
	if err != nil {
		return nil, err
	}
	if len(payload) > max {
		return nil, &Error{Code: CodePayloadTooLarge, Reason: fmt.Sprintf("payload of %d bytes exceeds %d", len(payload), max)}
	}
	return frame.Encode(payload, max)
}
