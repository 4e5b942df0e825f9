package report

import (
	"bytes"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// autolinkBait are texts an implementation may write (a hello name or
// version, a reason, a check ID) that GitHub's autolink extension would
// make links of, were they plain text.
var autolinkBait = []string{
	"Login at www.evil.example/reset",
	"mail admin@evil.example",
	"www.evil.example",
	"WWW.EVIL.EXAMPLE/reset",
	"Www.Evil.Example",
	"(www.evil.example)",
	"*www.evil.example*",
	"_www.evil.example_",
	"~www.evil.example~",
	"https://evil.example/reset",
	"http://evil.example",
	"ftp://evil.example/file",
	"HTTPS://EVIL.EXAMPLE",
	"mailto:admin@evil.example",
	"xmpp:admin@evil.example/resource",
	"a.b-c_d+e@evil-mail.example.com",
	"<https://evil.example>",
	"<admin@evil.example>",
	"[reset](https://evil.example)",
	"![t](https://evil.example/t.png)",
	"www&#46;evil.example and admin&#64;evil.example",
	"w<!-- -->ww.evil.example",
	`www\.evil.example and admin\@evil.example and https\://evil.example`,
	"x|www.evil.example|admin@evil.example",
}

// TestMarkdownBreaksAutolinks: in md's output no autolink can start: every
// "@" and every ":" before a "/" is followed by the empty comment that ends
// a match, every "www." (in any case) has it before its dot, and no other
// "<" is unescaped.
func TestMarkdownBreaksAutolinks(t *testing.T) {
	www := regexp.MustCompile(`(?i)www\\?\.`)
	for _, s := range autolinkBait {
		out := md(s)
		rest := strings.ReplaceAll(out, noLink, "\x00") // each break, one byte
		switch {
		case www.MatchString(rest):
			t.Errorf("md(%q) = %q: a www. link survives", s, out)
		case regexp.MustCompile(`@[^\x00]|@$`).MatchString(rest):
			t.Errorf("md(%q) = %q: an @ not followed by a break", s, out)
		case regexp.MustCompile(`:/`).MatchString(rest):
			t.Errorf("md(%q) = %q: a scheme:// link survives", s, out)
		case regexp.MustCompile(`(^|[^\\])<`).MatchString(rest):
			t.Errorf("md(%q) = %q: an unescaped <", s, out)
		}
	}
}

// TestMarkdownNoLinksRendered renders summaries holding every bait (as the
// hello's name and version, reasons, check IDs and implementation names)
// with cmark-gfm, GitHub's renderer, and its autolink extension: no link
// comes out. It skips when cmark-gfm is not installed (Debian: cmark-gfm).
func TestMarkdownNoLinksRendered(t *testing.T) {
	cmark, err := exec.LookPath("cmark-gfm")
	if err != nil {
		t.Skip("cmark-gfm is not installed (Debian package cmark-gfm): the rendering is not checked")
	}
	r := sampleReport(false)
	r.Implementation.Name, r.Implementation.Version = autolinkBait[0], autolinkBait[1]
	r.Implementation.Command = autolinkBait[2:4]
	r.Suite.Corpus = autolinkBait[4]
	problems := r.Checks[1:] // the checks that did not pass: listed with their reasons
	r.Checks = r.Checks[:1]
	for i, s := range autolinkBait {
		c := problems[i%len(problems)]
		c.ID, c.Reason = "jcs/"+s, s
		r.Checks = append(r.Checks, c)
	}
	var single, matrix bytes.Buffer
	if err := WriteMarkdown(&single, r, MarkdownOptions{MaxChecks: 100}); err != nil {
		t.Fatal(err)
	}
	var impls []NamedReport
	for _, s := range autolinkBait[:6] {
		impls = append(impls, NamedReport{Name: s, Report: r}, NamedReport{Name: "x" + s, Report: sampleReport(false)})
	}
	if err := WriteMarkdownMatrix(&matrix, impls, MarkdownOptions{MaxChecks: 100}); err != nil {
		t.Fatal(err)
	}
	for name, doc := range map[string][]byte{"summary": single.Bytes(), "matrix summary": matrix.Bytes()} {
		for _, bait := range autolinkBait[:2] {
			if !bytes.Contains(doc, []byte(md(bait))) {
				t.Fatalf("%s: %q is not in it", name, bait)
			}
		}
		for _, unsafe := range []bool{false, true} {
			args := []string{"-e", "autolink", "-e", "table", "-e", "strikethrough"}
			if unsafe {
				args = append(args, "--unsafe") // as GitHub renders, before its sanitiser
			}
			cmd := exec.Command(cmark, args...)
			cmd.Stdin = bytes.NewReader(doc)
			html, err := cmd.Output()
			if err != nil {
				t.Fatalf("%s: cmark-gfm: %v", name, err)
			}
			if m := regexp.MustCompile(`<(a|img)[\s>][^\n]*`).Find(html); m != nil {
				t.Errorf("%s (unsafe %v): a link or image is rendered: %s", name, unsafe, m)
			}
			for _, want := range []string{"<table>", "Login at www", "mail admin@"} {
				if !bytes.Contains(html, []byte(want)) {
					t.Errorf("%s (unsafe %v): the rendering lacks %q:\n%s", name, unsafe, want, html)
				}
			}
		}
	}
}
