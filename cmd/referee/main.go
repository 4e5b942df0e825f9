// Referee runs a protocol's language-neutral conformance corpus against an
// implementation in any language and reports byte-exact differences.
package main

import (
	"log"
	"os"

	"github.com/refereehq/referee/internal/cli"
	"github.com/refereehq/referee/internal/termsafe"
)

func main() {
	// The standard library's own messages (net/http's, of a server that
	// answered what was not asked) quote an implementation's bytes: each
	// line is made safe, as the implementation's stderr is.
	log.SetOutput(termsafe.NewWriter(os.Stderr, "referee: "))
	os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
