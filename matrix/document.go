package matrix

import (
	"encoding/json"
	"io"

	"github.com/refereehq/referee/report"
)

// Document is the referee-matrix/1 document: every implementation's full
// referee-report/2, and the groups of checks on which they disagree.
type Document struct {
	Format          string               `json:"format"`
	Implementations []report.NamedReport `json:"implementations"`
	Groups          []DocGroup           `json:"groups"`
}

// DocGroup is a Group with each outcome under its implementation's name.
type DocGroup struct {
	Outcomes map[string]string `json:"outcomes"`
	Agree    bool              `json:"agree"`
	Checks   []string          `json:"checks"`
}

// Document returns the matrix as a referee-matrix/1 document.
func (m *Matrix) Document() *Document {
	d := &Document{Format: Format, Implementations: []report.NamedReport{}, Groups: m.docGroups()}
	for _, e := range m.Impls {
		d.Implementations = append(d.Implementations, report.NamedReport{Name: e.Name, Report: e.Report})
	}
	return d
}

func (m *Matrix) docGroups() []DocGroup {
	out := []DocGroup{}
	for _, g := range m.Groups {
		dg := DocGroup{Outcomes: map[string]string{}, Agree: g.Agree, Checks: g.Checks}
		for i, o := range g.Outcomes {
			dg.Outcomes[m.Impls[i].Name] = o
		}
		out = append(out, dg)
	}
	return out
}

// Regroup computes the "groups" member of a referee-matrix/1 document from
// its implementations' reports, for a matrix whose reports were merged
// from shards (merge.Options.Regroup).
func Regroup(impls []report.NamedReport) (json.RawMessage, error) {
	return json.Marshal(FromReports(impls).docGroups())
}

// WriteJSON writes the matrix as an indented referee-matrix/1 document.
func WriteJSON(w io.Writer, m *Matrix) error {
	return report.WriteNative(w, m.Document())
}
