package matrix

import (
	"bytes"
	"encoding/json"
	"fmt"
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

// ExitCode is the document's verdict, as Matrix.ExitCode.
func (d *Document) ExitCode() int {
	return FromReports(d.Implementations).ExitCode()
}

// ReadDocument decodes a referee-matrix/1 document and reads each
// implementation's report as report.Read does.
func ReadDocument(data []byte) (*Document, error) {
	var raw struct {
		Format          string `json:"format"`
		Implementations []struct {
			Name   string          `json:"name"`
			Report json.RawMessage `json:"report"`
		} `json:"implementations"`
		Groups []DocGroup `json:"groups"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("%s: %w", Format, err)
	}
	if raw.Format != Format {
		return nil, fmt.Errorf("format %q: want %q", raw.Format, Format)
	}
	if len(raw.Implementations) == 0 {
		return nil, fmt.Errorf("%s: no implementations", Format)
	}
	d := &Document{Format: raw.Format, Groups: raw.Groups}
	seen := map[string]bool{}
	for i, im := range raw.Implementations {
		if im.Name == "" || seen[im.Name] {
			return nil, fmt.Errorf("%s: implementation %d: name %q is empty or not unique", Format, i, im.Name)
		}
		seen[im.Name] = true
		r, err := report.Read(im.Report)
		if err != nil {
			return nil, fmt.Errorf("%s: implementation %q: %w", Format, im.Name, err)
		}
		d.Implementations = append(d.Implementations, report.NamedReport{Name: im.Name, Report: r})
	}
	return d, nil
}

// WriteJSON writes the matrix as an indented referee-matrix/1 document.
func WriteJSON(w io.Writer, m *Matrix) error {
	return report.WriteNative(w, m.Document())
}
