package cli

import (
	"fmt"

	"github.com/refereehq/referee/check"
)

// listOps writes the ops def sends to an adapter: in format "text" one
// line each (name, arguments, doc), in "json" the suite's ops document
// (check.OpsDocument), as docs/suites/SUITE.ops.json holds it.
func listOps(e *env, def *check.Definition, format string) error {
	if def.Ops == nil {
		return usageError("the %s suite talks to no referee-adapter/1 adapter: it sends no ops", def.Name)
	}
	switch format {
	case "json":
		out, err := def.OpsJSON()
		if err != nil {
			return err
		}
		_, err = e.stdout.Write(out)
		return err
	case "text":
		ops, err := def.OpList()
		if err != nil {
			return err
		}
		for _, o := range ops {
			fmt.Fprintf(e.stdout, "%s(%s)\n    %s\n", o.Name, o.ArgsLine(), o.Doc)
		}
		return nil
	}
	return usageError("--format %q: want text or json", format)
}
