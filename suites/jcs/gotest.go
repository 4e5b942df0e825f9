package jcs

import (
	"testing"

	"github.com/refereehq/referee/adapter"
	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/check/checktest"
)

// Test runs the suite's embedded vectors against the implementation start
// opens, each check as a subtest of t. A Go JCS library can call it from its
// own tests with adapter.InProcess and a Handler of its own.
func Test(t *testing.T, start adapter.Starter) *check.Run {
	t.Helper()
	suite, err := LoadEmbedded()
	if err != nil {
		t.Fatal(err)
	}
	return checktest.Run(t, suite, start)
}
