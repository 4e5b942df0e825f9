// Package cgp holds the Context Graph Protocol's rules that referee checks
// offline: so far, the golden fixture profile's manifest (SPEC's fixture
// profile; contextgraph-conformance's tests/golden_fixtures.rs test 1).
package cgp

import (
	"fmt"
	"sort"

	"github.com/refereehq/referee/canon"
	"github.com/refereehq/referee/internal/lazyregexp"
)

// Family is the protocol family a fixture profile must belong to: both
// contextgraph/1.0-draft and contextgraph/1.0 are in it.
const Family = "contextgraph/1"

var (
	// versionPattern is SPEC's version-string, in the contextgraph/1 family.
	versionPattern = lazyregexp.New(`^contextgraph/1\.[0-9]+(-draft)?$`)
	semverPattern  = lazyregexp.New(`^[0-9]+\.[0-9]+\.[0-9]+$`)
)

// IsProfileManifest reports whether a manifest's members (other than files)
// mark it as a CGP fixture profile: it has a protocol_version.
func IsProfileManifest(meta []canon.Member) bool {
	for _, m := range meta {
		if m.Key == "protocol_version" {
			return true
		}
	}
	return false
}

// CheckProfileManifest applies the fixture profile's rules to a manifest's
// members other than files: exactly protocol_version (a version of the
// contextgraph/1 family), fixture_profile_version (MAJOR.MINOR.PATCH) and
// generation_command (a string), beside files. It returns each problem.
func CheckProfileManifest(meta []canon.Member) []string {
	allowed := map[string]bool{"protocol_version": true, "fixture_profile_version": true, "generation_command": true}
	seen := map[string]canon.Value{}
	var problems []string
	for _, m := range meta {
		if !allowed[m.Key] {
			problems = append(problems, fmt.Sprintf("unknown member %q: a fixture profile manifest has only protocol_version, fixture_profile_version, generation_command and files", m.Key))
			continue
		}
		seen[m.Key] = m.Value
	}
	keys := []string{"protocol_version", "fixture_profile_version", "generation_command"}
	sort.Strings(keys)
	for _, k := range keys {
		v, ok := seen[k]
		switch {
		case !ok:
			problems = append(problems, "missing member "+k)
		case v.Kind != canon.String:
			problems = append(problems, fmt.Sprintf("%s is %s, not a string", k, v.Kind))
		case k == "protocol_version" && !versionPattern.MatchString(v.Str):
			problems = append(problems, fmt.Sprintf("protocol_version %q is not in the %s family", v.Str, Family))
		case k == "fixture_profile_version" && !semverPattern.MatchString(v.Str):
			problems = append(problems, fmt.Sprintf("fixture_profile_version %q is not MAJOR.MINOR.PATCH", v.Str))
		}
	}
	return problems
}
