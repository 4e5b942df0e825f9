package tracked

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"testing"
)

// registryHosts are the hosts of the package registries no tracked file may
// name: a package is identified by its name, version and integrity digest,
// wherever it is fetched from. They are built from their labels, so that
// this file does not name them either.
func registryHosts() []string {
	host := func(labels ...string) string { return strings.Join(labels, ".") }
	return []string{
		host("registry", "npmjs", "org"), host("registry", "npmjs", "com"), host("registry", "yarnpkg", "com"), // npm
		host("pypi", "org"), host("pypi", "python", "org"), host("files", "pythonhosted", "org"), // PyPI
		host("crates", "io"),                                         // the Rust registry, its index and static hosts included
		host("proxy", "golang", "org"), host("sum", "golang", "org"), // the Go module proxy and checksum database
		host("rubygems", "org"),                                                                                   // RubyGems
		host("repo", "maven", "apache", "org"), host("repo1", "maven", "org"), host("central", "sonatype", "com"), // Maven Central
	}
}

// namedHost returns the first registry host text names, compared without
// case, and where; a host is named where the next byte cannot continue a
// host name (a host ending in .io, not .iox).
func namedHost(text []byte, hosts []string) (string, int, bool) {
	lower := bytes.ToLower(text)
	for _, h := range hosts {
		for from := 0; ; {
			i := bytes.Index(lower[from:], []byte(h))
			if i < 0 {
				break
			}
			at := from + i
			end := at + len(h)
			if end == len(lower) || !hostByte(lower[end]) {
				return h, at, true
			}
			from = at + 1
		}
	}
	return "", 0, false
}

func hostByte(c byte) bool {
	return 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-'
}

func TestNamedHost(t *testing.T) {
	hosts := registryHosts()
	for _, tt := range []struct {
		text string
		want string
	}{
		{`"tarball": "https://` + hosts[0] + `/x/-/x-1.0.2.tgz"`, hosts[0]},
		{"pip install --index-url https://" + strings.ToUpper(hosts[3]) + "/simple x", hosts[3]},
		{"the index at index." + hosts[6] + "/", hosts[6]},
		{"GOPROXY=https://" + hosts[7] + ",direct", hosts[7]},
		{"ends with " + hosts[9], hosts[9]},
		{"a name, a version and an integrity digest", ""},
		{"crates" + ".iota is another word", ""},
		{"npm install @cognitive-delivery/contract", ""},
	} {
		got, _, ok := namedHost([]byte(tt.text), hosts)
		if ok != (tt.want != "") || got != tt.want {
			t.Errorf("namedHost(%q) = %q, %v; want %q", tt.text, got, ok, tt.want)
		}
	}
}

// trackedFiles returns the repository's root and its tracked files, or
// skips when git or the checkout is not there.
func trackedFiles(t *testing.T) (string, []string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed: the tracked files cannot be listed")
	}
	top, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		t.Skipf("not in a git checkout: %v", err)
	}
	root := strings.TrimSpace(string(top))
	out, err := exec.Command("git", "-C", root, "ls-files", "-z").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	var files []string
	for _, f := range strings.Split(string(out), "\x00") {
		if f != "" {
			files = append(files, f)
		}
	}
	return root, files
}

// TestNoRegistryHost: no tracked file, lockfiles included, names a package
// registry's host.
func TestNoRegistryHost(t *testing.T) {
	root, files := trackedFiles(t)
	hosts := registryHosts()
	var lockfiles int
	for _, f := range files {
		if path.Base(f) == "package-lock.json" {
			lockfiles++
		}
		p := filepath.Join(root, filepath.FromSlash(f))
		fi, err := os.Lstat(p)
		if err != nil || !fi.Mode().IsRegular() {
			continue // deleted in the work tree, or a symbolic link
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if h, at, ok := namedHost(b, hosts); ok {
			line := 1 + bytes.Count(b[:at], []byte("\n"))
			t.Errorf("%s:%d names the registry host %s: identify a package by name, version and integrity", f, line, h)
		}
	}
	if lockfiles == 0 {
		t.Error("no package-lock.json among the tracked files: the scan should cover the lockfiles")
	}
}

// TestLockfilesHaveNoResolved: a tracked npm lockfile identifies each
// package by name, version and integrity, without the URL it was resolved
// from (npm ci fetches it from whatever registry is configured, or from its
// cache).
func TestLockfilesHaveNoResolved(t *testing.T) {
	root, files := trackedFiles(t)
	for _, f := range files {
		if path.Base(f) != "package-lock.json" {
			continue
		}
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(f)))
		if err != nil {
			t.Fatal(err)
		}
		var lock struct {
			Packages map[string]map[string]any `json:"packages"`
		}
		if err := json.Unmarshal(b, &lock); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for name, p := range lock.Packages {
			if _, has := p["resolved"]; has {
				t.Errorf("%s: %q has a resolved URL", f, name)
			}
			if _, has := p["integrity"]; name != "" && !has {
				t.Errorf("%s: %q has no integrity", f, name)
			}
		}
	}
}
