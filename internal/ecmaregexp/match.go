package ecmaregexp

import (
	"fmt"
	"slices"
)

// matcher runs a program against one string: a backtracking search whose
// choices and the values they overwrite are kept on an explicit stack, so
// that failing goes back to the latest choice with every capture and
// register as it was then.
type matcher struct {
	prog      []inst
	in        []rune
	caps      []int // group g captured in[caps[2g]:caps[2g+1]]; -1 when it did not take part
	regs      []int // per loop: iterations done, where the current one started
	stack     []entry
	snapshots [][]int // captures before a lookaround that matched
	steps     int
	limit     int
	err       error // the budget is spent: every attempt now fails
}

// entry is one thing to undo, or one choice to come back to, on failure.
type entry struct {
	kind entryKind
	pc   int32
	a, b int32 // positions fit: MatchRunes takes fewer than maxCount code points
}

type entryKind uint8

const (
	eChoice   entryKind = iota // go on at pc, position a
	eCap                       // caps[a] = b
	eReg                       // regs[a] = b
	eCaps                      // caps = snapshots[a]
	eGiveBack                  // the greedy iRepeatOne at pc ended at a after b code points: give one back
	eTakeMore                  // the lazy iRepeatOne at pc ended at a after b code points: take one more
)

// match reports whether the program matches somewhere in in, doing at most
// limit steps, and the steps it did.
func (re *Regexp) match(in []rune, limit int) (bool, int, error) {
	if len(in) >= maxCount {
		return false, 0, fmt.Errorf("%s: a string of %d code points is too long to match", quotePattern(re.src), len(in))
	}
	ncaps := 2 * (re.groups + 1)
	store := make([]int, ncaps+re.regs)
	m := &matcher{prog: re.prog, in: in, caps: store[:ncaps], regs: store[ncaps:], limit: limit}
	for i := range m.caps {
		m.caps[i] = -1
	}
	last := len(in)
	if re.anchored {
		last = 0
	}
	for start := 0; start <= last; start++ {
		found := m.run(0, start)
		if m.err != nil {
			return false, m.steps, fmt.Errorf("%s: %w", quotePattern(re.src), m.err)
		}
		if found {
			return true, m.steps, nil
		}
	}
	return false, m.steps, nil
}

// tick counts n steps, and reports whether the budget allows them.
func (m *matcher) tick(n int) bool {
	if m.steps += n; m.steps > m.limit && m.err == nil {
		m.err = fmt.Errorf("%w: more than %d steps", ErrBudget, m.limit)
	}
	return m.err == nil
}

// push saves e, and reports whether the budget allows it.
func (m *matcher) push(e entry) bool {
	if len(m.stack) >= MaxSavedStates {
		if m.err == nil {
			m.err = fmt.Errorf("%w: more than %d saved states", ErrBudget, MaxSavedStates)
		}
		return false
	}
	m.stack = append(m.stack, e)
	return true
}

func (m *matcher) setCap(i, v int) bool {
	if !m.push(entry{kind: eCap, a: int32(i), b: int32(m.caps[i])}) {
		return false
	}
	m.caps[i] = v
	return true
}

func (m *matcher) setReg(i, v int) bool {
	if !m.push(entry{kind: eReg, a: int32(i), b: int32(m.regs[i])}) {
		return false
	}
	m.regs[i] = v
	return true
}

// run reports whether the program from pc matches at pos. It leaves what
// it saved on the stack when it matches, and nothing when it does not.
func (m *matcher) run(pc, pos int) bool {
	base := len(m.stack)
	for {
		in := &m.prog[pc]
		ok := m.tick(1)
		switch {
		case !ok:
		case in.op == iMatch:
			return true
		case in.op == iChar || in.op == iSet:
			pos, ok = m.one(in, pos)
			pc++
		case in.op == iAssert:
			ok = m.assert(in.assert, pos)
			pc++
		case in.op == iSplit:
			ok = m.push(entry{kind: eChoice, pc: int32(in.y), a: int32(pos)})
			pc = in.x
		case in.op == iJmp:
			pc = in.x
		case in.op == iSave:
			ok = m.setCap(in.n, pos)
			pc++
		case in.op == iBackref:
			pos, ok = m.backref(in, pos)
			pc++
		case in.op == iLook:
			ok = m.look(in, pc, pos)
			pc = in.x
		case in.op == iRepeatOne:
			pos, ok = m.repeatOne(in, pc, pos)
			pc++
		case in.op == iRepeatStart:
			ok = m.setReg(in.n, 0)
			pc++
		case in.op == iRepeatCheck:
			switch done := m.regs[in.n]; {
			case done < in.min:
				pc++
			case done >= in.max:
				pc = in.x
			case in.greedy:
				ok = m.push(entry{kind: eChoice, pc: int32(in.x), a: int32(pos)})
				pc++
			default:
				ok = m.push(entry{kind: eChoice, pc: int32(pc + 1), a: int32(pos)})
				pc = in.x
			}
		case in.op == iIterStart:
			ok = m.setReg(in.n+1, pos)
			for g := 2 * in.lo; ok && g < 2*in.hi; g++ {
				ok = m.setCap(g, -1)
			}
			pc++
		case in.op == iIterEnd:
			// ECMA-262's RepeatMatcher: once min is reached, an iteration
			// that matched the empty string fails.
			done := m.regs[in.n]
			ok = !(pos == m.regs[in.n+1] && done >= in.min) && m.setReg(in.n, done+1)
			pc = in.x
		}
		if !ok {
			if pc, pos, ok = m.backtrack(base); !ok {
				return false
			}
		}
	}
}

// backtrack undoes what was saved above base down to the latest choice,
// and returns where to go on from it.
func (m *matcher) backtrack(base int) (pc, pos int, ok bool) {
	for len(m.stack) > base {
		e := m.stack[len(m.stack)-1]
		m.stack = m.stack[:len(m.stack)-1]
		pc, a, b := int(e.pc), int(e.a), int(e.b)
		switch e.kind {
		case eCap:
			m.caps[a] = b
		case eReg:
			m.regs[a] = b
		case eCaps:
			copy(m.caps, m.snapshots[a])
			m.snapshots = m.snapshots[:a]
		case eChoice:
			if m.err == nil {
				return pc, a, true
			}
		case eGiveBack:
			in := &m.prog[pc]
			pos, count := a+1, b-1
			if !in.back {
				pos = a - 1
			}
			if m.err == nil && (count == in.min || m.push(entry{kind: eGiveBack, pc: e.pc, a: int32(pos), b: int32(count)})) {
				return pc + 1, pos, true
			}
		case eTakeMore:
			in := &m.prog[pc]
			pos, ok := m.one(in, a)
			if ok && m.tick(1) && (b+1 == in.max || m.push(entry{kind: eTakeMore, pc: e.pc, a: int32(pos), b: int32(b + 1)})) {
				return pc + 1, pos, true
			}
		}
	}
	return 0, 0, false
}

// one takes the code point an iChar, iSet or iRepeatOne stands for at pos,
// and returns the position after it.
func (m *matcher) one(in *inst, pos int) (int, bool) {
	i, next := pos, pos+1
	if in.back {
		i, next = pos-1, pos-1
	}
	if i < 0 || i >= len(m.in) {
		return pos, false
	}
	if r := m.in[i]; in.set == nil && r != in.r || in.set != nil && !in.set.has(r) {
		return pos, false
	}
	return next, true
}

func (m *matcher) assert(a op, pos int) bool {
	switch a {
	case opBegin:
		return pos == 0
	case opEnd:
		return pos == len(m.in)
	case opWordBoundary:
		return m.isWord(pos-1) != m.isWord(pos)
	}
	return m.isWord(pos-1) == m.isWord(pos) // opNotWordBoundary
}

// isWord reports whether in[i] is a \w code point.
func (m *matcher) isWord(i int) bool {
	if i < 0 || i >= len(m.in) {
		return false
	}
	r := m.in[i]
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_'
}

// backref takes again what group in.n captured (nothing, if it did not
// take part).
func (m *matcher) backref(in *inst, pos int) (int, bool) {
	s, e := m.caps[2*in.n], m.caps[2*in.n+1]
	if s < 0 || e < 0 {
		return pos, true
	}
	from := pos
	if in.back {
		from = pos - (e - s)
	}
	if from < 0 || from+e-s > len(m.in) || !m.tick(e-s) || !slices.Equal(m.in[from:from+e-s], m.in[s:e]) {
		return pos, false
	}
	if in.back {
		return from, true
	}
	return pos + e - s, true
}

// look runs a lookaround's body once (ECMA-262 does not backtrack into
// one) and reports whether it went as wanted. A lookahead that matched
// keeps its captures, to be restored on failure; a negated one keeps none.
func (m *matcher) look(in *inst, pc, pos int) bool {
	mark, snap := len(m.stack), len(m.snapshots)
	m.snapshots = append(m.snapshots, slices.Clone(m.caps))
	found := m.run(pc+1, pos)
	m.stack = m.stack[:mark]
	m.snapshots = m.snapshots[:snap+1]
	switch {
	case m.err != nil:
		return false
	case in.neg:
		copy(m.caps, m.snapshots[snap])
		m.snapshots = m.snapshots[:snap]
		return !found
	case !found:
		m.snapshots = m.snapshots[:snap]
		return false
	}
	return m.push(entry{kind: eCaps, a: int32(snap)})
}

// repeatOne takes as many code points as it may (greedy) or as few as it
// must (lazy), and saves how to give one back or take one more.
func (m *matcher) repeatOne(in *inst, pc, pos int) (int, bool) {
	count, end := 0, pos
	for count < in.max && (in.greedy || count < in.min) {
		next, ok := m.one(in, end)
		if !ok {
			break
		}
		count, end = count+1, next
	}
	if !m.tick(count) || count < in.min {
		return pos, false
	}
	switch {
	case in.greedy && count > in.min:
		return end, m.push(entry{kind: eGiveBack, pc: int32(pc), a: int32(end), b: int32(count)})
	case !in.greedy && count < in.max:
		return end, m.push(entry{kind: eTakeMore, pc: int32(pc), a: int32(end), b: int32(count)})
	}
	return end, true
}

// anchored reports whether every match of n starts at the string's start.
func anchored(n *node) bool {
	switch n.op {
	case opBegin:
		return true
	case opConcat, opGroup:
		return anchored(n.subs[0])
	case opAlt:
		for _, sub := range n.subs {
			if !anchored(sub) {
				return false
			}
		}
		return true
	}
	return false
}
