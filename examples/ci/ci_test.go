package ci

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rhysd/actionlint"
	"go.yaml.in/yaml/v4"
)

// The files under test, from this folder.
const (
	actionFile   = "../../action.yml"
	workflowFile = "github/conformance.yml"
	gitlabFile   = "gitlab/.gitlab-ci.yml"
	shardsFile   = "kubernetes/shards.yaml"
	mergeFile    = "kubernetes/merge.yaml"
	docsFile     = "../../docs/ci.md"
)

func read(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func write(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func decode(t *testing.T, data []byte, v any) {
	t.Helper()
	if err := yaml.Unmarshal(data, v); err != nil {
		t.Fatal(err)
	}
}

// lint runs actionlint over the workflows given (name to content) in a
// repository whose root holds referee's action.yml, so that `uses: ./`
// is checked against it. shellcheck checks the scripts when it is on PATH.
func lint(t *testing.T, workflows map[string][]byte) []*actionlint.Error {
	t.Helper()
	root := t.TempDir()
	write(t, filepath.Join(root, "action.yml"), read(t, actionFile))
	for name, data := range workflows {
		write(t, filepath.Join(root, ".github", "workflows", name), data)
	}
	opts := &actionlint.LinterOptions{}
	if sc, err := exec.LookPath("shellcheck"); err == nil {
		opts.Shellcheck = sc
	} else {
		t.Log("shellcheck is not on PATH: the scripts are linted without it (Debian: apt-get install -y shellcheck)")
	}
	var out bytes.Buffer
	l, err := actionlint.NewLinter(&out, opts)
	if err != nil {
		t.Fatal(err)
	}
	proj, err := actionlint.NewProject(root)
	if err != nil {
		t.Fatal(err)
	}
	errs, err := l.LintDir(proj.WorkflowsDir(), proj)
	if err != nil {
		t.Fatal(err)
	}
	return errs
}

// action is what the tests read of action.yml.
type action struct {
	Name, Description string
	Inputs            map[string]struct {
		Description string
		Required    bool
		Default     string
	}
	Outputs map[string]struct{ Description, Value string }
	Runs    struct {
		Using string
		Steps []map[string]any
	}
}

// actionAsWorkflow turns the composite action's steps into a reusable
// workflow whose inputs are the action's, so that actionlint checks the
// steps' expressions and scripts as it checks a workflow's.
func actionAsWorkflow(t *testing.T) []byte {
	t.Helper()
	var a action
	decode(t, read(t, actionFile), &a)
	inputs := map[string]any{}
	for name, in := range a.Inputs {
		inputs[name] = map[string]any{"type": "string", "required": in.Required, "default": in.Default, "description": in.Description}
	}
	wf := map[string]any{
		"name": "action steps",
		"on":   map[string]any{"workflow_call": map[string]any{"inputs": inputs}},
		"jobs": map[string]any{"action": map[string]any{"runs-on": "ubuntu-latest", "steps": a.Runs.Steps}},
	}
	out, err := yaml.Marshal(wf)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// usesLocal is a workflow that runs the action from the repository's root
// with every input, and reads its output.
const usesLocal = `name: uses referee
on: push
permissions:
  contents: read
jobs:
  conformance:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - id: referee
        uses: ./
        with:
          args: |
            run
            jcs
          summary: "true"
          ok-exit-codes: "0 1"
          go-version: "1.26"
      - run: echo "referee exited $STATUS"
        env:
          STATUS: ${{ steps.referee.outputs.exit-code }}
`

// TestActionlint lints the example workflow (as it stands, and with the
// action taken from this repository), the action's steps, and a workflow
// that uses every input and output of the action.
func TestActionlint(t *testing.T) {
	example := read(t, workflowFile)
	local := regexp.MustCompile(`uses: refereehq/referee@\S+`).ReplaceAll(example, []byte("uses: ./"))
	if bytes.Equal(local, example) {
		t.Fatalf("%s does not use refereehq/referee", workflowFile)
	}
	errs := lint(t, map[string][]byte{
		"conformance.yml":       example,
		"conformance-local.yml": local,
		"action-steps.yml":      actionAsWorkflow(t),
		"uses-local.yml":        []byte(usesLocal),
	})
	for _, e := range errs {
		t.Errorf("actionlint: %s", e)
	}
}

// TestActionlintCatches: the lint above would see a wrong input name, an
// unknown output, a matrix typo, and a shell script mistake.
func TestActionlintCatches(t *testing.T) {
	bad := strings.NewReplacer(
		"ok-exit-codes:", "ok-exit-code:",
		"steps.referee.outputs.exit-code", "steps.referee.outputs.status",
	).Replace(usesLocal)
	typo := strings.Replace(string(read(t, workflowFile)), "${{ matrix.shard }}/4", "${{ matrix.shards }}/4", 1)
	errs := lint(t, map[string][]byte{"bad.yml": []byte(bad), "typo.yml": []byte(typo)})
	var got []string
	for _, e := range errs {
		got = append(got, e.Error())
	}
	all := strings.Join(got, "\n")
	for _, want := range []string{`input "ok-exit-code" is not defined`, `property "status" is not defined`, `property "shards" is not defined`} {
		if !strings.Contains(all, want) {
			t.Errorf("actionlint did not say %q; it said:\n%s", want, all)
		}
	}
}

// stub writes a program called referee into dir that records its
// arguments (one per line, then a line "%%") in $STUB_LOG, writes a
// Markdown summary to the file after --markdown and {} after --json, and
// exits with $STUB_STATUS.
func stub(t *testing.T, dir string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "referee")
	script := `#!/bin/sh
for a in "$@"; do printf '%s\n' "$a" >> "$STUB_LOG"; done
printf '%%\n' >> "$STUB_LOG"
prev=""
for a in "$@"; do
  case "$prev" in
    --markdown) printf '### stub summary\n' > "$a" ;;
    --json) printf '{}\n' > "$a" ;;
  esac
  if [ "$a" = "--" ]; then break; fi
  prev="$a"
done
exit "${STUB_STATUS:-0}"
`
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// calls reads a stub's log: one argument list per call.
func calls(t *testing.T, log string) [][]string {
	t.Helper()
	data, err := os.ReadFile(log)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var out [][]string
	var cur []string
	for _, l := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		if l == "%" {
			out = append(out, cur)
			cur = nil
			continue
		}
		cur = append(cur, l)
	}
	return out
}

// shell runs script with sh (or bash, with bash's -e and pipefail, as
// GitHub runs a step) in dir, with env added, and returns its exit
// status and output.
func shell(t *testing.T, sh, script, dir string, env ...string) (int, string) {
	t.Helper()
	args := []string{"-c", script}
	if filepath.Base(sh) == "bash" {
		args = []string{"--noprofile", "--norc", "-eo", "pipefail", "-c", script}
	}
	cmd := exec.Command(sh, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), string(out)
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0, string(out)
}

func lookPath(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		t.Skipf("%s is not on PATH", name)
	}
	return p
}

// TestActionRunStep runs the action's "Run referee" step as GitHub would,
// against a stub referee: each line one argument, as it stands; the
// Markdown summary asked for before the adapter's --; the exit status as
// an output, and failing the step unless listed as fine.
func TestActionRunStep(t *testing.T) {
	bash := lookPath(t, "bash")
	var a action
	decode(t, read(t, actionFile), &a)
	var script string
	for _, s := range a.Runs.Steps {
		if s["id"] == "referee" {
			script, _ = s["run"].(string)
		}
	}
	if script == "" {
		t.Fatal("action.yml has no step with id referee")
	}
	tests := []struct {
		name, args, summary, ok string
		status                  int
		want                    []string // the arguments, with MD for the summary file
		exit                    int
	}{
		{"run", "run\njcs\n--shard\n1/4\n--\nnode\nmy adapter.mjs\n", "true", "0", 0,
			[]string{"run", "jcs", "--shard", "1/4", "--markdown", "MD", "--", "node", "my adapter.mjs"}, 0},
		{"merge", "merge\na.json\nb.json", "true", "0", 0, []string{"merge", "a.json", "b.json", "--markdown", "MD"}, 0},
		{"blank lines and no summary", "\nrun\n\njcs\n", "false", "0", 0, []string{"run", "jcs"}, 0},
		{"another command", "list\njcs", "true", "0", 0, []string{"list", "jcs"}, 0},
		{"failures judged later", "run\njcs", "false", "0 1", 1, []string{"run", "jcs"}, 0},
		{"failures", "run\njcs", "false", "0", 1, []string{"run", "jcs"}, 1},
		{"incomplete", "run\njcs", "false", "0 1", 3, []string{"run", "jcs"}, 3},
		{"words a shell would expand", "run\njcs\n--\n$(touch pwned)\n*\n\"q\"", "false", "0", 0,
			[]string{"run", "jcs", "--", "$(touch pwned)", "*", `"q"`}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tmp := t.TempDir()
			stub(t, filepath.Join(tmp, "referee-bin"))
			for _, f := range []string{"output", "summary"} {
				write(t, filepath.Join(tmp, f), nil)
			}
			log := filepath.Join(tmp, "log")
			code, out := shell(t, bash, script, tmp,
				"RUNNER_TEMP="+tmp, "ARGS="+tt.args, "SUMMARY="+tt.summary, "OK_EXIT_CODES="+tt.ok,
				"GITHUB_OUTPUT="+filepath.Join(tmp, "output"), "GITHUB_STEP_SUMMARY="+filepath.Join(tmp, "summary"),
				"STUB_LOG="+log, "STUB_STATUS="+strconv.Itoa(tt.status))
			if code != tt.exit {
				t.Errorf("the step exited %d, want %d\n%s", code, tt.exit, out)
			}
			got := calls(t, log)
			if len(got) != 1 {
				t.Fatalf("referee ran %d times", len(got))
			}
			md := ""
			for i, a := range got[0] {
				if i > 0 && got[0][i-1] == "--markdown" {
					md, got[0][i] = a, "MD"
				}
			}
			if !slices.Equal(got[0], tt.want) {
				t.Errorf("referee got %q, want %q", got[0], tt.want)
			}
			if output := string(read(t, filepath.Join(tmp, "output"))); output != fmt.Sprintf("exit-code=%d\n", tt.status) {
				t.Errorf("GITHUB_OUTPUT holds %q", output)
			}
			summary := string(read(t, filepath.Join(tmp, "summary")))
			if (md != "") != (summary == "### stub summary\n") {
				t.Errorf("summary file %q, step summary %q", md, summary)
			}
			if tt.exit != 0 && !strings.Contains(out, "::error title=referee::referee exited with status") {
				t.Errorf("a failed step says no error:\n%s", out)
			}
			if _, err := os.Stat(filepath.Join(tmp, "pwned")); err == nil {
				t.Error("an argument was run by the shell")
			}
		})
	}
}

// workflow is what the tests read of the example workflow.
type workflow struct {
	Jobs map[string]struct {
		Needs    any
		If       string
		Strategy struct {
			Matrix map[string][]int
		}
		Steps []struct {
			Name, Uses, Run string
			If              string
			With            map[string]any
			Env             map[string]string
		}
	}
}

// TestWorkflow runs the example workflow's shard step for each shard of
// its matrix, then its merge step over what they wrote, with a stub
// referee.
func TestWorkflow(t *testing.T) {
	bash := lookPath(t, "bash")
	var wf workflow
	decode(t, read(t, workflowFile), &wf)
	shardJob, mergeJob := wf.Jobs["shard"], wf.Jobs["merge"]
	shards := shardJob.Strategy.Matrix["shard"]
	n := len(shards)
	for i, s := range shards {
		if s != i+1 {
			t.Fatalf("the matrix is %v, want 1 to N", shards)
		}
	}
	if fmt.Sprint(mergeJob.Needs) != "shard" || !strings.Contains(mergeJob.If, "!cancelled()") {
		t.Errorf("the merge job needs %v, if %q: want it after every shard, even failed ones", mergeJob.Needs, mergeJob.If)
	}
	var shardRun, mergeRun, summary string
	var uploads []string
	for _, st := range shardJob.Steps {
		if strings.Contains(st.Run, "referee run") {
			shardRun = st.Run
			if st.Env["SHARD"] != "${{ matrix.shard }}" {
				t.Errorf("the shard step's SHARD is %q", st.Env["SHARD"])
			}
		}
	}
	for _, st := range mergeJob.Steps {
		switch {
		case strings.Contains(st.Run, "referee merge"):
			mergeRun = st.Run
		case strings.Contains(st.Run, "GITHUB_STEP_SUMMARY"):
			summary = st.Run
		case strings.HasPrefix(st.Uses, "actions/upload-artifact"):
			uploads = append(uploads, strings.Fields(fmt.Sprint(st.With["path"]))...)
		}
	}
	if shardRun == "" || mergeRun == "" || summary == "" {
		t.Fatalf("steps: shard %q, merge %q, summary %q", shardRun, mergeRun, summary)
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	stub(t, bin)
	log := filepath.Join(dir, "log")
	path := "PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH")
	for status, want := range map[int]int{0: 0, 1: 0, 2: 2, 3: 3} {
		code, out := shell(t, bash, shardRun, dir, path, "SHARD=1", "STUB_LOG="+filepath.Join(dir, "status-log"), "STUB_STATUS="+strconv.Itoa(status))
		if code != want {
			t.Errorf("referee exiting %d: the shard step exits %d, want %d\n%s", status, code, want, out)
		}
	}
	// Each shard, as the artifacts bring their reports to the merge job.
	reports := filepath.Join(dir, "reports")
	for _, s := range shards {
		work := filepath.Join(dir, fmt.Sprint("shard", s))
		write(t, filepath.Join(work, "x"), nil)
		if code, out := shell(t, bash, shardRun, work, path, fmt.Sprintf("SHARD=%d", s), "STUB_LOG="+log); code != 0 {
			t.Fatalf("shard %d: exit %d\n%s", s, code, out)
		}
		c := calls(t, log)
		args := c[len(c)-1]
		wantShard := fmt.Sprintf("%d/%d", s, n)
		if i := slices.Index(args, "--shard"); args[0] != "run" || i < 0 || args[i+1] != wantShard {
			t.Errorf("shard %d runs referee %q, want --shard %s", s, args, wantShard)
		}
		report := fmt.Sprintf("report-%d.json", s)
		if _, err := os.Stat(filepath.Join(work, report)); err != nil {
			t.Errorf("shard %d wrote no %s", s, report)
		}
		write(t, filepath.Join(reports, report), []byte("{}\n"))
	}
	os.Remove(log)
	if code, out := shell(t, bash, mergeRun, dir, path, "STUB_LOG="+log); code != 0 {
		t.Fatalf("the merge step exits %d\n%s", code, out)
	}
	args := calls(t, log)[0]
	var merged []string
	for _, a := range args {
		if strings.HasPrefix(a, "reports/") {
			merged = append(merged, a)
		}
	}
	if args[0] != "merge" || len(merged) != n {
		t.Errorf("the merge step runs referee %q: want merge over the %d reports", args, n)
	}
	for _, flag := range []string{"--junit", "--html", "--markdown"} {
		i := slices.Index(args, flag)
		if i < 0 {
			t.Errorf("the merge writes no %s", flag)
			continue
		}
		if flag != "--markdown" && !slices.Contains(uploads, args[i+1]) {
			t.Errorf("%s %s is not uploaded (uploads: %v)", flag, args[i+1], uploads)
		}
		if flag == "--markdown" && !strings.Contains(summary, args[i+1]) {
			t.Errorf("the step summary does not show %s", args[i+1])
		}
	}
	write(t, filepath.Join(dir, "gh-summary"), nil)
	if code, out := shell(t, bash, summary, dir, "GITHUB_STEP_SUMMARY="+filepath.Join(dir, "gh-summary")); code != 0 ||
		string(read(t, filepath.Join(dir, "gh-summary"))) != "### stub summary\n" {
		t.Errorf("the summary step exits %d and writes %q\n%s", code, read(t, filepath.Join(dir, "gh-summary")), out)
	}
}

// TestGitLab runs the GitLab job's script for each parallel shard
// (CI_NODE_INDEX of CI_NODE_TOTAL), then the merge job's over its
// artifacts, with a stub referee.
func TestGitLab(t *testing.T) {
	bash := lookPath(t, "bash")
	type job struct {
		Stage     string
		Parallel  int
		Needs     []string
		When      string
		Script    []string
		Artifacts struct {
			When    string
			Paths   []string
			Reports map[string]string
		}
	}
	var doc map[string]yaml.Node
	decode(t, read(t, gitlabFile), &doc)
	var shard, merge job
	for name, j := range map[string]*job{"conformance": &shard, "conformance-report": &merge} {
		n, ok := doc[name]
		if !ok {
			t.Fatalf("%s has no job %s", gitlabFile, name)
		}
		if err := n.Decode(j); err != nil {
			t.Fatal(err)
		}
	}
	n := shard.Parallel
	if n < 2 || shard.Artifacts.When != "always" {
		t.Errorf("conformance: parallel %d, artifacts when %q", n, shard.Artifacts.When)
	}
	if !slices.Equal(merge.Needs, []string{"conformance"}) || merge.When != "always" {
		t.Errorf("conformance-report needs %v, when %q: want it after every shard, even failed ones", merge.Needs, merge.When)
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	stub(t, bin)
	log := filepath.Join(dir, "log")
	path := "PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH")
	script := strings.Join(shard.Script, "\n")
	for i := 1; i <= n; i++ {
		env := []string{path, "STUB_LOG=" + log, fmt.Sprintf("CI_NODE_INDEX=%d", i), fmt.Sprintf("CI_NODE_TOTAL=%d", n)}
		if code, out := shell(t, bash, script, dir, env...); code != 0 {
			t.Fatalf("shard %d exits %d\n%s", i, code, out)
		}
		c := calls(t, log)
		args := c[len(c)-1]
		if j := slices.Index(args, "--shard"); j < 0 || args[j+1] != fmt.Sprintf("%d/%d", i, n) {
			t.Errorf("shard %d runs %q", i, args)
		}
		for _, status := range []int{1, 2, 3} {
			code, _ := shell(t, bash, script, t.TempDir(), append(env, "STUB_STATUS="+strconv.Itoa(status))...)
			if want := map[int]int{1: 0, 2: 2, 3: 3}[status]; code != want {
				t.Errorf("referee exiting %d: the shard exits %d, want %d", status, code, want)
			}
		}
	}
	for _, p := range shard.Artifacts.Paths {
		if m, _ := filepath.Glob(filepath.Join(dir, p)); len(m) != n {
			t.Errorf("the artifacts %s hold %d reports, want %d", p, len(m), n)
		}
	}
	os.Remove(log)
	if code, out := shell(t, bash, strings.Join(merge.Script, "\n"), dir, path, "STUB_LOG="+log); code != 0 {
		t.Fatalf("the merge exits %d\n%s", code, out)
	}
	args := calls(t, log)[0]
	reports := 0
	for _, a := range args {
		if strings.HasPrefix(a, "report-") {
			reports++
		}
	}
	j := slices.Index(args, "--junit")
	if args[0] != "merge" || reports != n || j < 0 || merge.Artifacts.Reports["junit"] != args[j+1] {
		t.Errorf("the merge runs %q with JUnit report %q", args, merge.Artifacts.Reports["junit"])
	}
	for _, flag := range []string{"--html", "--badge", "--markdown"} {
		if i := slices.Index(args, flag); i < 0 || !slices.Contains(merge.Artifacts.Paths, args[i+1]) {
			t.Errorf("the merge's %s is not an artifact", flag)
		}
	}
}

// TestKubernetes runs the Indexed Job's pod script for each completion
// index with a stub referee, then the merge Job's over what they wrote.
func TestKubernetes(t *testing.T) {
	sh := lookPath(t, "sh")
	type container struct {
		Command      []string
		Args         []string
		VolumeMounts []struct {
			Name      string
			MountPath string `yaml:"mountPath"`
		} `yaml:"volumeMounts"`
	}
	type doc struct {
		Kind     string
		Metadata struct{ Name string }
		Spec     struct {
			CompletionMode string `yaml:"completionMode"`
			Completions    int
			Parallelism    int
			Template       struct {
				Spec struct {
					RestartPolicy string `yaml:"restartPolicy"`
					Containers    []container
					Volumes       []struct {
						Name                  string
						PersistentVolumeClaim struct {
							ClaimName string `yaml:"claimName"`
						} `yaml:"persistentVolumeClaim"`
					}
				}
			}
		}
	}
	docs := func(path string) []doc {
		var out []doc
		dec := yaml.NewDecoder(bytes.NewReader(read(t, path)))
		for {
			var d doc
			if err := dec.Decode(&d); err != nil {
				break
			}
			if d.Kind != "" {
				out = append(out, d)
			}
		}
		return out
	}
	var claim string
	var job, merge *doc
	for _, d := range docs(shardsFile) {
		switch d.Kind {
		case "PersistentVolumeClaim":
			claim = d.Metadata.Name
		case "Job":
			job = &d
		}
	}
	for _, d := range docs(mergeFile) {
		if d.Kind == "Job" {
			merge = &d
		}
	}
	if job == nil || merge == nil || claim == "" {
		t.Fatalf("shards.yaml and merge.yaml: job %v, merge %v, claim %q", job, merge, claim)
	}
	n := job.Spec.Completions
	if job.Spec.CompletionMode != "Indexed" || n < 2 || job.Spec.Parallelism != n {
		t.Errorf("the shards Job: %s, %d completions, parallelism %d", job.Spec.CompletionMode, n, job.Spec.Parallelism)
	}
	for _, d := range []*doc{job, merge} {
		v := d.Spec.Template.Spec.Volumes
		if len(v) != 1 || v[0].PersistentVolumeClaim.ClaimName != claim || d.Spec.Template.Spec.RestartPolicy != "Never" {
			t.Errorf("%s: volumes %+v, want the claim %s", d.Metadata.Name, v, claim)
		}
	}
	podScript := func(d *doc) (string, string) {
		c := d.Spec.Template.Spec.Containers[0]
		if !slices.Equal(c.Command, []string{"/bin/sh", "-c"}) || len(c.Args) != 1 || len(c.VolumeMounts) != 1 {
			t.Fatalf("%s: command %q, args %q, mounts %v", d.Metadata.Name, c.Command, c.Args, c.VolumeMounts)
		}
		return c.Args[0], c.VolumeMounts[0].MountPath
	}
	script, mount := podScript(job)
	if !strings.Contains(script, fmt.Sprintf(`--shard "$((JOB_COMPLETION_INDEX+1))/%d"`, n)) {
		t.Errorf("the pod does not run --shard $((JOB_COMPLETION_INDEX+1))/%d:\n%s", n, script)
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	stub(t, bin)
	log := filepath.Join(dir, "log")
	volume := filepath.Join(dir, "volume")
	if err := os.MkdirAll(volume, 0o755); err != nil {
		t.Fatal(err)
	}
	path := "PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH")
	onVolume := func(s, mount string) string { return strings.ReplaceAll(s, mount, volume) }
	for i := range n {
		env := []string{path, "STUB_LOG=" + log, fmt.Sprintf("JOB_COMPLETION_INDEX=%d", i)}
		if code, out := shell(t, sh, onVolume(script, mount), dir, env...); code != 0 {
			t.Fatalf("index %d exits %d\n%s", i, code, out)
		}
		c := calls(t, log)
		args := c[len(c)-1]
		if j := slices.Index(args, "--shard"); j < 0 || args[j+1] != fmt.Sprintf("%d/%d", i+1, n) {
			t.Errorf("index %d runs %q, want --shard %d/%d", i, args, i+1, n)
		}
		for status, want := range map[int]int{1: 0, 2: 2, 3: 3} {
			if code, _ := shell(t, sh, onVolume(script, mount), t.TempDir(), append(env, "STUB_STATUS="+strconv.Itoa(status))...); code != want {
				t.Errorf("referee exiting %d: the pod exits %d, want %d", status, code, want)
			}
		}
	}
	if m, _ := filepath.Glob(filepath.Join(volume, "report-*.json")); len(m) != n {
		t.Errorf("the pods left %d reports on the volume, want %d", len(m), n)
	}
	mergeScript, mergeMount := podScript(merge)
	os.Remove(log)
	if code, out := shell(t, sh, onVolume(mergeScript, mergeMount), dir, path, "STUB_LOG="+log); code != 0 {
		t.Fatalf("the merge exits %d\n%s", code, out)
	}
	args := calls(t, log)[0]
	reports := 0
	for _, a := range args {
		if strings.HasPrefix(a, filepath.Join(volume, "report-")) {
			reports++
		}
	}
	if args[0] != "merge" || reports != n {
		t.Errorf("the merge runs %q, want merge over the %d reports", args, n)
	}
}

// TestDocs: docs/ci.md shows the literal commands, and links to each
// example.
func TestDocs(t *testing.T) {
	page := string(read(t, docsFile))
	for _, want := range []string{
		"referee run jcs --shard", "referee merge ", `--shard "$((JOB_COMPLETION_INDEX+1))/4"`,
		"uses: refereehq/referee@", "$GITHUB_STEP_SUMMARY",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("docs/ci.md does not show %q", want)
		}
	}
	for _, f := range []string{workflowFile, gitlabFile, shardsFile, mergeFile} {
		link := "../examples/ci/" + f
		if !strings.Contains(page, "("+link+")") {
			t.Errorf("docs/ci.md does not link to %s", link)
		}
	}
	if !strings.Contains(page, "(../action.yml)") {
		t.Error("docs/ci.md does not link to action.yml")
	}
	// Every input of the action is documented.
	var a action
	decode(t, read(t, actionFile), &a)
	for name := range a.Inputs {
		if !strings.Contains(page, "`"+name+"`") {
			t.Errorf("docs/ci.md does not document the input %s", name)
		}
	}
}
