package merge

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/report"
)

// MatrixFormat is the name and version of the matrix document format.
const MatrixFormat = "referee-matrix/1"

// Matrix is a referee-matrix/1 document: the reports of several
// implementations run through one suite, and the groups of checks on
// which they disagree (left as they are: their shape is the matrix's).
type Matrix struct {
	Format          string               `json:"format"`
	Implementations []report.NamedReport `json:"implementations"`
	Groups          json.RawMessage      `json:"groups,omitempty"`
}

// ExitCode is the matrix's verdict: 3 when any implementation's run is
// incomplete, else 1 when any report's exit code is not 0, else 0.
func (m *Matrix) ExitCode() int {
	code := report.ExitOK
	for _, im := range m.Implementations {
		switch c := im.Report.ExitCode(); {
		case c == report.ExitIncomplete:
			return c
		case c != report.ExitOK:
			code = report.ExitFailed
		}
	}
	return code
}

// ReadMatrix decodes a referee-matrix/1 document and reads each
// implementation's report as report.Read does.
func ReadMatrix(data []byte) (*Matrix, error) {
	var raw struct {
		Format          string `json:"format"`
		Implementations []struct {
			Name   string          `json:"name"`
			Report json.RawMessage `json:"report"`
		} `json:"implementations"`
		Groups json.RawMessage `json:"groups"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("%s: %w", MatrixFormat, err)
	}
	if raw.Format != MatrixFormat {
		return nil, fmt.Errorf("format %q: want %q", raw.Format, MatrixFormat)
	}
	if len(raw.Implementations) == 0 {
		return nil, fmt.Errorf("%s: no implementations", MatrixFormat)
	}
	m := &Matrix{Format: raw.Format, Groups: raw.Groups}
	seen := map[string]bool{}
	for i, im := range raw.Implementations {
		if im.Name == "" || seen[im.Name] {
			return nil, fmt.Errorf("%s: implementation %d: name %q is empty or not unique", MatrixFormat, i, im.Name)
		}
		seen[im.Name] = true
		r, err := report.Read(im.Report)
		if err != nil {
			return nil, fmt.Errorf("%s: implementation %q: %w", MatrixFormat, im.Name, err)
		}
		m.Implementations = append(m.Implementations, report.NamedReport{Name: im.Name, Report: r})
	}
	return m, nil
}

type matrixPart struct {
	name string
	m    *Matrix
}

// mergeMatrices merges matrices of one run in parts: the same
// implementations in the same order, each one's reports merged as
// mergeReports merges them. A baseline is one implementation's, so none
// applies to a matrix.
func mergeMatrices(parts []matrixPart, o Options) (*Result, error) {
	if o.KnownFailing != "" || o.KnownFlaky != "" {
		return nil, check.Usagef("merge: a baseline is one implementation's; merge %s documents without --known-failing and --known-flaky", MatrixFormat)
	}
	first := parts[0]
	for _, p := range parts[1:] {
		if len(p.m.Implementations) != len(first.m.Implementations) {
			return nil, check.Usagef("merge: %s has %d implementations, %s %d: they are not parts of one run", first.name, len(first.m.Implementations), p.name, len(p.m.Implementations))
		}
		for i, im := range p.m.Implementations {
			if want := first.m.Implementations[i].Name; im.Name != want {
				return nil, check.Usagef("merge: implementation %d is %q in %s and %q in %s: they are not parts of one run", i+1, want, first.name, im.Name, p.name)
			}
		}
	}
	res := &Result{Matrix: &Matrix{Format: MatrixFormat}}
	for i, im := range first.m.Implementations {
		var reports []part
		for _, p := range parts {
			reports = append(reports, part{name: fmt.Sprintf("%s (implementation %q)", p.name, im.Name), r: p.m.Implementations[i].Report})
		}
		rep, _, notes, err := mergeReports(reports, o, false)
		if err != nil {
			return nil, err
		}
		res.Notes = append(res.Notes, notes...)
		res.Matrix.Implementations = append(res.Matrix.Implementations, report.NamedReport{Name: im.Name, Report: rep})
	}
	if o.Regroup == nil {
		res.Notes = append(res.Notes, "the merged matrix has no groups: they were not recomputed")
		return res, nil
	}
	groups, err := o.Regroup(res.Matrix.Implementations)
	if err != nil {
		return nil, fmt.Errorf("merge: grouping the merged matrix: %w", err)
	}
	res.Matrix.Groups = groups
	return res, nil
}
