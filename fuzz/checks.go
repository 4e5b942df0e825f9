package fuzz

import (
	"strings"

	"github.com/refereehq/referee/check"
)

// checksOf makes the checks of each of entries, the vectors named names,
// as a replay of a corpus holding them does: laid out together by the
// suite's Files, held in memory, loaded by its Load, and each check
// given to the vector its ID names (every check of a vector is named for
// it: ".../NAME" or ".../NAME/..." or ".../NAME-..."). One corpus for many
// vectors costs what one for a single vector costs, less a little: most of
// a round trip's cost is the corpus's, not the vector's.
//
// Entries that cannot be read together (one the reader refuses, two names
// alike) are read in halves, and at last alone, as check.FuzzChecks reads
// one; an entry that gets no check of its own together is read alone too.
// An entry read alone with an error, or no check, gets none: it is not
// judged.
func checksOf(def *check.Definition, spec *check.FuzzSpec, names []string, entries []any) [][]check.Check {
	out := make([][]check.Check, len(entries))
	if len(entries) == 0 {
		return out
	}
	if len(entries) == 1 {
		if cs, err := check.FuzzChecks(def, spec, entries[0]); err == nil {
			out[0] = cs
		}
		return out
	}
	if cs, ok := together(def, spec, names, entries); ok {
		return cs
	}
	h := len(entries) / 2
	copy(out, checksOf(def, spec, names[:h], entries[:h]))
	copy(out[h:], checksOf(def, spec, names[h:], entries[h:]))
	return out
}

// together reads entries as one corpus; ok is false when it cannot be
// read, a name is there twice, or a check names no vector of it. An entry
// that gets no check is read alone.
func together(def *check.Definition, spec *check.FuzzSpec, names []string, entries []any) ([][]check.Check, bool) {
	index := make(map[string]int, len(names))
	for i, n := range names {
		if _, twice := index[n]; twice || !isVectorName(n) {
			return nil, false
		}
		index[n] = i
	}
	cs, err := check.FuzzCorpusChecks(def, spec, entries)
	if err != nil {
		return nil, false
	}
	out := make([][]check.Check, len(entries))
	for _, c := range cs {
		i, ok := ownerOf(c.ID, index)
		if !ok {
			return nil, false
		}
		out[i] = append(out[i], c)
	}
	for i := range out {
		if len(out[i]) == 0 {
			if cs, err := check.FuzzChecks(def, spec, entries[i]); err == nil {
				out[i] = cs
			}
		}
	}
	return out, true
}

// nameLen is the length of a vector's name: "fuzz-" and twelve hex digits.
const nameLen = len("fuzz-") + 12

// isVectorName reports whether n is a name vectorName makes.
func isVectorName(n string) bool {
	if len(n) != nameLen || !strings.HasPrefix(n, "fuzz-") {
		return false
	}
	for _, c := range n[len("fuzz-"):] {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// ownerOf returns the index of the vector a check's ID names: the vector
// name ("fuzz-" and twelve hex digits) the ID holds, as a segment or in one
// ("cdc/invalid/agent-lease.fuzz-1a393aea94bc"); false when it holds none
// of index's, or two.
func ownerOf(id string, index map[string]int) (int, bool) {
	owner := -1
	for rest := id; ; {
		i := strings.Index(rest, "fuzz-")
		if i < 0 {
			break
		}
		if i+nameLen <= len(rest) {
			if j, ok := index[rest[i:i+nameLen]]; ok {
				if owner >= 0 && owner != j {
					return -1, false
				}
				owner = j
			}
		}
		rest = rest[i+1:]
	}
	return owner, owner >= 0
}
