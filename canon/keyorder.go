package canon

import (
	"cmp"
	"unicode/utf8"
)

// compareUTF16 compares a and b as sequences of UTF-16 code units. WTF-8
// lone surrogates count as their single code unit.
//
// UTF-8 byte order is code point order, and that agrees with UTF-16 order
// except between a supplementary character (a surrogate pair in UTF-16, a
// 4-byte sequence in UTF-8) and either a character from U+E000 to U+FFFF or
// a lone surrogate. So the first differing byte decides, unless it is one
// of those cases.
func compareUTF16(a, b string) int {
	n := min(len(a), len(b))
	i := 0
	for i < n && a[i] == b[i] {
		i++
	}
	if i == n {
		return cmp.Compare(len(a), len(b))
	}
	ca, cb := a[i], b[i]
	if (ca >= 0xF0) == (cb >= 0xF0) {
		return cmp.Compare(ca, cb)
	}
	other, sign := cb, -1 // a holds the supplementary character
	if cb >= 0xF0 {
		other, sign = ca, 1
	}
	switch {
	case other >= 0xEE:
		// U+E000 to U+FFFF sorts after every surrogate pair.
		return sign
	case other == 0xED:
		return compareUnits(a[i:], b[i:])
	}
	return cmp.Compare(ca, cb)
}

// compareUnits compares a and b code unit by code unit.
func compareUnits(a, b string) int {
	ua, ub := utf16Units{s: a}, utf16Units{s: b}
	for {
		x, okx := ua.next()
		y, oky := ub.next()
		switch {
		case !okx && !oky:
			return 0
		case !okx:
			return -1
		case !oky:
			return 1
		case x != y:
			return cmp.Compare(x, y)
		}
	}
}

// utf16Units iterates over the UTF-16 code units of a WTF-8 string; a byte
// that is not UTF-8 counts as U+FFFD.
type utf16Units struct {
	s   string
	i   int
	low uint16
}

func (u *utf16Units) next() (uint16, bool) {
	if u.low != 0 {
		l := u.low
		u.low = 0
		return l, true
	}
	if u.i >= len(u.s) {
		return 0, false
	}
	if c := u.s[u.i]; c < utf8.RuneSelf {
		u.i++
		return uint16(c), true
	}
	if r, ok := wtf8Surrogate(u.s, u.i); ok {
		u.i += 3
		return uint16(r), true
	}
	r, size := utf8.DecodeRuneInString(u.s[u.i:])
	u.i += size
	if r >= 0x10000 {
		r -= 0x10000
		u.low = 0xDC00 | uint16(r&0x3FF)
		return 0xD800 | uint16(r>>10), true
	}
	return uint16(r), true
}
