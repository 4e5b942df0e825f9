package cgp

import (
	"fmt"

	"github.com/refereehq/referee/canon"
)

// RecordHashMember is the lifecycle record's own hash member, left out of its preimage.
const RecordHashMember = "record_hash"

// RecordPreimage returns the RFC 8785 text of a lifecycle record without its
// top-level record_hash member (removed, not blanked; nested ones stay).
func RecordPreimage(record canon.Value) ([]byte, error) {
	if record.Kind != canon.Object {
		return nil, fmt.Errorf("a lifecycle record is an object, not %s", record.Kind)
	}
	rest := canon.Value{Kind: canon.Object}
	for _, m := range record.Members {
		if m.Key != RecordHashMember {
			rest.Members = append(rest.Members, m)
		}
	}
	return Canonical(rest)
}

// RecordHash returns a lifecycle record's record_hash: "sha256:" and the hex
// SHA-256 of its RecordPreimage.
func RecordHash(record canon.Value) (string, error) {
	b, err := RecordPreimage(record)
	if err != nil {
		return "", err
	}
	return DigestOf(b), nil
}
