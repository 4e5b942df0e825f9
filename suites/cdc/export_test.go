package cdc

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/refereehq/referee/canon"
	"github.com/refereehq/referee/corpus"
)

// tinyFiles is a one-shape corpus: two valid fixtures, an invalid one and a
// by-rule one.
func tinyFiles() fstest.MapFS {
	files := map[string]string{
		"schemas/provenance.schema.json": `{
  "$schema": "http://json-schema.org/draft-07/schema#",
  "title": "Tiny provenance",
  "type": "object",
  "properties": {
    "n": {"type": "number", "maximum": 1E2},
    "s": {"type": "string"}
  },
  "definitions": {}
}
`,
		"fixtures/valid/provenance.minimal.json":                 "{}\n",
		"fixtures/valid/provenance.populated.json":               `{"n": 1.0, "s": "<a & b> caf\u00e9", "2": [], "1": {}}` + "\n",
		"fixtures/invalid/provenance.bad-n.json":                 `{"n": "x"}` + "\n",
		"fixtures/invalid/provenance.bad-n.reason":               "n must be a number\n",
		"fixtures/invalid-by-rule/provenance.Late.json":          `{"n": 3}` + "\n",
		"fixtures/invalid-by-rule/provenance.Late.expect.json":   `{"rule": "L1", "path": "/n"}` + "\n",
		"fixtures/invalid-by-rule/provenance.NoRule.json":        `{"n": 4}` + "\n",
		"fixtures/invalid-by-rule/provenance.NoRule.expect.json": `{"path": "/n"}` + "\n",
		"fixtures/invalid-by-rule/provenance.NoRule.reason":      "no rule named\n",
		"fixtures/invalid-by-rule/provenance.Late.reason":        "late\n",
		"fixtures/invalid/provenance.bad-n.expect.json":          `{"path": "/n", "keyword": "type"}` + "\n",
	}
	fsys := fstest.MapFS{}
	for name, data := range files {
		fsys[name] = &fstest.MapFile{Data: []byte(data)}
	}
	return fsys
}

func readTiny(t *testing.T, fsys fstest.MapFS) *Corpus {
	t.Helper()
	c, err := corpus.Open(fsys, "tiny")
	if err != nil {
		t.Fatal(err)
	}
	cp, err := ReadCorpus(c, "tiny")
	if err != nil {
		t.Fatal(err)
	}
	return cp
}

// tinyWant is the tiny corpus's export as node writes it:
// JSON.stringify(cases, null, 2) + "\n" over the JSON.parse'd files.
const tinyWant = `[
  {
    "description": "Tiny provenance (provenance.schema.json, exported by referee from the corpus): every fixture of the conformance corpus",
    "schema": {
      "$schema": "http://json-schema.org/draft-07/schema#",
      "title": "Tiny provenance",
      "type": "object",
      "properties": {
        "n": {
          "type": "number",
          "maximum": 100
        },
        "s": {
          "type": "string"
        }
      },
      "definitions": {}
    },
    "tests": [
      {
        "description": "provenance.minimal validates",
        "data": {},
        "valid": true
      },
      {
        "description": "provenance.populated validates",
        "data": {
          "1": {},
          "2": [],
          "n": 1,
          "s": "<a & b> café"
        },
        "valid": true
      },
      {
        "description": "provenance.bad-n is refused",
        "data": {
          "n": "x"
        },
        "valid": false
      },
      {
        "description": "provenance.Late is schema-valid and refused by SPEC §6 rule L1, which the schema cannot state",
        "data": {
          "n": 3
        },
        "valid": true
      },
      {
        "description": "provenance.NoRule is schema-valid and refused by a SPEC §6 rule, which the schema cannot state",
        "data": {
          "n": 4
        },
        "valid": true
      }
    ]
  }
]
`

func TestExportJSTSBytes(t *testing.T) {
	cp := readTiny(t, tinyFiles())
	files, err := cp.ExportJSTS(DefaultJSTSLabel)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 || files[0].Name != "provenance.json" || files[0].Cases != 1 || files[0].Tests != 5 {
		t.Fatalf("files = %+v, want provenance.json with 1 case of 5 tests", files)
	}
	if got := string(files[0].Bytes); got != tinyWant {
		t.Errorf("export:\n%s\nwant:\n%s", got, tinyWant)
	}
	files, err = cp.ExportJSTS("{file} of {title}")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(files[0].Bytes, []byte(`"description": "provenance.schema.json of Tiny provenance",`)) {
		t.Errorf("--label template not applied:\n%.200s", files[0].Bytes)
	}
}

// TestAppendJS holds appendJS to JSON.stringify: each want is node's
// JSON.stringify(JSON.parse(in)), compact and with an indent of 2.
func TestAppendJS(t *testing.T) {
	for _, c := range []struct{ in, compact, indented string }{
		{"1.0", "1", ""},
		{"1E2", "100", ""},
		{"-0", "0", ""},
		{"0.1e1", "1", ""},
		{"-1.25", "-1.25", ""},
		{"123456789012345678", "123456789012345680", ""},
		{"9007199254740993", "9007199254740992", ""},
		{"100000000000000000000", "100000000000000000000", ""},
		{"1e21", "1e+21", ""},
		{"5e-7", "5e-7", ""},
		{"1.5e-7", "1.5e-7", ""},
		{"0.000001", "0.000001", ""},
		{"1e400", "null", ""},
		{"-1e400", "null", ""},
		{"1e-400", "0", ""},
		{`"<&>\u2028\u2029\u007f\u0000\u001f\u0008\u000c\n\r\t\ud800\udfff é 😀 \"\\/"`, "\"<&>\u2028\u2029\u007f\\u0000\\u001f\\b\\f\\n\\r\\t\U000103ff é 😀 \\\"\\\\/\"", ""},
		{`"\ud83d\ude00"`, `"😀"`, ""},
		{`"\ud800"`, `"\ud800"`, ""},
		{`"\udfff x"`, `"\udfff x"`, ""},
		{`{"b":1,"2":"two","1":[],"":{},"10":null,"01":true,"4294967295":1,"4294967294":2,"-1":0,"1.5":0}`,
			`{"1":[],"2":"two","10":null,"4294967294":2,"b":1,"":{},"01":true,"4294967295":1,"-1":0,"1.5":0}`,
			"{\n  \"1\": [],\n  \"2\": \"two\",\n  \"10\": null,\n  \"4294967294\": 2,\n  \"b\": 1,\n  \"\": {},\n  \"01\": true,\n  \"4294967295\": 1,\n  \"-1\": 0,\n  \"1.5\": 0\n}"},
		{`[[],{},[{}],{"a":[1,{"b":null}]}]`, `[[],{},[{}],{"a":[1,{"b":null}]}]`,
			"[\n  [],\n  {},\n  [\n    {}\n  ],\n  {\n    \"a\": [\n      1,\n      {\n        \"b\": null\n      }\n    ]\n  }\n]"},
	} {
		v, err := canon.Parse([]byte(c.in), canon.ReadOptions{})
		if err != nil {
			t.Fatalf("%s: %v", c.in, err)
		}
		if got := string(appendJS(nil, &v, "", "")); got != c.compact {
			t.Errorf("JSON.stringify(%s) = %s, want %s", c.in, got, c.compact)
		}
		want := c.indented
		if want == "" {
			want = c.compact
		}
		if got := string(appendJS(nil, &v, "  ", "")); got != want {
			t.Errorf("JSON.stringify(%s, null, 2) = %s, want %s", c.in, got, want)
		}
	}
}

// caseLines returns each case of an export file as JSON.stringify(case):
// the indented form with its whitespace removed.
func caseLines(t *testing.T, b []byte) []string {
	t.Helper()
	var cases []json.RawMessage
	if err := json.Unmarshal(b, &cases); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, c := range cases {
		var buf bytes.Buffer
		if err := json.Compact(&buf, c); err != nil {
			t.Fatal(err)
		}
		out = append(out, buf.String())
	}
	return out
}

func TestExportJSTSSplit(t *testing.T) {
	fsys := tinyFiles()
	for _, name := range []string{"big1", "big2", "big3"} {
		fsys["fixtures/valid/provenance."+name+".json"] = &fstest.MapFile{Data: []byte(`{"s": "` + strings.Repeat("x", 25000) + `"}`)}
	}
	cp := readTiny(t, fsys)
	for _, c := range []struct {
		label string
		descs []string
	}{
		{DefaultJSTSLabel, []string{
			"Tiny provenance (provenance.schema.json, exported by referee from the corpus): fixtures, part 1 of 2",
			"Tiny provenance (provenance.schema.json, exported by referee from the corpus): fixtures, part 2 of 2",
		}},
		{"{title}", []string{"Tiny provenance (part 1 of 2)", "Tiny provenance (part 2 of 2)"}},
	} {
		files, err := cp.ExportJSTS(c.label)
		if err != nil {
			t.Fatal(err)
		}
		var cases []struct {
			Description string
			Tests       []struct{ Description string }
		}
		if err := json.Unmarshal(files[0].Bytes, &cases); err != nil {
			t.Fatal(err)
		}
		if len(cases) != 2 || files[0].Cases != 2 || files[0].Tests != 8 {
			t.Fatalf("%q: %d cases, want 2 of 8 tests in all", c.label, len(cases))
		}
		// Greedy, in order: big1 and big2 fit one line, big3 starts the next.
		if len(cases[0].Tests) != 2 || cases[1].Tests[0].Description != "provenance.big3 validates" {
			t.Errorf("%q: split %d + %d tests, second from %q; want 2 + 6 from big3", c.label, len(cases[0].Tests), len(cases[1].Tests), cases[1].Tests[0].Description)
		}
		for i, cs := range cases {
			if cs.Description != c.descs[i] {
				t.Errorf("case %d description %q, want %q", i+1, cs.Description, c.descs[i])
			}
		}
		for i, line := range caseLines(t, files[0].Bytes) {
			if len(line) > CaseLineBudget {
				t.Errorf("%q: case %d is %d bytes on a line, above %d", c.label, i+1, len(line), CaseLineBudget)
			}
		}
	}

	fsys["fixtures/valid/provenance.huge.json"] = &fstest.MapFile{Data: []byte(`{"s": "` + strings.Repeat("x", CaseLineBudget) + `"}`)}
	_, err := readTiny(t, fsys).ExportJSTS(DefaultJSTSLabel)
	if err == nil || !strings.Contains(err.Error(), `test "provenance.huge validates" alone makes a case of`) {
		t.Errorf("a test above the budget on its own: err = %v", err)
	}
}

func TestCompareJSTS(t *testing.T) {
	fsys := tinyFiles()
	own := JSTSDir + "/provenance.json"
	checkOne := func(label string) JSTSCheck {
		t.Helper()
		checks, err := readTiny(t, fsys).CompareJSTS(label)
		if err != nil {
			t.Fatal(err)
		}
		if len(checks) != 1 {
			t.Fatalf("checks = %+v, want one", checks)
		}
		return checks[0]
	}
	if c := checkOne(""); !strings.HasPrefix(c.Diff, "missing from the corpus") {
		t.Errorf("no own copy: diff %q", c.Diff)
	}
	oneCase := strings.TrimSuffix(strings.TrimPrefix(tinyWant, "[\n"), "\n]\n")
	for _, c := range []struct{ name, copy, diff string }{
		{"equal", tinyWant, ""},
		{"relabelled", strings.Replace(tinyWant, "exported by referee from the corpus", "exported elsewhere", 1), ""},
		{"number lexemes", strings.Replace(tinyWant, `"maximum": 100`, `"maximum": 1e2`, 1), ""},
		{"test description", strings.Replace(tinyWant, "provenance.bad-n is refused", "provenance.bad-n fails", 1),
			`case 1, test 3 "provenance.bad-n is refused": description "provenance.bad-n fails" in the corpus`},
		{"data", strings.Replace(tinyWant, `"s": "<a & b> café"`, `"s": "x"`, 1),
			`case 1, test 2 "provenance.populated validates": data differs at /s: "<a & b> café" in the export, "x" in the corpus`},
		{"validity", strings.Replace(tinyWant, "\"n\": \"x\"\n        },\n        \"valid\": false", "\"n\": \"x\"\n        },\n        \"valid\": true", 1),
			`case 1, test 3 "provenance.bad-n is refused": valid differs: false in the export, true in the corpus`},
		{"schema", strings.Replace(tinyWant, `"type": "string"`, `"type": "integer"`, 1),
			`case 1: schema differs at /properties/s/type: "string" in the export, "integer" in the corpus`},
		{"member order", strings.Replace(tinyWant, "\"n\": 1,\n          \"s\"", "\"m\": 1,\n          \"s\"", 1),
			`case 1, test 2 "provenance.populated validates": data differs: member "n" in the export where the corpus has "m"`},
		{"split", "[\n" + oneCase + ",\n" + oneCase + "\n]\n", "1 case in the export, 2 in the corpus"},
		{"not JSON", "[", "the corpus's copy is not JSON"},
		{"not an array", "{}", "the corpus's copy is object, not an array of cases"},
	} {
		fsys[own] = &fstest.MapFile{Data: []byte(c.copy)}
		got := checkOne("")
		t.Logf("%s: %q", c.name, got.Diff)
		switch {
		case c.diff == "" && got.Diff != "":
			t.Errorf("%s: diff %q, want none", c.name, got.Diff)
		case c.diff != "" && !strings.Contains(got.Diff, c.diff):
			t.Errorf("%s: diff %q, want %q", c.name, got.Diff, c.diff)
		}
	}

	fsys[own] = &fstest.MapFile{Data: []byte(strings.Replace(tinyWant, ",\n      {\n        \"description\": \"provenance.NoRule is schema-valid and refused by a SPEC §6 rule, which the schema cannot state\",\n        \"data\": {\n          \"n\": 4\n        },\n        \"valid\": true\n      }", "", 1))}
	if got := checkOne("").Diff; got != "case 1: 5 tests in the export, 4 in the corpus" {
		t.Errorf("a test fewer: diff %q", got)
	}

	fsys[own] = &fstest.MapFile{Data: []byte(tinyWant)}
	fsys[JSTSDir+"/audit-event.json"] = &fstest.MapFile{Data: []byte("[]\n")}
	checks, err := readTiny(t, fsys).CompareJSTS("")
	if err != nil {
		t.Fatal(err)
	}
	if len(checks) != 2 || checks[0].Name != "audit-event.json" || !strings.Contains(checks[0].Diff, "the export has no such file") || checks[1].Diff != "" {
		t.Errorf("an extra file in the corpus's export: %+v", checks)
	}
}

// TestExportJSTSShared exports ../shared/corpora/cdc and compares it with
// the corpus's own conformance/suite/draft7.
func TestExportJSTSShared(t *testing.T) {
	dir := sharedCorpus(t)
	cp := readDir(t, dir)

	checks, err := cp.CompareJSTS("")
	if err != nil {
		t.Fatal(err)
	}
	if len(checks) != len(cp.Shapes) {
		t.Errorf("%d files compared, want one per shape (%d)", len(checks), len(cp.Shapes))
	}
	for _, c := range checks {
		if c.Diff != "" {
			t.Errorf("%s: stale: %s", c.Name, c.Diff)
		}
	}

	files, err := cp.ExportJSTS(UpstreamJSTSLabel)
	if err != nil {
		t.Fatal(err)
	}
	var same []string
	for _, f := range files {
		want, err := os.ReadFile(filepath.Join(dir, JSTSDir, f.Name))
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Equal(f.Bytes, want) {
			same = append(same, f.Name)
			continue
		}
		i := 0
		for i < len(want) && i < len(f.Bytes) && want[i] == f.Bytes[i] {
			i++
		}
		t.Errorf("%s: with the upstream label the export differs from the corpus's copy at byte %d: %q here, %q there",
			f.Name, i, f.Bytes[i:min(i+40, len(f.Bytes))], want[i:min(i+40, len(want))])
	}
	t.Logf("byte for byte equal under the upstream label: %d of %d files: %s", len(same), len(files), strings.Join(same, ", "))

	// The label counts towards the case line budget: referee's shorter
	// default lets plugin-manifest's first part take one more test.
	files, err = cp.ExportJSTS(DefaultJSTSLabel)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		for i, line := range caseLines(t, f.Bytes) {
			if len(line) > CaseLineBudget {
				t.Errorf("%s: case %d is %d bytes on a line, above %d", f.Name, i+1, len(line), CaseLineBudget)
			}
		}
	}
	checks, err = cp.CompareJSTS(DefaultJSTSLabel)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range checks {
		if stale := c.Diff != ""; stale != (c.Name == "plugin-manifest.json") || stale && !strings.Contains(c.Diff, "tests in the export") {
			t.Errorf("under the default label, %s: diff %q; want only plugin-manifest.json split differently", c.Name, c.Diff)
		}
	}
}
