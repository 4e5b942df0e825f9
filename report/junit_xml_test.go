package report

import (
	"bytes"
	"encoding/xml"
	"math/rand/v2"
	"testing"
)

// encoded is the JUnit document as encoding/xml's Encoder writes it, the
// oracle the hand-written writer is held to.
func encoded(t testing.TB, d *junitSuites) []byte {
	t.Helper()
	doc := struct {
		XMLName xml.Name `xml:"testsuites"`
		*junitSuites
	}{junitSuites: d}
	var b bytes.Buffer
	b.WriteString(xml.Header)
	enc := xml.NewEncoder(&b)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		t.Fatal(err)
	}
	b.WriteString("\n")
	return b.Bytes()
}

func written(d *junitSuites) []byte {
	var b bytes.Buffer
	d.writeTo(&b)
	return b.Bytes()
}

// docOf builds a document whose every string is s, with a case of each
// shape: no problem, each problem with and without a type, output only.
func docOf(s string) *junitSuites {
	p := func(typ string) *junitProblem { return &junitProblem{Message: s, Type: typ, Text: s} }
	return &junitSuites{Name: s, Tests: 5, Time: s, Suites: []junitSuite{{
		Name: s, Time: s, Timestamp: s,
		Properties: []junitProperty{{s, s}, {"a", ""}},
		Cases: []junitCase{
			{Name: s, Classname: s, Time: s},
			{Name: s, Failure: p("fail"), SystemOut: s, SystemErr: s},
			{Name: s, Error: p(""), SystemErr: s},
			{Name: s, Skipped: &junitProblem{Message: s}},
			{Name: s, SystemOut: s},
		},
	}}}
}

// TestXMLWriterIsEncoder: for text of every kind (markup, white space,
// control characters, noncharacters, bytes that are not UTF-8, an encoded
// surrogate), the writer writes what encoding/xml's Encoder writes.
func TestXMLWriterIsEncoder(t *testing.T) {
	texts := []string{"", "plain", `<a href="x">&amp;'</a>`, "tab\there\nline\r\ncr", "\x00\x01\x1b[2K\x7f",
		"\ufffe\uffff\ufffd", "\xff\xfe bad", "\xed\xa0\x80 surrogate", "\u2028\u202e bidi", "𝄞 astral", "]]>"}
	r := rand.New(rand.NewPCG(1, 2))
	for range 300 {
		b := make([]byte, r.IntN(24))
		for i := range b {
			b[i] = byte(r.IntN(256))
		}
		texts = append(texts, string(b))
	}
	for _, s := range texts {
		if got, want := written(docOf(s)), encoded(t, docOf(s)); !bytes.Equal(got, want) {
			t.Fatalf("text %q:\nwriter:  %q\nencoder: %q", s, got, want)
		}
	}
}

func FuzzXMLWriter(f *testing.F) {
	f.Add("a<b>&\"'\t\n\r\x00\xff\ufffe")
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := written(docOf(s)), encoded(t, docOf(s)); !bytes.Equal(got, want) {
			t.Fatalf("text %q:\nwriter:  %q\nencoder: %q", s, got, want)
		}
	})
}
