package canon

import (
	"math"
	"strconv"
)

// maxSafeInteger is 2^53-1, the largest integer n such that every integer
// of magnitude at most n is an IEEE 754 double.
const maxSafeInteger = 1<<53 - 1

// FormatES6 returns the ECMAScript Number::toString form of f, which is
// the RFC 8785 form of a number. It fails for NaN and the infinities.
func FormatES6(f float64) (string, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "", &ValueError{Err: ErrNonFinite, Msg: "number " + strconv.FormatFloat(f, 'g', -1, 64) + " is not finite"}
	}
	var buf [32]byte
	return string(appendES6(buf[:0], f)), nil
}

// appendES6 appends the ECMAScript Number::toString form of the finite f.
func appendES6(dst []byte, f float64) []byte {
	if f == 0 {
		return append(dst, '0') // also -0
	}
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return strconv.AppendInt(dst, int64(f), 10)
	}
	if f < 0 {
		dst = append(dst, '-')
		f = -f
	}
	// The shortest digits that read back as f, in the form d[.ddd]e±xx.
	var buf [32]byte
	b := strconv.AppendFloat(buf[:0], f, 'e', -1, 64)
	ei := len(b) - 1
	for b[ei] != 'e' {
		ei--
	}
	var dbuf [24]byte
	digits := append(dbuf[:0], b[0])
	if ei > 1 {
		digits = append(digits, b[2:ei]...)
	}
	exp := 0
	for _, c := range b[ei+2:] {
		exp = exp*10 + int(c-'0')
	}
	if b[ei+1] == '-' {
		exp = -exp
	}
	// ECMA-262 Number::toString: the value is 0.digits × 10^n.
	k, n := len(digits), exp+1
	switch {
	case k <= n && n <= 21:
		dst = append(dst, digits...)
		for i := k; i < n; i++ {
			dst = append(dst, '0')
		}
	case 0 < n && n <= 21:
		dst = append(dst, digits[:n]...)
		dst = append(dst, '.')
		dst = append(dst, digits[n:]...)
	case -6 < n && n <= 0:
		dst = append(dst, '0', '.')
		for i := n; i < 0; i++ {
			dst = append(dst, '0')
		}
		dst = append(dst, digits...)
	default:
		dst = append(dst, digits[0])
		if k > 1 {
			dst = append(dst, '.')
			dst = append(dst, digits[1:]...)
		}
		dst = append(dst, 'e')
		if n-1 >= 0 {
			dst = append(dst, '+')
		} else {
			dst = append(dst, '-')
		}
		dst = strconv.AppendInt(dst, int64(abs(n-1)), 10)
	}
	return dst
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// numberShape reports whether s is a JSON number lexeme and whether it has
// neither fraction nor exponent.
func numberShape(s string) (ok, integer bool) {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && '1' <= s[i] && s[i] <= '9':
		for i < len(s) && isDigit(s[i]) {
			i++
		}
	default:
		return false, false
	}
	integer = true
	if i < len(s) && s[i] == '.' {
		integer = false
		i++
		if i >= len(s) || !isDigit(s[i]) {
			return false, false
		}
		for i < len(s) && isDigit(s[i]) {
			i++
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		integer = false
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if i >= len(s) || !isDigit(s[i]) {
			return false, false
		}
		for i < len(s) && isDigit(s[i]) {
			i++
		}
	}
	return i == len(s), integer
}

// appendNumber writes the number with lexeme lex by the profile's rule.
func (e *encoder) appendNumber(dst []byte, lex string) ([]byte, error) {
	if e.source {
		return append(dst, lex...), nil
	}
	ok, integer := numberShape(lex)
	if !ok {
		return dst, e.fail(ErrSyntax, "invalid number lexeme %s", strconv.Quote(lex))
	}
	digits := lex
	if lex[0] == '-' {
		digits = lex[1:]
	}
	if e.p.Numbers == Integer {
		if !integer {
			return dst, e.fail(ErrNotInteger, "number %s is not an integer", lex)
		}
		if len(digits) > 16 || len(digits) == 16 && digits > "9007199254740991" {
			return dst, e.fail(ErrNumberRange, "number %s out of range: magnitude above 2^53-1", lex)
		}
		if digits == "0" {
			return append(dst, '0'), nil
		}
		return append(dst, lex...), nil
	}
	if integer && len(digits) <= 15 {
		// Exact as a double and already in ECMAScript form.
		if digits == "0" {
			return append(dst, '0'), nil
		}
		return append(dst, lex...), nil
	}
	f, _ := strconv.ParseFloat(lex, 64)
	if math.IsInf(f, 0) {
		return dst, e.fail(ErrNumberRange, "number %s out of range", lex)
	}
	return appendES6(dst, f), nil
}
