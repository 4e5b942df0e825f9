package ecmaregexp

// instOp is what an instruction of a program does.
type instOp uint8

const (
	iChar        instOp = iota // take the code point r
	iSet                       // take a code point of set
	iAssert                    // test the assertion assert at the position
	iSplit                     // go on at x; on failure, at y
	iJmp                       // go on at x
	iSave                      // caps[n] = the position
	iBackref                   // take what group n captured
	iLook                      // run the lookaround body at pc+1 (ending in iMatch), then go on at x
	iMatch                     // the (sub)program matched
	iRepeatOne                 // take r or a code point of set, min to max times
	iRepeatStart               // regs[n] = 0 iterations
	iRepeatCheck               // after regs[n] iterations: another (at pc+1) or out (at x)
	iIterStart                 // regs[n+1] = the position; clear groups lo..hi-1
	iIterEnd                   // fail an empty iteration past min; regs[n]++; go on at x
)

// inst is one instruction. back makes a taking instruction take the code
// point before the position (inside a lookbehind).
type inst struct {
	op       instOp
	back     bool
	greedy   bool
	neg      bool
	assert   op
	r        rune
	set      *charSet
	x, y     int
	n        int
	min, max int
	lo, hi   int
}

// program turns a parsed pattern into instructions, and says how many
// registers its repetitions need.
func program(root *node) ([]inst, int) {
	c := &progBuilder{}
	c.emit(root)
	c.add(inst{op: iMatch})
	return c.prog, c.regs
}

type progBuilder struct {
	prog []inst
	regs int
}

func (c *progBuilder) add(in inst) int {
	c.prog = append(c.prog, in)
	return len(c.prog) - 1
}

func (c *progBuilder) emit(n *node) {
	switch n.op {
	case opEmpty:
	case opChar:
		c.add(inst{op: iChar, r: n.r, back: n.back})
	case opSet:
		c.add(inst{op: iSet, set: n.set, back: n.back})
	case opBegin, opEnd, opWordBoundary, opNotWordBoundary:
		c.add(inst{op: iAssert, assert: n.op})
	case opConcat:
		for _, sub := range n.subs {
			c.emit(sub)
		}
	case opAlt:
		var exits []int
		for i, sub := range n.subs {
			if i == len(n.subs)-1 {
				c.emit(sub)
				break
			}
			split := c.add(inst{op: iSplit, x: len(c.prog) + 1})
			c.emit(sub)
			exits = append(exits, c.add(inst{op: iJmp}))
			c.prog[split].y = len(c.prog)
		}
		for _, j := range exits {
			c.prog[j].x = len(c.prog)
		}
	case opGroup:
		start, end := 2*n.index, 2*n.index+1
		if n.back { // matched right to left: the end is reached first
			start, end = end, start
		}
		c.add(inst{op: iSave, n: start})
		c.emit(n.subs[0])
		c.add(inst{op: iSave, n: end})
	case opBackref:
		c.add(inst{op: iBackref, n: n.index, back: n.back})
	case opLook:
		look := c.add(inst{op: iLook, neg: n.neg})
		c.emit(n.subs[0])
		c.add(inst{op: iMatch})
		c.prog[look].x = len(c.prog)
	case opRepeat:
		c.repeat(n)
	}
}

// repeat emits a quantified atom: a single code point as one instruction,
// anything else as a loop over registers holding its iteration count and
// where the current iteration started.
func (c *progBuilder) repeat(n *node) {
	sub := n.subs[0]
	max := n.max
	if max < 0 {
		max = maxCount
	}
	switch {
	case max == 0:
	case sub.op == opChar || sub.op == opSet:
		c.add(inst{op: iRepeatOne, r: sub.r, set: sub.set, back: sub.back, min: n.min, max: max, greedy: n.greedy})
	case n.min == 1 && max == 1:
		c.emit(sub)
	default:
		k := c.regs
		c.regs += 2
		c.add(inst{op: iRepeatStart, n: k})
		check := c.add(inst{op: iRepeatCheck, n: k, min: n.min, max: max, greedy: n.greedy})
		c.add(inst{op: iIterStart, n: k, lo: n.capLo, hi: n.capHi})
		c.emit(sub)
		c.add(inst{op: iIterEnd, n: k, min: n.min, x: check})
		c.prog[check].x = len(c.prog)
	}
}
