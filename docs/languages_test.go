package docs_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// sourceMark names a file of the repository that the fenced block after it
// shows whole; the file itself is run by its SDK's tests (sdk/*/scripts/test.sh).
var sourceMark = regexp.MustCompile(`^<!-- source: ((?:sdk|examples)/[A-Za-z0-9._/-]+) -->$`)

// TestLanguagesShowTheirSources holds every block of languages.md marked
// `<!-- source: PATH -->` equal to the file at PATH, so the page shows the
// examples the SDKs' tests run, and requires one such example per SDK.
func TestLanguagesShowTheirSources(t *testing.T) {
	raw, err := os.ReadFile("languages.md")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(raw), "\n")
	perSDK := map[string]int{}
	for i, line := range lines {
		m := sourceMark.FindStringSubmatch(line)
		if m == nil {
			if strings.HasPrefix(line, "<!-- source:") {
				t.Errorf("languages.md:%d: %q is not a source mark of a path under sdk/ or examples/", i+1, line)
			}
			continue
		}
		path := m[1]
		if strings.Contains(path, "..") {
			t.Errorf("languages.md:%d: %s leaves the repository", i+1, path)
			continue
		}
		if i+1 >= len(lines) || !strings.HasPrefix(lines[i+1], "```") {
			t.Errorf("languages.md:%d: the source mark of %s is not right before a fenced block", i+1, path)
			continue
		}
		end := i + 2
		for end < len(lines) && !strings.HasPrefix(lines[end], "```") {
			end++
		}
		if end == len(lines) {
			t.Errorf("languages.md:%d: the block of %s does not end", i+2, path)
			continue
		}
		block := strings.Join(lines[i+2:end], "\n") + "\n"
		file, err := os.ReadFile(filepath.Join("..", filepath.FromSlash(path)))
		if err != nil {
			t.Errorf("languages.md:%d: %v", i+1, err)
			continue
		}
		if got := strings.ReplaceAll(string(file), "\r\n", "\n"); got != block {
			t.Errorf("languages.md:%d: the block differs from %s; copy the file into the page again", i+2, path)
		}
		if parts := strings.Split(path, "/"); parts[0] == "sdk" && len(parts) > 2 {
			perSDK[parts[1]]++
		}
	}
	for _, sdk := range []string{"js", "python", "rust"} {
		if perSDK[sdk] == 0 {
			t.Errorf("languages.md shows no file of sdk/%s", sdk)
		}
	}
}
