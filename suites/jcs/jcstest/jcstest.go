// Package jcstest runs the jcs suite from a Go project's own tests; it is
// apart from package jcs so that the referee binary does not link testing.
package jcstest

import (
	"testing"

	"github.com/refereehq/referee/adapter"
	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/check/checktest"
	"github.com/refereehq/referee/suites/jcs"
)

// Test runs the suite's embedded vectors against the implementation start
// opens, each check as a subtest of t. A Go JCS library can call it from its
// own tests with adapter.InProcess and a Handler of its own.
func Test(t *testing.T, start adapter.Starter) *check.Run {
	t.Helper()
	l, err := jcs.Definition.Load(check.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return checktest.Run(t, l.Suite, start)
}
