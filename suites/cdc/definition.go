package cdc

import (
	"path/filepath"

	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/corpus"
)

// corpusDoc says what --corpus names.
const corpusDoc = "a checkout of the Cognitive Delivery Contract (1.0 or 1.2 layout), or its npm package (npm install @cognitive-delivery/contract, then --corpus node_modules/@cognitive-delivery/contract)"

// Definition declares the cdc suite to the engine.
var Definition = check.Definition{
	Name:    Name,
	Summary: "Cognitive Delivery Contract: schemas, rejection paths, canonical bytes, narrowing, signatures, lease rules",
	Help: `The cdc suite runs the Cognitive Delivery Contract's conformance corpus the
way its own runner does, in its seven steps, against an adapter offering the
contract's hooks as ops (validate, roundTrip, canonicalise, narrow, hash,
verify, rules). A check whose hook the adapter does not offer is not-checked,
never passed, with the upstream runner's NOT CHECKED line as its reason where
the runner prints one; a validate that reports no errors leaves the rejection
paths not-checked the same way.

Without --corpus it runs the published release it embeds, npm
@cognitive-delivery/contract 1.0.2, byte for byte (Apache-2.0; see
suites/cdc/corpus/PROVENANCE.json). --corpus DIR runs another: a checkout of
the contract, or its installed npm package (npm install
@cognitive-delivery/contract, then --corpus
node_modules/@cognitive-delivery/contract). Both the 1.0 and 1.2 layouts are
read. Adapters are told the corpus directory, as an absolute path, in the
hello's args ("corpus") and in the environment (CDC_CORPUS), to load the
schemas; the embedded release is written once to a directory under the
user's cache for them. --format native prints upstream's report, of
upstream's corpus only.

Beside upstream's corpus runs referee's supplement (cdc/supplement/...):
cases for rules upstream's fixtures leave open, each derived from the SPEC
or a schema, each where the chosen corpus's fixtures, schemas and SPEC hold
what it rests on: patterns read as ECMA-262 (a final line feed, non-ASCII
digits, Unicode white space), lengths in code points, integers written
200.0, unknown members deep in several shapes, an upper-case signature,
wildcards wider than the parent's grant, a host wildcard that reaches more
than one label, numbers at the exponent boundaries. Where a rejection is
reported (<case>/path) is checked in the 1.2 layout only: the 1.0 SPEC has
no such rule. --no-supplement leaves it out.

Levels: every check is a must but three kinds. A canonical vector holding a
lone surrogate is a may in the 1.2 layout (RFC 8785, which governs there,
refuses it; the vector escapes it), and so is a narrowing vector whose grant
drops a declared allow.tool_args (SPEC 1.2 §4.4: an issuer MAY omit it);
accepting an integer written with a fraction (200.0) is a should.

canonicalise, hash, verify and narrow send each JSON value twice, as the
value and as its exact text (value_text, lease_text, declared_text,
parent_text), for an implementation whose JSON reader loses a lone
surrogate or a number's lexeme.`,
	Examples: []string{
		"referee run cdc",
		"referee run cdc --corpus ../shared/corpora/cdc",
		"referee run cdc --corpus ../shared/corpora/cdc --format native -- node examples/adapters/node/cdc.mjs",
		"referee run cdc --corpus ../shared/corpora/cdc --mode accept-all --run 'cdc/invalid/**'",
		"referee run cdc --mode python-re --run 'cdc/supplement/**'",
		"referee run cdc --corpus ../shared/corpora/cdc --no-supplement",
		"referee export jsts --corpus ../shared/corpora/cdc --check",
	},
	Flags: []check.Flag{{
		Name:  FlagNoSupplement,
		Kind:  check.FlagBool,
		Usage: "leave out referee's supplement (cdc/supplement/...) and run upstream's corpus alone",
		// A repro runs one check by ID, and no check changes with the flag:
		// it only leaves the supplement's out.
	}},
	Modes: func() []check.Mode {
		return check.ModesOf(Modes, func(m *Mode) (string, string) { return m.Name, m.Doc })
	},
	Corpus:   corpusDoc,
	Embedded: "the published release npm @cognitive-delivery/contract 1.0.2, byte for byte, with its licence and provenance (suites/cdc/corpus)",
	Load:     load,
	Ops:      ops,
	Fuzz:     &fuzzSpec,
	Commands: exportCommands,
}

// load reads the contract corpus in o.Corpus and builds the suite, with the
// built-in implementation and upstream's report bound to that corpus.
func load(o check.LoadOptions) (*check.Loaded, error) {
	var c *corpus.Corpus
	var abs string
	var err error
	switch {
	case o.FS != nil:
		// A corpus in memory has no directory upstream's runner could read.
		c, err = o.OpenCorpus(nil)
	case o.Corpus == "":
		if c, err = Embedded(); err != nil {
			return nil, err
		}
		abs, err = materialise(c)
	default:
		if c, err = corpus.OpenDir(o.Corpus, o.MaxFileSize); err != nil {
			return nil, err
		}
		abs, err = filepath.Abs(o.Corpus)
	}
	if err != nil {
		return nil, err
	}
	cp, err := ReadCorpus(c, abs)
	if err != nil {
		return nil, err
	}
	checks := cp.Checks()
	// A corpus without schemas takes no supplement case (Applicable), nor
	// does one referee fuzz wrote: its checks are those of its vectors.
	if !o.Flags.Bool(FlagNoSupplement) && len(cp.Shapes) > 0 && !cp.Found {
		sup, err := EmbeddedSupplement()
		if err != nil {
			return nil, err
		}
		checks = append(checks, cp.SupplementChecks(sup)...)
	}
	l := &check.Loaded{
		Suite:     &check.Suite{Name: Name, Version: Version, Corpus: c.Name, CorpusDigest: c.Digest, Checks: checks},
		Reference: check.ReferenceOf(func(mode string) (*Handler, error) { return Reference(cp, mode) }),
		Native:    func(run *check.Execution, _ check.Spec) any { return cp.Native(run) },
		Hello:     map[string]string{"corpus": abs},
		Env:       []string{"CDC_CORPUS=" + abs},
	}
	if o.FS == nil {
		// The fuzz targets draw on this corpus: its schemas, fixtures, test
		// key and vectors (read when the first input is made).
		l.Fuzz = fuzzSpecOf(newFuzzMaterial(cp))
	}
	return l, nil
}
