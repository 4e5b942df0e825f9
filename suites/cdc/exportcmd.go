package cdc

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/corpus"
)

// exportCommands is `referee export`, with `referee export jsts`.
var exportCommands = []check.Command{{
	Name:    "export",
	Summary: "Write a corpus in another test suite's format",
	Examples: []string{
		"referee export jsts --corpus ../shared/corpora/cdc --out suite",
		"referee export jsts --corpus ../shared/corpora/cdc --check",
	},
	Sub: []check.Command{{
		Name:    "jsts",
		Use:     "--corpus DIR --out OUT [--check] [--label TEXT]",
		Summary: "Write the cdc corpus as JSON-Schema-Test-Suite files, or --check the corpus's own",
		Help: `export jsts writes a Cognitive Delivery Contract corpus (a checkout or its
npm package) as JSON-Schema-Test-Suite draft-07 files, one per schema:
OUT/<shape>.json, an array of cases {description, schema, tests}. Each case
embeds the whole schema; its tests are every valid fixture of the shape
("<name> validates"), every invalid one ("<name> is refused") and every
by-rule one, which the schema accepts ("<name> is schema-valid and refused by
SPEC §6 rule Lx, which the schema cannot state"), in that order and by file
name. A file whose one-line case would pass 60,000 bytes is split into parts
("...: fixtures, part 1 of 2"). The bytes are JSON.stringify(cases, null, 2)
and a newline, as the contract's own exporter writes them.

--label is the case description, with {title} and {file} replaced by the
schema's title and file name. The contract's own export uses
  ` + UpstreamJSTSLabel + `

--check writes nothing (--out is not needed): it compares the export with the
corpus's own ` + JSTSDir + `/ in cases, schemas, and each test's
description, data and validity, printing a line per file, and exits 2 naming
the first difference of each stale file. Case descriptions are not compared.
The label counts towards the 60,000 bytes, so without --label each file is
split as its own copy's label would split it.`,
		Examples: []string{
			"referee export jsts --corpus ../shared/corpora/cdc --out suite",
			"referee export jsts --corpus node_modules/@cognitive-delivery/contract --check",
			"referee export jsts --corpus ../shared/corpora/cdc --out suite --label '{title} ({file}): every fixture of the conformance corpus'",
		},
		Flags: []check.Flag{
			{Name: "corpus", Kind: check.FlagString, Usage: "the contract checkout or npm package in `DIR`"},
			{Name: "out", Kind: check.FlagString, Usage: "write the files into `OUT`, creating it"},
			{Name: "check", Kind: check.FlagBool, Default: "false", Usage: "write nothing; compare with the corpus's own " + JSTSDir + " (exit 2 when stale)"},
			{Name: "label", Kind: check.FlagString, Usage: "case description `TEXT`, {title} and {file} replaced (default \"" + DefaultJSTSLabel + "\")"},
		},
		Args:   [2]int{0, 0},
		Action: runExportJSTS,
	}},
}}

// runExportJSTS is `referee export jsts`. A flag is in c.Flags only when it
// was given, so that --label ” is told from no --label.
func runExportJSTS(_ context.Context, c *check.Invocation) error {
	dir, out, checkOnly := c.Flags.String("corpus"), c.Flags.String("out"), c.Flags.Bool("check")
	label, labelSet := c.Flags["label"]
	if dir == "" {
		return check.Usagef("export jsts needs --corpus DIR: %s", corpusDoc)
	}
	if out == "" && !checkOnly {
		return check.Usagef("export jsts needs --out OUT, the directory to write <shape>.json into (or --check, to compare with the corpus's own %s)", JSTSDir)
	}
	if labelSet && label == "" {
		return check.Usagef("--label is empty: give a case description, e.g. %q", DefaultJSTSLabel)
	}
	co, err := corpus.OpenDir(dir, corpus.DefaultMaxFileSize)
	if err != nil {
		return err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	cp, err := ReadCorpus(co, abs)
	if err != nil {
		return err
	}
	if checkOnly {
		return checkJSTS(c.Stdout, cp, dir, label)
	}
	if !labelSet {
		label = DefaultJSTSLabel
	}
	files, err := cp.ExportJSTS(label)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	for _, f := range files {
		p := filepath.Join(out, f.Name)
		if err := os.WriteFile(p, f.Bytes, 0o644); err != nil {
			return err
		}
		fmt.Fprintf(c.Stdout, "%s: %s\n", p, counts(f.Cases, f.Tests))
	}
	return nil
}

// checkJSTS compares the export with the corpus's own copy, a line per
// file; a stale copy is a corpus error (exit 2) naming each difference.
func checkJSTS(stdout io.Writer, cp *Corpus, dir, label string) error {
	checks, err := cp.CompareJSTS(label)
	if err != nil {
		return err
	}
	var stale []string
	for _, c := range checks {
		name := JSTSDir + "/" + c.Name
		if c.Diff == "" {
			fmt.Fprintf(stdout, "%s: up to date (%s)\n", name, counts(c.Cases, c.Tests))
			continue
		}
		fmt.Fprintf(stdout, "%s: stale: %s\n", name, c.Diff)
		stale = append(stale, "\n  "+c.Name+": "+c.Diff)
	}
	if len(stale) == 0 {
		return nil
	}
	return &check.UsageError{Err: fmt.Errorf("corpus %s: %s is stale in %d of %d files (regenerate it with referee export jsts --corpus %s --out %s):%s",
		dir, JSTSDir, len(stale), len(checks), dir, filepath.Join(dir, JSTSDir), strings.Join(stale, ""))}
}

func counts(cases, tests int) string {
	return plural(cases, "case") + ", " + plural(tests, "test")
}
