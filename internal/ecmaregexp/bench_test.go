package ecmaregexp

import (
	"testing"

	"github.com/dlclark/regexp2"
)

// BenchmarkCorpus compiles every pattern of the CDC corpora (the shared
// ones too when REFEREE_SHARED is set) and matches each against its inputs
// (corpusPatterns), with this engine and with regexp2 as the validator
// used it, so that `go test -bench Corpus` prints the two side by side:
// compile is one op for all the patterns, match one op for all the
// pattern and string pairs.
func BenchmarkCorpus(b *testing.B) {
	cases := corpusPatterns(b)
	pairs := 0
	for _, cp := range cases {
		pairs += len(cp.inputs)
	}
	b.Logf("%d patterns, %d pattern and string pairs", len(cases), pairs)
	mine := make([]*Regexp, len(cases))
	theirs := make([]*regexp2.Regexp, len(cases))
	runes := make([][][]rune, len(cases))
	for i, cp := range cases {
		var err error
		if mine[i], err = Compile(cp.pattern); err != nil {
			b.Fatal(err)
		}
		if theirs[i], err = regexp2.Compile(ecmaDot(cp.pattern), regexp2.ECMAScript); err != nil {
			b.Fatal(err)
		}
		for _, s := range cp.inputs {
			runes[i] = append(runes[i], codePoints(s))
		}
	}
	b.Run("compile/regexp2", func(b *testing.B) {
		for b.Loop() {
			for _, cp := range cases {
				if _, err := regexp2.Compile(ecmaDot(cp.pattern), regexp2.ECMAScript); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("compile/ecmaregexp", func(b *testing.B) {
		for b.Loop() {
			for _, cp := range cases {
				if _, err := Compile(cp.pattern); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("match/regexp2", func(b *testing.B) {
		for b.Loop() {
			for i, re := range theirs {
				for _, in := range runes[i] {
					if _, err := re.MatchRunes(in); err != nil {
						b.Fatal(err)
					}
				}
			}
		}
	})
	b.Run("match/ecmaregexp", func(b *testing.B) {
		for b.Loop() {
			for i, re := range mine {
				for _, in := range runes[i] {
					if _, err := re.MatchRunes(in); err != nil {
						b.Fatal(err)
					}
				}
			}
		}
	})
}
