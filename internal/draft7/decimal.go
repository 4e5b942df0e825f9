package draft7

import (
	"math/big"
	"strconv"
	"strings"
)

// decimal is a JSON number held exactly: digits × 10^exp, with digits an
// integer without leading or trailing zeros ("" for zero).
type decimal struct {
	neg    bool
	digits string
	exp    int64
}

// expLimit bounds exponents: a larger one saturates (numbers beyond
// 10^(±1e15) are compared by sign and saturated magnitude only).
const expLimit = 1_000_000_000_000_000

// parseDecimal reads a JSON number lexeme; ok is false when it is not one.
func parseDecimal(lex string) (d decimal, ok bool) {
	s := lex
	if strings.HasPrefix(s, "-") {
		d.neg = true
		s = s[1:]
	}
	i := 0
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	if i == 0 || (i > 1 && s[0] == '0') {
		return decimal{}, false
	}
	intPart, s := s[:i], s[i:]
	frac := ""
	if strings.HasPrefix(s, ".") {
		j := 1
		for j < len(s) && isDigit(s[j]) {
			j++
		}
		if j == 1 {
			return decimal{}, false
		}
		frac, s = s[1:j], s[j:]
	}
	var exp int64
	if s != "" {
		if s[0] != 'e' && s[0] != 'E' {
			return decimal{}, false
		}
		s = s[1:]
		eneg := false
		if s != "" && (s[0] == '+' || s[0] == '-') {
			eneg = s[0] == '-'
			s = s[1:]
		}
		if s == "" {
			return decimal{}, false
		}
		for k := 0; k < len(s); k++ {
			if !isDigit(s[k]) {
				return decimal{}, false
			}
			if exp < expLimit {
				exp = exp*10 + int64(s[k]-'0')
			}
		}
		exp = min(exp, expLimit)
		if eneg {
			exp = -exp
		}
	}
	digits := strings.TrimLeft(intPart+frac, "0")
	exp -= int64(len(frac))
	trimmed := strings.TrimRight(digits, "0")
	exp += int64(len(digits) - len(trimmed))
	d.digits = trimmed
	d.exp = exp
	if d.digits == "" {
		d.neg, d.exp = false, 0
	}
	return d, true
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// isInt reports whether d has no fractional part.
func (d decimal) isInt() bool { return d.digits == "" || d.exp >= 0 }

// cmp compares a and b by value: -1, 0 or +1.
func (a decimal) cmp(b decimal) int {
	sa, sb := a.sign(), b.sign()
	switch {
	case sa != sb:
		if sa < sb {
			return -1
		}
		return 1
	case sa == 0:
		return 0
	}
	m := a.cmpAbs(b)
	if sa < 0 {
		return -m
	}
	return m
}

func (d decimal) sign() int {
	switch {
	case d.digits == "":
		return 0
	case d.neg:
		return -1
	}
	return 1
}

// cmpAbs compares the magnitudes of two non-zero decimals.
func (a decimal) cmpAbs(b decimal) int {
	// The leading digit's power of ten decides first.
	ta, tb := a.exp+int64(len(a.digits)), b.exp+int64(len(b.digits))
	if ta != tb {
		if ta < tb {
			return -1
		}
		return 1
	}
	// Same magnitude: compare digit by digit; neither has trailing zeros,
	// so with equal prefixes the longer one is larger.
	return strings.Compare(a.digits, b.digits)
}

// multipleOf reports whether a / m is an integer; m is positive.
func (a decimal) multipleOf(m decimal) bool {
	if a.digits == "" {
		return true
	}
	// a/m = (A/M) × 10^k. With k < 0 it would take A divisible by 10,
	// which a coefficient without trailing zeros is not.
	k := a.exp - m.exp
	if k < 0 {
		return false
	}
	A, _ := new(big.Int).SetString(a.digits, 10)
	M, _ := new(big.Int).SetString(m.digits, 10)
	r := new(big.Int).Exp(big.NewInt(10), big.NewInt(k), M)
	r.Mul(r, A)
	return r.Mod(r, M).Sign() == 0
}

// key is d in a form equal for equal values ("-1.50" and "-15e-1" alike).
func (d decimal) key() string {
	var b strings.Builder
	if d.neg {
		b.WriteByte('-')
	}
	b.WriteString(d.digits)
	b.WriteByte('e')
	b.WriteString(strconv.FormatInt(d.exp, 10))
	return b.String()
}
