package cli

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"

	"github.com/spf13/cobra"

	"github.com/refereehq/referee/adapter"
)

func newServeCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve a suite's built-in implementation as a referee-adapter/1 adapter",
		Long: `serve runs a suite's built-in Go implementation as an adapter of its own:
on stdio, so referee (or any runner) can drive it as a child process, or
over HTTP with --http ADDR.`,
		Example: `  referee run jcs -- referee serve jcs --mode codepoint-order
  referee serve jcs --http 127.0.0.1:8785`,
	}
	cmd.AddCommand(newServeCgpCmd(e))
	for _, def := range suiteDefs() {
		if def.live != nil {
			continue
		}
		var mode, addr, corpusDir string
		c := &cobra.Command{
			Use:   def.name,
			Short: "Serve the built-in " + def.name + " implementation",
			Example: fmt.Sprintf(`  referee run %[1]s -- referee serve %[1]s
  referee serve %[1]s --http 127.0.0.1:8785 & referee run %[1]s --url http://127.0.0.1:8785/`, def.name),
			Args: cobra.NoArgs,
			RunE: func(cmd *cobra.Command, args []string) error {
				// Load the suite first: a suite whose implementation needs the
				// corpus (cdc: the schemas) gets it from --corpus.
				if _, err := def.load(corpusDir); err != nil {
					return err
				}
				h, err := def.reference(mode)
				if err != nil {
					return usageError("%v", err)
				}
				if addr == "" {
					return adapter.Serve(cmd.Context(), h, e.stdin, e.stdout)
				}
				ln, err := net.Listen("tcp", addr)
				if err != nil {
					return usageError("--http %s: %v", addr, err)
				}
				fmt.Fprintf(e.stderr, "referee: serving %s on http://%s/\n", def.name, ln.Addr())
				srv := &http.Server{Handler: adapter.ServeHTTP(h)}
				go func() { <-cmd.Context().Done(); srv.Close() }()
				if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
					return err
				}
				return nil
			},
		}
		c.Flags().StringVar(&mode, "mode", "", "serve a deliberately broken `MODE`: "+strings.Join(modeNames(def), ", "))
		c.Flags().StringVar(&corpusDir, "corpus", "", "the corpus in `DIR`, for a suite that needs one (cdc)")
		c.Flags().StringVar(&addr, "http", "", "serve over HTTP on `ADDR` (e.g. 127.0.0.1:8785) instead of stdio")
		cmd.AddCommand(c)
	}
	return cmd
}

func modeNames(def *suiteDef) []string {
	var names []string
	for _, m := range def.modes {
		names = append(names, m.name)
	}
	return names
}
