package cgp

import (
	"math/big"
	"slices"

	"github.com/refereehq/referee/internal/lazy"
)

// A point encoding a strict Ed25519 verifier accepts, decided from the
// bytes (RFC 8032 §5.1.3, with §6.5.4's strictness on top): y below p,
// a y with an x on the curve, the sign bit clear when x is 0 (RFC 8032:
// "If x = 0, and x_0 = 1, decoding fails"), and a point that is not of
// small order.

// edParams are the field's prime and the curve's d, computed when first
// needed.
var edParams = &lazy.Value[[2]*big.Int]{New: func() [2]*big.Int {
	p := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 255), big.NewInt(19))
	d := new(big.Int).Sub(p, big.NewInt(121665))
	d.Mul(d, new(big.Int).ModInverse(big.NewInt(121666), p)).Mod(d, p)
	return [2]*big.Int{p, d}
}}

// The two encodings whose x is 0 but whose sign bit is set: y = 1 (the
// identity) and y = p - 1 (the point of order 2), each with bit 255 set.
// crypto/ed25519 and OpenSSL read them as those points; RFC 8032 refuses
// them.
var xZeroSignSet = []string{
	"0100000000000000000000000000000000000000000000000000000000000080",
	"ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
}

// edY returns the y of a 32-byte encoding (little-endian, sign bit masked).
func edY(b []byte) *big.Int {
	le := slices.Clone(b)
	le[31] &= 0x7f
	slices.Reverse(le)
	return new(big.Int).SetBytes(le)
}

// onCurve reports whether some x makes (x, y) a point of edwards25519:
// (y²-1)/(d·y²+1) is a square mod p (Euler's criterion).
func onCurve(y *big.Int) bool {
	p, d := edParams.Get()[0], edParams.Get()[1]
	y2 := new(big.Int).Mul(y, y)
	u := new(big.Int).Sub(y2, big.NewInt(1))
	v := new(big.Int).Add(new(big.Int).Mul(d, y2), big.NewInt(1))
	x2 := u.Mul(u, new(big.Int).ModInverse(v.Mod(v, p), p))
	x2.Mod(x2, p)
	if x2.Sign() == 0 {
		return true
	}
	e := new(big.Int).Rsh(new(big.Int).Sub(p, big.NewInt(1)), 1)
	return new(big.Int).Exp(x2, e, p).Cmp(big.NewInt(1)) == 0
}
