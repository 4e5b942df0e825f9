package draft7

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/refereehq/referee/canon"
)

// suiteVar names a checkout of the official JSON-Schema-Test-Suite
// (github.com/json-schema-org/JSON-Schema-Test-Suite). Its draft-07 tests
// are not on any registry this project installs from (npm's
// json-schema-test-suite stops at draft-04), so the test reads a checkout
// when one is named and skips otherwise; keywords_test.go holds cases of
// our own for every keyword.
const suiteVar = "JSON_SCHEMA_TEST_SUITE"

// suiteSkips are the official draft-07 files, cases and tests not run (by
// path under tests/draft7, case description and test description), with
// the reason. "As before" means the validator this one replaced
// (santhosh-tekuri/jsonschema/v6 with regexp2) did the same. Every regular
// expression test runs: unlike regexp2, internal/ecmaregexp knows ECMA-262's
// long property names (\p{Letter}, \p{digit}) and refuses the .NET forms
// (\a, (?#...), (?i)) that format "regex" must reject.
var suiteSkips = map[string]string{
	"refRemote.json":                    "remote refs: referee fetches nothing, and these need the suite's remotes served over HTTP",
	"optional/cross-draft.json":         "refers to a 2019-09 schema: only draft-07 is supported",
	"optional/content.json":             "contentMediaType and contentEncoding are annotations in draft-07, not asserted (as before)",
	"optional/format/idn-email.json":    "format idn-email is not asserted (as before)",
	"optional/format/idn-hostname.json": "format idn-hostname is not asserted (as before)",

	"optional/format/hostname.json/validation of host names/trailing dot":       "a final dot (a fully qualified name) is accepted, as before",
	"optional/format/hostname.json/validation of A-label (punycode) host names": "A-labels are not decoded and checked against IDNA2008, as before",

	"optional/format/iri.json/validation of IRIs/an IPvFuture host with an uppercase version letter is valid": netURL,
	"optional/format/uri-reference.json/validation of URI References/unescaped non US-ASCII characters":       netURL,
	"optional/format/uri-reference.json/validation of URI References/a double quote in a path":                netURL,
	"optional/format/uri-reference.json/validation of URI References/square brackets outside an authority":    netURL,
	"optional/format/uri-reference.json/validation of URI References/more than one at-sign in the authority":  netURL,
	"optional/format/uri.json/validation of URIs/unescaped non US-ASCII characters":                           netURL,
	"optional/format/uri.json/validation of URIs/invalid backslash character":                                 netURL,
	"optional/format/uri.json/validation of URIs/invalid \" character":                                        netURL,
	"optional/format/uri.json/validation of URIs/invalid <> characters":                                       netURL,
	"optional/format/uri.json/validation of URIs/invalid {} characters":                                       netURL,
	"optional/format/uri.json/validation of URIs/invalid ^ character":                                         netURL,
	"optional/format/uri.json/validation of URIs/invalid ` character":                                         netURL,
	"optional/format/uri.json/validation of URIs/invalid SPACE character":                                     netURL,
	"optional/format/uri.json/validation of URIs/invalid | character":                                         netURL,
	"optional/format/uri.json/validation of URIs/square brackets are not allowed in a path segment":           netURL,
	"optional/format/uri-template.json/format: uri-template":                                                  "only the braces of a template are checked, not RFC 6570's expression grammar; the rest is net/url's (as before)",
}

const netURL = "URI syntax is net/url's (as before), which is more lenient than RFC 3986 here"

func TestOfficialSuite(t *testing.T) {
	dir := os.Getenv(suiteVar)
	if dir == "" {
		t.Skipf("%s not set: set it to a checkout of github.com/json-schema-org/JSON-Schema-Test-Suite to run its draft-07 tests", suiteVar)
	}
	root := filepath.Join(dir, "tests", "draft7")
	var files []string
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".json") {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("%s=%s: no tests/draft7/*.json", suiteVar, dir)
	}
	ran := 0
	for _, f := range files {
		rel, _ := filepath.Rel(root, f)
		rel = filepath.ToSlash(rel)
		if why := suiteSkips[rel]; why != "" {
			t.Logf("skipped %s: %s", rel, why)
			continue
		}
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var groups []struct {
			Description string          `json:"description"`
			Schema      json.RawMessage `json:"schema"`
			Tests       []struct {
				Description string          `json:"description"`
				Data        json.RawMessage `json:"data"`
				Valid       bool            `json:"valid"`
			} `json:"tests"`
		}
		if err := json.Unmarshal(raw, &groups); err != nil {
			t.Fatalf("%s: %v", rel, err)
		}
		for _, g := range groups {
			name := rel + "/" + g.Description
			if why := suiteSkips[name]; why != "" {
				t.Logf("skipped %s: %s", name, why)
				continue
			}
			c := NewCompiler()
			if err := c.AddDocument("schema.json", g.Schema); err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			s, err := c.Compile("schema.json")
			if err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			for _, tc := range g.Tests {
				if why := suiteSkips[name+"/"+tc.Description]; why != "" {
					t.Logf("skipped %s/%s: %s", name, tc.Description, why)
					continue
				}
				v, err := canon.Parse(tc.Data, canon.ReadOptions{Duplicates: canon.LastWins})
				if err != nil {
					t.Errorf("%s/%s: %v", name, tc.Description, err)
					continue
				}
				ran++
				errs := s.Validate(v)
				if (len(errs) == 0) != tc.Valid {
					t.Errorf("%s/%s: valid %v, want %v (errors %v)", name, tc.Description, len(errs) == 0, tc.Valid, errs)
				}
			}
		}
	}
	t.Logf("%d tests run", ran)
}
