package report

import (
	"fmt"
	"io"

	"github.com/refereehq/referee/internal/termsafe"
)

// NamedDiff is what changed for one implementation of a matrix.
type NamedDiff struct {
	Name string
	Diff *Diff
}

// MatrixDiff is what changed from an old matrix of a suite (each
// implementation's report, by its name) to a new one.
type MatrixDiff struct {
	Suite   string
	Diffs   []NamedDiff   // the implementations both hold, in the new matrix's order
	Added   []NamedReport // the implementations only the new matrix holds
	Removed []NamedReport // the implementations only the old matrix holds
}

// Count is how many changes of kind k the implementations in both have.
func (m *MatrixDiff) Count(k ChangeKind) int {
	n := 0
	for _, d := range m.Diffs {
		n += d.Diff.Count(k)
	}
	return n
}

// Unchanged is how many checks of the implementations in both did not move.
func (m *MatrixDiff) Unchanged() int {
	n := 0
	for _, d := range m.Diffs {
		n += d.Diff.Unchanged
	}
	return n
}

// Regressed reports whether a check of any implementation regressed: the
// diff's exit status. An implementation added or removed is not a
// regression.
func (m *MatrixDiff) Regressed() bool { return m.Count(Regressed) > 0 }

// CompareMatrices compares two matrices of one suite, each implementation's
// report by its name: the implementations both hold as Compare compares
// two reports, and those only one holds. Matrices whose reports are not
// all of one suite, or that hold no report or one name twice, do not
// belong together: that is an error naming the implementation.
func CompareMatrices(old, new []NamedReport) (*MatrixDiff, error) {
	if len(old) == 0 || len(new) == 0 {
		return nil, fmt.Errorf("a matrix with no implementation: nothing to compare")
	}
	if old[0].Report == nil {
		return nil, fmt.Errorf("the old matrix's implementation %s has no report", termsafe.Line(old[0].Name))
	}
	m := &MatrixDiff{Suite: old[0].Report.Suite.Name}
	index := func(which string, impls []NamedReport) (map[string]*Report, error) {
		byName := make(map[string]*Report, len(impls))
		for _, im := range impls {
			switch {
			case im.Report == nil:
				return nil, fmt.Errorf("the %s matrix's implementation %s has no report", which, termsafe.Line(im.Name))
			case byName[im.Name] != nil:
				return nil, fmt.Errorf("the %s matrix names two implementations %s", which, termsafe.Line(im.Name))
			case im.Report.Suite.Name != m.Suite:
				return nil, fmt.Errorf("the %s matrix's implementation %s was run through suite %q, the old matrix's %s through %q: a diff compares two runs of one suite",
					which, termsafe.Line(im.Name), termsafe.Line(im.Report.Suite.Name), termsafe.Line(old[0].Name), termsafe.Line(m.Suite))
			}
			byName[im.Name] = im.Report
		}
		return byName, nil
	}
	before, err := index("old", old)
	if err != nil {
		return nil, err
	}
	after, err := index("new", new)
	if err != nil {
		return nil, err
	}
	for _, im := range new {
		o, ok := before[im.Name]
		if !ok {
			m.Added = append(m.Added, im)
			continue
		}
		d, err := Compare(o, im.Report)
		if err != nil {
			return nil, fmt.Errorf("implementation %s: %w", termsafe.Line(im.Name), err)
		}
		m.Diffs = append(m.Diffs, NamedDiff{Name: im.Name, Diff: d})
	}
	for _, im := range old {
		if after[im.Name] == nil {
			m.Removed = append(m.Removed, im)
		}
	}
	return m, nil
}

// matrixSummaryOf is a matrix diff's last line: "2 implementations in
// both, 1 new, 0 removed: 3 regressed, 1 fixed, ..., 1120 unchanged".
func matrixSummaryOf(m *MatrixDiff) string {
	return fmt.Sprintf("%s in both, %d new, %d removed: %s", Plural(len(m.Diffs), "implementation", "implementations"),
		len(m.Added), len(m.Removed), countsText(m.Count, m.Unchanged()))
}

// implText is an implementation a matrix diff names on its own: its
// name, what it said it is, and its report's counts.
func implText(im NamedReport) string {
	return fmt.Sprintf("%s: %s: %s", im.Name, describe(im.Report.Implementation), Summary(im.Report.Counts))
}

// WriteMatrixDiffText writes a matrix diff for a terminal: for each
// implementation in both, its changes as WriteDiffText lists them,
// indented under its name; then the implementations added and removed;
// then a summary line of them all.
func WriteMatrixDiffText(w io.Writer, m *MatrixDiff) error {
	p := &printer{w: w}
	p.line("%s", termsafe.Line(fmt.Sprintf("referee diff: suite %s, matrices of %d and %d implementations", m.Suite, len(m.Diffs)+len(m.Removed), len(m.Diffs)+len(m.Added))))
	for _, d := range m.Diffs {
		p.line("implementation %s", termsafe.Line(d.Name))
		for _, l := range diffLines(d.Diff) {
			p.line("  %s", l)
		}
	}
	for _, im := range m.Added {
		p.line("%s", termsafe.Line("new implementation "+implText(im)))
	}
	for _, im := range m.Removed {
		p.line("%s", termsafe.Line("removed implementation "+implText(im)))
	}
	p.line("%s", matrixSummaryOf(m))
	return p.err
}

// WriteMatrixDiffMarkdown writes a matrix diff for a CI page or a review
// comment: the summary, the implementations added and removed, then each
// implementation in both as WriteDiffMarkdown writes its diff. Everything
// the reports hold is escaped.
func WriteMatrixDiffMarkdown(w io.Writer, m *MatrixDiff) error {
	p := &printer{w: w}
	p.line("### referee diff: %s (matrix): %s", md(m.Suite), regressedWord(m.Regressed()))
	p.line("")
	p.line("%s", matrixSummaryOf(m))
	p.line("")
	for _, im := range m.Added {
		p.line("- new implementation %s", md(implText(im)))
	}
	for _, im := range m.Removed {
		p.line("- removed implementation %s", md(implText(im)))
	}
	if len(m.Added)+len(m.Removed) > 0 {
		p.line("")
	}
	for _, d := range m.Diffs {
		p.line("#### implementation %s: %s", md(d.Name), regressedWord(d.Diff.Regressed()))
		p.line("")
		diffMarkdown(p, d.Diff, "#####")
		p.line("")
	}
	return p.err
}

// WriteMatrixDiffHTML writes a matrix diff as one self-contained page, as
// WriteDiffHTML does: the summary, the implementations added and removed,
// and a section per implementation in both.
func WriteMatrixDiffHTML(w io.Writer, m *MatrixDiff) error {
	v := diffPage{Title: "referee diff: " + safeLine(m.Suite) + " (matrix)", Summary: matrixSummaryOf(m), Matrix: true}
	for _, im := range m.Added {
		v.Added = append(v.Added, safeLine(implText(im)))
	}
	for _, im := range m.Removed {
		v.Removed = append(v.Removed, safeLine(implText(im)))
	}
	for _, d := range m.Diffs {
		v.Sections = append(v.Sections, htmlDiffSection(safeLine(d.Name), d.Diff))
	}
	return writeDiffPage(w, v)
}
