package report

import (
	"fmt"
	"io"
)

// Badge is a shields.io endpoint document: a badge's label, message and
// colour, served as JSON for https://img.shields.io/endpoint?url=...
type Badge struct {
	SchemaVersion int    `json:"schemaVersion"` // always 1
	Label         string `json:"label"`
	Message       string `json:"message"`
	Color         string `json:"color"`
}

// NewBadge is the badge of a report: labelled with the suite, saying how
// many of its checks passed ("312/330 passed"), coloured by the verdict:
// brightgreen conformant, yellowgreen conformant with warnings or
// not-checked checks, yellow not conformant where the baseline expects it,
// red for any other exit status but incomplete, lightgrey incomplete (the
// message says so).
func NewBadge(r *Report) Badge {
	b := Badge{SchemaVersion: 1, Label: r.Suite.Name, Message: fmt.Sprintf("%d/%d passed", r.Counts.Pass, r.Len())}
	switch code := r.ExitCode(); {
	case !r.Complete:
		b.Message += ", incomplete"
		b.Color = "lightgrey"
	case r.Conformant && code == ExitOK && r.Counts.Warn == 0 && r.Counts.NotChecked == 0:
		b.Color = "brightgreen"
	case r.Conformant && code == ExitOK:
		b.Color = "yellowgreen"
	case code == ExitOK:
		b.Color = "yellow"
	default:
		b.Color = "red"
	}
	return b
}

// WriteBadge writes the report's badge (NewBadge) as shields.io endpoint JSON.
func WriteBadge(w io.Writer, r *Report) error { return writeJSON(w, NewBadge(r)) }
