package cdc

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/refereehq/referee/corpus"
	"github.com/refereehq/referee/internal/privatedir"
)

// embeddedCorpus is the embedded release, or the test fails.
func embeddedCorpus(t *testing.T) *corpus.Corpus {
	t.Helper()
	c, err := Embedded()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// damage writes a copy of c at the first name and breaks one of its schemas.
func damage(t *testing.T, c *corpus.Corpus) string {
	t.Helper()
	dir, err := materialise(c)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "schemas", "agent-lease.schema.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// verifies fails the test unless dir holds c, intact and private.
func verifies(t *testing.T, dir string, c *corpus.Corpus) {
	t.Helper()
	if err := usable(dir, c); err != nil {
		t.Errorf("%s: %v", dir, err)
	}
}

// TestMaterialiseConcurrently: many runs repairing a damaged cache at once
// all succeed, each with a copy that verifies and still verifies when all
// are done (none removed or replaced what another had verified), and no
// temporary directory is left behind.
func TestMaterialiseConcurrently(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	c := embeddedCorpus(t)
	damaged := damage(t, c)
	const runs = 24
	dirs := make([]string, runs)
	errs := make([]error, runs)
	var wg sync.WaitGroup
	for i := range runs {
		wg.Go(func() { dirs[i], errs[i] = materialise(c) })
	}
	wg.Wait()
	for i := range runs {
		if errs[i] != nil {
			t.Errorf("run %d: %v", i, errs[i])
			continue
		}
		if dirs[i] == damaged {
			t.Errorf("run %d was handed the damaged copy", i)
		}
		verifies(t, dirs[i], c)
	}
	if usable(damaged, c) == nil {
		t.Error("the damaged copy verifies")
	}
	leftovers, _ := filepath.Glob(filepath.Join(filepath.Dir(damaged), ".cdc-*"))
	if len(leftovers) > 0 {
		t.Errorf("temporary directories left: %v", leftovers)
	}
}

// childVar makes TestMaterialiseChild a child process that loads the
// embedded corpus and prints the directory it was given.
const childVar = "REFEREE_CDC_MATERIALISE_CHILD"

// TestMaterialiseChild is a process of TestMaterialiseInProcesses.
func TestMaterialiseChild(t *testing.T) {
	if os.Getenv(childVar) == "" {
		t.Skip("a child of TestMaterialiseInProcesses")
	}
	dir, err := materialise(embeddedCorpus(t))
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	fmt.Println("dir:", dir)
}

// TestMaterialiseInProcesses is TestMaterialiseConcurrently with
// processes, as concurrent `referee run cdc` commands are.
func TestMaterialiseInProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	c := embeddedCorpus(t)
	damaged := damage(t, c)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	runs := 4 * runtime.GOMAXPROCS(0)
	out := make([][]byte, runs)
	errs := make([]error, runs)
	var wg sync.WaitGroup
	for i := range runs {
		wg.Go(func() {
			cmd := exec.CommandContext(t.Context(), exe, "-test.run=^TestMaterialiseChild$")
			cmd.Env = append(os.Environ(), childVar+"=1")
			out[i], errs[i] = cmd.Output()
		})
	}
	wg.Wait()
	for i := range runs {
		line := ""
		for _, l := range strings.Split(string(out[i]), "\n") {
			if strings.HasPrefix(l, "dir: ") || strings.HasPrefix(l, "error: ") {
				line = l
			}
		}
		dir, ok := strings.CutPrefix(line, "dir: ")
		if errs[i] != nil || !ok {
			t.Errorf("process %d: %v: %q", i, errs[i], line)
			continue
		}
		if dir == damaged {
			t.Errorf("process %d was handed the damaged copy", i)
		}
		verifies(t, dir, c)
	}
}

// TestMaterialisePrivate: a copy that others can change is not used (a new
// one is written beside it, the other left alone), nor is one of another
// user's; a cache directory of the user's own is made private, one of
// another user's refused. Ownership is tested only where the test can
// chown (as root).
func TestMaterialisePrivate(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no Unix permissions")
	}
	c := embeddedCorpus(t)
	for _, tt := range []struct {
		name  string
		spoil func(dir string) error
		root  bool // needs root
	}{
		{"a copy writable by others", func(dir string) error { return os.Chmod(dir, 0o777) }, false},
		{"a copy writable by its group", func(dir string) error { return os.Chmod(dir, 0o770) }, false},
		{"a schema writable by others", func(dir string) error {
			return os.Chmod(filepath.Join(dir, "schemas", "agent-lease.schema.json"), 0o666)
		}, false},
		{"a copy of another user's", func(dir string) error { return os.Chown(dir, 4242, 4242) }, true},
		{"a schema of another user's", func(dir string) error {
			return os.Chown(filepath.Join(dir, "schemas", "agent-lease.schema.json"), 4242, 4242)
		}, true},
		{"a schema that is a symbolic link", func(dir string) error {
			p := filepath.Join(dir, "schemas", "agent-lease.schema.json")
			if err := os.Rename(p, p+".real"); err != nil {
				return err
			}
			return os.Symlink(p+".real", p)
		}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if tt.root && os.Getuid() != 0 {
				t.Skip("chown needs root")
			}
			t.Setenv("XDG_CACHE_HOME", t.TempDir())
			first, err := materialise(c)
			if err != nil {
				t.Fatal(err)
			}
			if err := tt.spoil(first); err != nil {
				t.Fatal(err)
			}
			got, err := materialise(c)
			if err != nil {
				t.Fatal(err)
			}
			if got == first {
				t.Fatalf("%s was used", first)
			}
			verifies(t, got, c)
			if _, err := os.Lstat(first); err != nil {
				t.Errorf("the refused copy was removed: %v", err)
			}
		})
	}

	t.Run("a cache directory writable by others", func(t *testing.T) {
		cache := t.TempDir()
		t.Setenv("XDG_CACHE_HOME", cache)
		root := filepath.Join(cache, "referee")
		if err := os.Mkdir(root, 0o777); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(root, 0o777); err != nil { // past the umask
			t.Fatal(err)
		}
		if _, err := materialise(c); err != nil {
			t.Fatal(err)
		}
		if fi, err := os.Stat(root); err != nil || fi.Mode().Perm()&0o022 != 0 {
			t.Errorf("%s is still writable by others: %v", root, fi.Mode())
		}
	})
	t.Run("a cache directory of another user's", func(t *testing.T) {
		if os.Getuid() != 0 {
			t.Skip("chown needs root")
		}
		cache := t.TempDir()
		t.Setenv("XDG_CACHE_HOME", cache)
		root := filepath.Join(cache, "referee")
		if err := os.Mkdir(root, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(root, 4242, 4242); err != nil {
			t.Fatal(err)
		}
		if dir, err := materialise(c); err == nil || !strings.Contains(err.Error(), "owned by uid 4242") {
			t.Errorf("materialise in another user's directory: %q, %v", dir, err)
		}
	})
}

// TestMaterialiseWithoutHome: with neither XDG_CACHE_HOME nor HOME the
// copies go under the temporary directory, in a directory of the user's
// own name (referee-<uid>), private; one another user made there first is
// refused.
func TestMaterialiseWithoutHome(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the cache directory comes from LocalAppData")
	}
	tmp := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", "")
	t.Setenv("HOME", "")
	t.Setenv("TMPDIR", tmp)
	c := embeddedCorpus(t)
	root := filepath.Join(tmp, privatedir.UserName("referee"))
	dir, err := materialise(c)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(dir) != root {
		t.Errorf("the copy is at %s, want it in %s", dir, root)
	}
	if fi, err := os.Stat(root); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("%s: %v, %v; want a directory of mode 0700", root, fi.Mode(), err)
	}
	verifies(t, dir, c)
	if os.Getuid() != 0 {
		return // chown needs root
	}
	if err := os.Chown(root, 4242, 4242); err != nil {
		t.Fatal(err)
	}
	if dir, err := materialise(c); err == nil {
		t.Errorf("a cache directory of another user's in the temporary directory was used: %s", dir)
	}
}
