package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/refereehq/referee/corpus"
	"github.com/refereehq/referee/report"
	"github.com/refereehq/referee/suites/cdc"
)

func newExportCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "export",
		Short: "Write a corpus in another test suite's format",
		Example: `  referee export jsts --corpus ../shared/corpora/cdc --out suite
  referee export jsts --corpus ../shared/corpora/cdc --check`,
	}
	var corpusDir, out, label string
	var check bool
	jsts := &cobra.Command{
		Use:   "jsts --corpus DIR --out OUT [--check] [--label TEXT]",
		Short: "Write the cdc corpus as JSON-Schema-Test-Suite files, or --check the corpus's own",
		Long: `export jsts writes a Cognitive Delivery Contract corpus (a checkout or its
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
  {title} ({file}, exported from a tree at @cognitive-delivery/contract 1.2.1; on main its descriptions may be ahead of that tag): every fixture of the conformance corpus

--check writes nothing (--out is not needed): it compares the export with the
corpus's own conformance/suite/draft7/ in cases, schemas, and each test's
description, data and validity, printing a line per file, and exits 2 naming
the first difference of each stale file. Case descriptions are not compared.
The label counts towards the 60,000 bytes, so without --label each file is
split as its own copy's label would split it.`,
		Example: `  referee export jsts --corpus ../shared/corpora/cdc --out suite
  referee export jsts --corpus node_modules/@cognitive-delivery/contract --check
  referee export jsts --corpus ../shared/corpora/cdc --out suite --label '{title} ({file}): every fixture of the conformance corpus'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if corpusDir == "" {
				return usageError("export jsts needs --corpus DIR: a checkout of the Cognitive Delivery Contract, or its npm package (npm install @cognitive-delivery/contract, then --corpus node_modules/@cognitive-delivery/contract)")
			}
			if out == "" && !check {
				return usageError("export jsts needs --out OUT, the directory to write <shape>.json into (or --check, to compare with the corpus's own %s)", cdc.JSTSDir)
			}
			labelSet := cmd.Flags().Changed("label")
			if labelSet && label == "" {
				return usageError("--label is empty: give a case description, e.g. %q", cdc.DefaultJSTSLabel)
			}
			c, err := corpus.OpenDir(corpusDir)
			if err != nil {
				return err
			}
			abs, err := filepath.Abs(corpusDir)
			if err != nil {
				return err
			}
			cp, err := cdc.ReadCorpus(c, abs)
			if err != nil {
				return err
			}
			if check {
				return checkJSTS(e, cp, corpusDir, label)
			}
			if !labelSet {
				label = cdc.DefaultJSTSLabel
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
				fmt.Fprintf(e.stdout, "%s: %s\n", p, counts(f.Cases, f.Tests))
			}
			return nil
		},
	}
	f := jsts.Flags()
	f.StringVar(&corpusDir, "corpus", "", "the contract checkout or npm package in `DIR`")
	f.StringVar(&out, "out", "", "write the files into `OUT`, creating it")
	f.BoolVar(&check, "check", false, "write nothing; compare with the corpus's own "+cdc.JSTSDir+" (exit 2 when stale)")
	f.StringVar(&label, "label", "", "case description `TEXT`, {title} and {file} replaced (default \""+cdc.DefaultJSTSLabel+"\")")
	cmd.AddCommand(jsts)
	return cmd
}

func checkJSTS(e *env, cp *cdc.Corpus, dir, label string) error {
	checks, err := cp.CompareJSTS(label)
	if err != nil {
		return err
	}
	var stale []string
	for _, c := range checks {
		name := cdc.JSTSDir + "/" + c.Name
		if c.Diff == "" {
			fmt.Fprintf(e.stdout, "%s: up to date (%s)\n", name, counts(c.Cases, c.Tests))
			continue
		}
		fmt.Fprintf(e.stdout, "%s: stale: %s\n", name, c.Diff)
		stale = append(stale, "\n  "+c.Name+": "+c.Diff)
	}
	if len(stale) == 0 {
		return nil
	}
	return &exitError{code: report.ExitUsage, err: fmt.Errorf("corpus %s: %s is stale in %d of %d files (regenerate it with referee export jsts --corpus %s --out %s):%s",
		dir, cdc.JSTSDir, len(stale), len(checks), dir, filepath.Join(dir, cdc.JSTSDir), strings.Join(stale, ""))}
}

func counts(cases, tests int) string {
	plural := func(n int, word string) string {
		if n == 1 {
			return fmt.Sprintf("%d %s", n, word)
		}
		return fmt.Sprintf("%d %ss", n, word)
	}
	return plural(cases, "case") + ", " + plural(tests, "test")
}
