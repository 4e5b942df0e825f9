package jcs

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/refereehq/referee/canon"
)

func zzInputs() [][]byte {
	var ins [][]byte
	for i := range 2000 {
		r := rand.New(rand.NewPCG(1, uint64(i)))
		ins = append(ins, fuzzJSON.Value(r))
	}
	return ins
}

func BenchmarkZZ(b *testing.B) {
	ins := zzInputs()
	total := 0
	for _, in := range ins {
		total += len(in)
	}
	b.Logf("mean %d", total/len(ins))
	b.Run("gen", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			r := rand.New(rand.NewPCG(1, uint64(i%2000)))
			fuzzJSON.Value(r)
		}
	})
	b.Run("canon", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			canon.JCS.Canonicalize(ins[i%2000], canon.ReadOptions{})
		}
	})
	b.Run("parse", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			canon.Parse(ins[i%2000], canon.ReadOptions{})
		}
	})
	b.Run("vector", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			fuzzVector("fuzz-000000000000", ins[i%2000])
		}
	})
	b.Run("handle", func(b *testing.B) {
		args := make([][]byte, 2000)
		for i, in := range ins {
			args[i], _ = canon.JSONStringify.Marshal(map[string]string{"value_text": string(in)})
		}
		for i := 0; b.Loop(); i++ {
			fuzzReference.Handle(context.Background(), Op, args[i%2000])
		}
	})
	b.Run("doc", func(b *testing.B) {
		var es []any
		for _, in := range ins[:200] {
			e, _ := fuzzVector("fuzz-000000000000", in)
			es = append(es, e)
		}
		for i := 0; b.Loop(); i++ {
			fuzzDoc(es[i%200 : i%200+1])
		}
	})
}
