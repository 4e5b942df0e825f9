// Referee runs a protocol's language-neutral conformance corpus against an
// implementation in any language and reports byte-exact differences.
package main

import (
	"os"

	"github.com/refereehq/referee/internal/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
