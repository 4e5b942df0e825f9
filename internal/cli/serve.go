package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/refereehq/referee/adapter"
	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/internal/httpserve"
	"github.com/refereehq/referee/suites"
)

func newServeCmd(e *env, withSuites bool) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "serve SUITE",
		Short: "Serve a suite's built-in implementation",
		Long: `serve runs a suite's built-in Go implementation on its own: as a
referee-adapter/1 adapter on stdio, so referee (or any runner) can drive it as
a child process, or over HTTP with --http ADDR. A live suite (cgp) serves its
own protocol instead.`,
		Example: `  referee run jcs -- referee serve jcs --mode codepoint-order
  referee serve jcs --http 127.0.0.1:8785
  referee run cgp -- referee serve cgp --docs ./docs`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageError("serve needs a suite: %s", strings.Join(suites.Names(), ", "))
			}
			return unknownSuite(args[0])
		},
	}
	if !withSuites {
		return cmd
	}
	for _, def := range suites.All() {
		cmd.AddCommand(newServeSuiteCmd(e, def))
	}
	return cmd
}

func newServeSuiteCmd(e *env, def *check.Definition) *cobra.Command {
	var mode, addr, corpusDir string
	c := &cobra.Command{
		Use:   def.Name,
		Short: "Serve the built-in " + def.Name + " implementation",
		Example: fmt.Sprintf(`  referee run %[1]s -- referee serve %[1]s
  referee serve %[1]s --http 127.0.0.1:8785 & referee run %[1]s --url http://127.0.0.1:8785/`, def.Name),
		Args: cobra.NoArgs,
	}
	f := c.Flags()
	f.StringVar(&mode, "mode", "", "serve a deliberately broken `MODE`: "+strings.Join(check.ModeNames(def.ModeList()), ", "))
	f.StringVar(&addr, "http", "", "serve over HTTP on `ADDR` (e.g. 127.0.0.1:8785) instead of stdio")
	maxFileSize := new(byteSize) // 0: the default limit
	if def.Corpus != "" {
		f.StringVar(&corpusDir, "corpus", "", "the corpus in `DIR`, for an implementation that reads it")
		maxFileSize = addMaxFileSize(f)
	}
	values := addFlags(f, def.ServeFlags)
	c.RunE = func(cmd *cobra.Command, args []string) error {
		if err := def.CheckMode(mode); err != nil {
			return err
		}
		if def.Serve != nil {
			return def.Serve(cmd.Context(), check.ServeOptions{Mode: mode, Addr: addr, Flags: values(), Stdin: e.stdin, Stdout: e.stdout, Stderr: e.stderr})
		}
		if corpusDir == "" && def.Embedded == "" {
			return usageError("serve %s needs --corpus DIR: %s", def.Name, def.Corpus)
		}
		loaded, err := def.Load(check.LoadOptions{Corpus: corpusDir, MaxFileSize: int64(*maxFileSize), ReferenceOnly: true})
		if err != nil {
			return err
		}
		h, err := loaded.Reference(mode)
		if err != nil {
			return usageError("%v", err)
		}
		if addr == "" {
			collectForThroughput()
			return adapter.Serve(cmd.Context(), h, e.stdin, e.stdout)
		}
		return httpserve.Serve(cmd.Context(), addr, def.Name, adapter.ServeHTTP(h), e.stderr)
	}
	return c
}
