package fuzz

import (
	"bytes"
	"context"
	"crypto/sha256"
	"iter"
	"strings"

	"github.com/refereehq/referee/canon"
	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/jsongen"
)

// shrinkBatch is how many candidates minimize hands try at once.
const shrinkBatch = 32

// minimize returns the smallest input it finds, starting from in, that try
// accepts. Candidates come from in's JSON tree (a leading byte-order mark
// kept, or dropped), then, unless kind is check.FuzzValue, from its
// characters (text) or bytes; try gets them in batches and says which it
// accepts, and the smallest of those is taken. Each input taken is smaller
// than the one before, so it ends; at most budget candidates are tried.
func minimize(ctx context.Context, in []byte, kind check.FuzzInput, budget int, try func([][]byte) []bool) []byte {
	cur := in
	rejected := map[[32]byte]bool{}
	for budget > 0 && ctx.Err() == nil {
		var sources []iter.Seq[[]byte]
		bom := []byte(nil)
		if kind != check.FuzzValue && bytes.HasPrefix(cur, []byte("\xef\xbb\xbf")) {
			bom = cur[:3]
			sources = append(sources, func(yield func([]byte) bool) { yield(cur[3:]) })
		}
		if n, ok := jsongen.ParseTree(cur[len(bom):]); ok {
			sources = append(sources, prefixed(bom, treeCandidates(n)))
		}
		if kind != check.FuzzValue {
			sources = append(sources, unitCandidates(cur, kind == check.FuzzText))
		}
		improved := false
		for _, src := range sources {
			var batch [][]byte
			inBatch := map[[32]byte]bool{}
			flush := func() {
				if len(batch) == 0 {
					return
				}
				budget -= len(batch)
				best := -1
				for i, ok := range try(batch) {
					switch {
					case !ok:
						rejected[sha256.Sum256(batch[i])] = true
					case best < 0 || smaller(batch[i], batch[best]):
						best = i
					}
				}
				if best >= 0 {
					cur, improved = batch[best], true
				}
				batch, inBatch = nil, map[[32]byte]bool{}
			}
			for cand := range src {
				if budget <= 0 || ctx.Err() != nil || improved {
					break
				}
				sum := sha256.Sum256(cand)
				if !smaller(cand, cur) || rejected[sum] || inBatch[sum] {
					continue
				}
				inBatch[sum] = true
				if batch = append(batch, cand); len(batch) == shrinkBatch {
					flush()
				}
			}
			if !improved && budget > 0 && ctx.Err() == nil {
				flush()
			}
			if improved {
				break
			}
		}
		if !improved {
			break
		}
	}
	return cur
}

// prefixed yields each candidate of seq after prefix.
func prefixed(prefix []byte, seq iter.Seq[[]byte]) iter.Seq[[]byte] {
	if len(prefix) == 0 {
		return seq
	}
	return func(yield func([]byte) bool) {
		for c := range seq {
			if !yield(append(append([]byte{}, prefix...), c...)) {
				return
			}
		}
	}
}

// smaller orders inputs for shrinking: shorter first, then bytewise. Each
// accepted candidate is smaller than the last, so shrinking ends.
func smaller(a, b []byte) bool {
	if len(a) != len(b) {
		return len(a) < len(b)
	}
	return string(a) < string(b)
}

// located is a node of a tree with the path of member or element indexes
// that reaches it from the root.
type located struct {
	n    *jsongen.Node
	path []int
}

// maxShrinkNodes bounds how many nodes of a tree the shrinker edits.
const maxShrinkNodes = 4000

// nodes lists root's nodes in preorder, at most maxShrinkNodes of them.
func nodes(root *jsongen.Node) []located {
	var out []located
	stack := []located{{root, nil}}
	for len(stack) > 0 && len(out) < maxShrinkNodes {
		l := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		out = append(out, l)
		kids := l.n.Elems
		if l.n.Kind == canon.Object {
			kids = l.n.Vals
		}
		for i := len(kids) - 1; i >= 0; i-- {
			stack = append(stack, located{kids[i], append(append([]int(nil), l.path...), i)})
		}
	}
	return out
}

// at returns the node at path in root.
func at(root *jsongen.Node, path []int) *jsongen.Node {
	n := root
	for _, i := range path {
		if n.Kind == canon.Object {
			n = n.Vals[i]
		} else {
			n = n.Elems[i]
		}
	}
	return n
}

// replaced returns the text of a copy of root in which edit has replaced
// the node at path (edit gets that node of the copy).
func replaced(root *jsongen.Node, path []int, edit func(n *jsongen.Node) *jsongen.Node) []byte {
	c := root.Clone()
	if len(path) == 0 {
		return edit(c).Encode()
	}
	parent := at(c, path[:len(path)-1])
	i := path[len(path)-1]
	if parent.Kind == canon.Object {
		parent.Vals[i] = edit(parent.Vals[i])
	} else {
		parent.Elems[i] = edit(parent.Elems[i])
	}
	return c.Encode()
}

// children returns a container's elements or member values.
func children(n *jsongen.Node) []*jsongen.Node {
	if n.Kind == canon.Object {
		return n.Vals
	}
	return n.Elems
}

// treeCandidates yields smaller versions of root, the biggest cuts first:
// its text without whitespace; chunks of members and elements removed,
// halves first; each container replaced by 0, by one of its children or by
// a descendant further down a chain; numbers, strings and names simplified.
func treeCandidates(root *jsongen.Node) iter.Seq[[]byte] {
	return func(yield func([]byte) bool) {
		if !yield(root.Encode()) {
			return
		}
		ns := nodes(root)
		// Remove chunks of members and elements, halves first.
		for _, l := range ns {
			k := len(children(l.n))
			for size := max(1, k/2); size >= 1; size /= 2 {
				for from := 0; from < k; from += size {
					to := min(k, from+size)
					cand := replaced(root, l.path, func(n *jsongen.Node) *jsongen.Node {
						if n.Kind == canon.Object {
							n.Keys = append(n.Keys[:from:from], n.Keys[to:]...)
							n.Vals = append(n.Vals[:from:from], n.Vals[to:]...)
						} else {
							n.Elems = append(n.Elems[:from:from], n.Elems[to:]...)
						}
						return n
					})
					if !yield(cand) {
						return
					}
				}
				if size == 1 {
					break
				}
			}
		}
		// Hoist: a container replaced by a child, or by the descendant
		// 2^k levels down its first path (long chains shrink in log steps).
		for _, l := range ns {
			kids := children(l.n)
			if l.n.Kind == canon.Array || l.n.Kind == canon.Object {
				if !yield(replaced(root, l.path, func(*jsongen.Node) *jsongen.Node { return jsongen.Num("0") })) {
					return
				}
			}
			for _, k := range kids {
				if !yield(replaced(root, l.path, func(*jsongen.Node) *jsongen.Node { return k.Clone() })) {
					return
				}
			}
			if len(kids) == 0 {
				continue
			}
			chain := 0
			for d := l.n; len(children(d)) > 0; d = children(d)[0] {
				chain++
			}
			for step := chain / 2; step >= 2; step /= 2 {
				d := l.n
				for range step {
					d = children(d)[0]
				}
				if !yield(replaced(root, l.path, func(*jsongen.Node) *jsongen.Node { return d.Clone() })) {
					return
				}
			}
		}
		// Simplify scalars and names.
		for _, l := range ns {
			switch l.n.Kind {
			case canon.Number:
				for _, lex := range lexemeCuts(l.n.Raw, []string{"0", "1"}) {
					if !yield(replaced(root, l.path, func(n *jsongen.Node) *jsongen.Node { n.Raw = lex; return n })) {
						return
					}
				}
			case canon.String:
				for _, lex := range stringCuts(l.n.Raw) {
					if !yield(replaced(root, l.path, func(n *jsongen.Node) *jsongen.Node { n.Raw = lex; return n })) {
						return
					}
				}
			case canon.Object:
				for i, key := range l.n.Keys {
					for _, lex := range stringCuts(key) {
						if !yield(replaced(root, l.path, func(n *jsongen.Node) *jsongen.Node { n.Keys[i] = lex; return n })) {
							return
						}
					}
				}
			}
		}
	}
}

// lexemeCuts returns simpler number lexemes: the fixed ones, then lex with
// one character removed.
func lexemeCuts(lex string, fixed []string) []string {
	out := append([]string(nil), fixed...)
	if len(lex) > 40 {
		out = append(out, lex[:len(lex)/2])
	}
	for i := range min(len(lex), 40) {
		out = append(out, lex[:i]+lex[i+1:])
	}
	return out
}

// stringUnits splits a string lexeme's contents (quotes excluded) into
// characters, an escape sequence counting as one.
func stringUnits(lex string) []string {
	body := lex[1 : len(lex)-1]
	var units []string
	for i := 0; i < len(body); {
		n := 1
		switch {
		case body[i] == '\\' && i+1 < len(body) && body[i+1] == 'u':
			n = min(6, len(body)-i)
		case body[i] == '\\':
			n = min(2, len(body)-i)
		case body[i] >= 0x80:
			for n < 4 && i+n < len(body) && body[i+n]&0xc0 == 0x80 {
				n++
			}
		}
		units = append(units, body[i:i+n])
		i += n
	}
	return units
}

// stringCuts returns smaller string lexemes: empty, then lex with chunks
// of characters removed, halves first.
func stringCuts(lex string) []string {
	if len(lex) < 2 {
		return nil
	}
	units := stringUnits(lex)
	out := []string{`""`}
	for _, cut := range unitCuts(units) {
		out = append(out, `"`+strings.Join(cut, "")+`"`)
	}
	return out
}

// unitCuts returns units with one chunk removed, for chunks of halves,
// quarters, ... single units; of more than 64 units, chunks of a
// sixteenth at the least (they get finer as the units get fewer).
func unitCuts(units []string) [][]string {
	var out [][]string
	k := len(units)
	least := 1
	if k > 64 {
		least = k / 16
	}
	for size := max(1, k/2); size >= least; size /= 2 {
		for from := 0; from < k; from += size {
			to := min(k, from+size)
			out = append(out, append(append([]string(nil), units[:from]...), units[to:]...))
		}
		if size == 1 {
			break
		}
	}
	return out
}

// unitCandidates yields in with chunks of units removed (delta debugging
// over the bytes, or over the characters of text), halves first.
func unitCandidates(in []byte, text bool) iter.Seq[[]byte] {
	return func(yield func([]byte) bool) {
		var units []string
		if text {
			for _, c := range string(in) {
				units = append(units, string(c))
			}
		} else {
			for _, c := range in {
				units = append(units, string([]byte{c}))
			}
		}
		for _, cut := range unitCuts(units) {
			if !yield([]byte(strings.Join(cut, ""))) {
				return
			}
		}
	}
}
