// Package suites is the registry: the one list of referee's suites, each
// declared by its own package.
package suites

import (
	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/suites/cdc"
	"github.com/refereehq/referee/suites/cgphost"
	"github.com/refereehq/referee/suites/cgplive"
	"github.com/refereehq/referee/suites/cgpvectors"
	"github.com/refereehq/referee/suites/crosslink"
	"github.com/refereehq/referee/suites/fablepool"
	"github.com/refereehq/referee/suites/jcs"
)

// All returns every suite, by name.
func All() []*check.Definition {
	return []*check.Definition{
		&cdc.Definition,
		&cgplive.Definition,
		&cgphost.Definition,
		&cgpvectors.Definition,
		&crosslink.Definition,
		&fablepool.Definition,
		&jcs.Definition,
	}
}

// Find returns the suite called name, or nil.
func Find(name string) *check.Definition {
	for _, d := range All() {
		if d.Name == name {
			return d
		}
	}
	return nil
}

// Names lists the suites' names.
func Names() []string {
	var names []string
	for _, d := range All() {
		names = append(names, d.Name)
	}
	return names
}
