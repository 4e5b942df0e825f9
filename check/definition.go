package check

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/refereehq/referee/adapter"
	"github.com/refereehq/referee/canon"
	"github.com/refereehq/referee/corpus"
)

// Definition declares a suite to the engine: what it is, its flags, its
// broken modes, the corpora it reads, and how to load it. A suite package
// exports one; the registry (package suites) lists them all.
type Definition struct {
	Name     string   // as in `referee run NAME`
	Summary  string   // one line
	Help     string   // the long help: what the suite sends and expects
	Examples []string // command lines, each a real example
	Flags    []Flag   // the suite's own flags
	// Modes lists the built-in implementation's broken modes, when asked
	// (ModeList): a suite whose modes are derived from its own list derives
	// them then, not at initialisation.
	Modes func() []Mode
	// Corpus says what --corpus reads; Embedded, what runs without it ("":
	// nothing, --corpus is required).
	Corpus, Embedded string
	// Live says the suite talks to the implementation in its own protocol
	// (Loaded.Connect), not through referee-adapter/1.
	Live bool
	// RunBound says the suite's requests name what exists only while its
	// run does (cgp-host's providers, served by the run): a repro line
	// repeats the check through referee, never a request by hand.
	RunBound bool
	// Load builds the suite. It may be called any number of times; each
	// call returns values of its own.
	Load func(LoadOptions) (*Loaded, error)
	// Validate, if set, refuses a spec the suite cannot run against (a
	// usage error) before anything is started or sent.
	Validate func(spec Spec) error
	// Commands are top-level commands the suite adds to the CLI.
	Commands []Command
	// Serve, if set, serves the built-in implementation in the suite's own
	// protocol (live suites); otherwise `referee serve` serves Reference
	// as a referee-adapter/1 adapter.
	Serve func(ctx context.Context, o ServeOptions) error
	// ServeFlags are Serve's own flags.
	ServeFlags []Flag
	// Manifest, if set, checks the members of a corpus manifest beyond its
	// files, for `referee corpus verify`: about says what the corpus is
	// ("a Context Graph fixture profile for contextgraph/1.0"), "" when the
	// manifest is not one of this suite's, and problems break its rules.
	Manifest func(meta []canon.Member) (about string, problems []string)
	// Ops, if set, returns the ops the suite sends to an adapter, each with
	// JSON Schemas for its args and replies (OpsFrom reads them from JSON).
	Ops func() ([]Op, error)
	// Fuzz, if set, makes the suite fuzzable (`referee fuzz`, package fuzz).
	Fuzz *FuzzSpec
}

// FuzzSpec is what `referee fuzz` needs of a suite: the kinds of input it
// generates, how found vectors become files of its own corpus format, how
// it reads such a corpus, and what the fuzz proof test asks of it. The
// engine does the round trip (Checks): the suite holds no glue.
type FuzzSpec struct {
	Targets []FuzzTarget
	// Files lays entries (what FuzzTarget.Vector makes) out as the files
	// of a corpus of the suite's format, without a manifest: path (slash
	// separated, relative) to content. The engine reads them back through
	// the suite's Load (LoadOptions.FS), as `referee run SUITE --corpus
	// DIR` replays the corpus it writes.
	Files func(entries []any) (map[string][]byte, error)
	// Proof is what the fuzz proof test asks of the suite.
	Proof FuzzProof
	// Replay is the flag of `referee run SUITE` that replays a corpus the
	// fuzzer wrote; "" is --corpus.
	Replay string
}

// FuzzProof is what the fuzz proof test (package fuzz) asks of a suite.
type FuzzProof struct {
	// Inputs bounds the inputs within which seed 1 must find each broken
	// mode of the suite's built-in implementation.
	Inputs int
	// Elsewhere, when some broken modes are out of the fuzz targets' reach,
	// names the test that proves the ones within it; the proof test then
	// leaves the suite to that test.
	Elsewhere string
}

// FuzzChecks makes the checks of one fuzz entry as a replay of it does:
// the entry laid out by spec.Files, held in memory with a manifest as
// `referee fuzz --out` writes one, and loaded by def.Load.
func FuzzChecks(def *Definition, spec *FuzzSpec, entry any) ([]Check, error) {
	return FuzzCorpusChecks(def, spec, []any{entry})
}

// FuzzCorpusChecks makes the checks of entries laid out together as one
// corpus, as FuzzChecks does for one entry.
func FuzzCorpusChecks(def *Definition, spec *FuzzSpec, entries []any) ([]Check, error) {
	files, err := spec.Files(entries)
	if err != nil {
		return nil, err
	}
	fsys, err := corpus.FoundFS(files, nil)
	if err != nil {
		return nil, err
	}
	l, err := def.Load(LoadOptions{FS: fsys})
	if err != nil {
		return nil, err
	}
	if l.Suite == nil {
		return nil, fmt.Errorf("%s: Load of a corpus in memory built no suite (a bug in referee)", def.Name)
	}
	return l.Suite.Checks, nil
}

// FuzzInput is what a fuzz target's inputs are, which decides how they are
// mutated and shrunk.
type FuzzInput int

// The kinds of fuzz input.
const (
	FuzzValue FuzzInput = iota // a JSON document: shrunk as a tree, never mutated as bytes
	FuzzText                   // UTF-8 text, often JSON: mutated and shrunk by character
	FuzzBytes                  // any bytes, often JSON: mutated and shrunk by byte
)

// FuzzTarget is one kind of generated input and the corpus entry it makes.
type FuzzTarget struct {
	Name   string   // "canonical", "decode", ...
	Doc    string   // what it generates, in one line
	Needs  []string // the adapter ops its vectors' checks call
	Input  FuzzInput
	Weight int // its share of the inputs against the other targets' (0 is 1)
	// Generate makes one input from r.
	Generate func(r *rand.Rand) []byte
	// Vector makes the corpus entry named name for input, with the outcome
	// the suite's reference gives it, as FuzzSpec.Files takes it; ok is
	// false when the corpus cannot hold it.
	Vector func(name string, input []byte) (entry any, ok bool)
}

// Mode is a deliberately broken variant of a suite's built-in implementation.
type Mode struct {
	Name, Doc string
}

// FlagKind is the type of a suite flag's value.
type FlagKind int

// The kinds of flag.
const (
	FlagString FlagKind = iota
	FlagBool
	FlagDuration
)

// Flag is one of a suite's own flags, as data.
type Flag struct {
	Name    string
	Kind    FlagKind
	Default string
	// Usage is the help text; a `NAME` in backquotes names the value.
	Usage string
	// Repro says a repro command must repeat the flag (it changes the checks).
	Repro bool
	// Output says the value is a path the suite writes: the CLI refuses it
	// before anything runs when its directory does not exist.
	Output bool
}

// FlagValues are the values of a suite's flags, by name, as given.
type FlagValues map[string]string

// String returns the value of a string flag, "" when unset.
func (v FlagValues) String(name string) string { return v[name] }

// Bool returns the value of a bool flag.
func (v FlagValues) Bool(name string) bool {
	b, _ := strconv.ParseBool(v[name]) // the CLI stores only parsed values
	return b
}

// Duration returns the value of a duration flag, 0 when unset.
func (v FlagValues) Duration(name string) time.Duration {
	d, _ := time.ParseDuration(v[name]) // the CLI stores only parsed values
	return d
}

// LoadOptions say what to load.
type LoadOptions struct {
	Corpus string // a corpus directory; "" for the embedded one
	// FS, if set, holds a corpus in memory, read in place of Corpus (the
	// fuzz engine's found vectors, loaded as a replay of them would be).
	FS    fs.FS
	Flags FlagValues // the suite's own flags
	// MaxFileSize caps each file the suite reads from the corpus or a flag,
	// in bytes (corpus.OpenDir, regularfile.ReadFile); 0 is
	// regularfile.DefaultLimit.
	MaxFileSize int64
	// ReferenceOnly says the caller needs only Loaded.Reference (referee
	// serve): a suite whose built-in implementation does not read the
	// embedded corpus may then leave Suite nil and read nothing.
	ReferenceOnly bool
}

// OpenCorpus opens the corpus o names: FS, else the directory Corpus, else
// the suite's embedded one.
func (o LoadOptions) OpenCorpus(embedded func() (*corpus.Corpus, error)) (*corpus.Corpus, error) {
	if o.FS != nil {
		return corpus.Open(o.FS, InMemoryCorpus)
	}
	return corpus.OpenDirOr(o.Corpus, o.MaxFileSize, embedded)
}

// InMemoryCorpus is the name of a corpus LoadOptions.FS holds.
const InMemoryCorpus = "in-memory"

// Loaded is everything a run of a suite needs, as values.
type Loaded struct {
	Suite *Suite
	// Reference returns the built-in implementation, honest (mode "") or
	// broken; nil for a live suite, whose Connect starts its own.
	Reference func(mode string) (adapter.Handler, error)
	// Native renders the suite's own report of a run against spec; nil if
	// it has none.
	Native func(run *Execution, spec Spec) any
	// Hello holds the extra hello args an adapter is sent; Env, the
	// environment variables a child adapter is given.
	Hello map[string]string
	Env   []string
	// After, if set, runs when the run is over, to write the suite's files.
	After func(AfterRun) error
	// Connect, for a live suite, reaches the implementation in the suite's
	// own protocol.
	Connect func(ctx context.Context, spec Spec) (Target, error)
	// Fuzz, if set, is the suite's fuzz declaration drawn from this load's
	// corpus (`referee fuzz SUITE --corpus DIR`: its schemas, keys and
	// vectors drive the generators); nil means Definition.Fuzz.
	Fuzz *FuzzSpec
}

// ChildEnv is the environment of a child adapter started with env (nil:
// referee's own): env with the suite's Env added, or env itself when the
// suite adds nothing. A suite variable wins over referee's own environment
// but not over one the user set (user, the --env variables, already in
// env): that one is not added.
func (l *Loaded) ChildEnv(env, user []string) []string {
	add := slices.DeleteFunc(slices.Clone(l.Env), func(kv string) bool {
		return slices.ContainsFunc(user, func(u string) bool { return sameEnvKey(u, kv) })
	})
	if len(add) == 0 {
		return env
	}
	if env == nil {
		env = os.Environ()
	}
	return append(slices.Clip(env), add...)
}

// sameEnvKey reports whether two KEY=VALUE entries set the same variable
// (whatever the case on Windows, whose names ignore it).
func sameEnvKey(a, b string) bool {
	ka, _, _ := strings.Cut(a, "=")
	kb, _, _ := strings.Cut(b, "=")
	if runtime.GOOS == "windows" {
		return strings.EqualFold(ka, kb)
	}
	return ka == kb
}

// AfterRun is what a suite's After hook is given.
type AfterRun struct {
	Execution      *Execution
	Implementation string // "name version", as it said in its hello
	Full           bool   // every check of the suite was selected
}

// Spec says where the implementation under test is: a program, a URL, or
// the suite's built-in implementation (in Mode).
type Spec struct {
	Argv []string // a program, started without a shell
	URL  string
	// Handler is a Go implementation, run in-process (a Go project's own
	// tests); it stands in for the built-in one.
	Handler adapter.Handler
	Dir     string   // the program's working directory
	Env     []string // its environment; nil inherits referee's
	// UserEnv are the KEY=VALUE variables the user set (--env), already in
	// Env: they win over the suite's own (Loaded.ChildEnv).
	UserEnv []string
	Mode    string // a broken mode of the built-in implementation
	Stderr  io.Writer
	Trace   *adapter.Trace
	// Timeout is the per-call limit; 0 leaves the suite's own.
	Timeout time.Duration
	// Flags are the suite's own flags (a bearer token, ...).
	Flags FlagValues
}

// Command is a top-level command a suite adds to the CLI (an inspector,
// an exporter).
type Command struct {
	Name     string // `referee NAME`
	Use      string // the usage line after the name
	Summary  string
	Help     string
	Examples []string
	Flags    []Flag
	Sub      []Command // subcommands; a command with Sub has no Action
	// Args says how many positional arguments it takes: [min, max], max -1
	// for any.
	Args [2]int
	// Dash says the arguments must come after -- (a program to start).
	Dash   bool
	Action func(ctx context.Context, c *Invocation) error
}

// Invocation is one call of a suite command.
type Invocation struct {
	Args           []string
	Flags          FlagValues
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// Color reports whether output to w may use colour (a terminal, no
	// NO_COLOR).
	Color func(w io.Writer) bool
	// Verdict runs the suite against spec through referee's run pipeline,
	// writes its report to w in format ("text", "json", "junit",
	// "markdown", "html"; "" is text) and returns the report and the exit
	// status, as `referee run` would.
	Verdict func(ctx context.Context, spec Spec, w io.Writer, format string) (report any, exit int)
}

// ServeOptions say how to serve a suite's built-in implementation.
type ServeOptions struct {
	Mode   string
	Addr   string // "" for stdio
	Flags  FlagValues
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
}

// UsageError is a problem with how the user called referee: a bad flag
// value, a missing or conflicting option (exit status 2).
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// Usagef returns a UsageError.
func Usagef(format string, args ...any) error {
	return &UsageError{Err: fmt.Errorf(format, args...)}
}

// ModeNames lists the names of modes.
func ModeNames(modes []Mode) []string {
	names := make([]string, len(modes))
	for i, m := range modes {
		names[i] = m.Name
	}
	return names
}

// CheckMode returns nil when mode is "" or one of d's modes, else a usage
// error listing them.
func (d *Definition) CheckMode(mode string) error {
	if mode == "" {
		return nil
	}
	modes := d.ModeList()
	for _, m := range modes {
		if m.Name == mode {
			return nil
		}
	}
	return Usagef("%s: no broken mode %q (modes: %s)", d.Name, mode, strings.Join(ModeNames(modes), ", "))
}

// ModeList returns d's broken modes; none when it declares no Modes.
func (d *Definition) ModeList() []Mode {
	if d.Modes == nil {
		return nil
	}
	return d.Modes()
}

// ExitCode ends a command with that exit status once it has said all it
// had to; it prints nothing more.
type ExitCode int

func (e ExitCode) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

// ReferenceOf adapts a suite's typed reference constructor to
// Loaded.Reference; a failed call returns a nil Handler, never a typed nil.
func ReferenceOf[H adapter.Handler](reference func(mode string) (H, error)) func(mode string) (adapter.Handler, error) {
	return func(mode string) (adapter.Handler, error) {
		h, err := reference(mode)
		if err != nil {
			return nil, err
		}
		return h, nil
	}
}
