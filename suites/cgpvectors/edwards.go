package cgpvectors

import (
	"math/big"
	"slices"

	"github.com/refereehq/referee/internal/lazy"
)

// A few lines of edwards25519 arithmetic over math/big, slow and only for
// reading the vectors: upstream says every key it lists as small-order is a
// point P with 8P = identity, and referee recomputes that rather than trust
// the list (or its own copy of it in protocols/cgp).

// edConsts are the field's constants.
type edConsts struct {
	p      *big.Int // 2^255 - 19
	d      *big.Int // -121665/121666 mod p
	sqrtM1 *big.Int // 2^((p-1)/4), a square root of -1
}

// edField returns the constants, computed when first needed.
var edField = &lazy.Value[edConsts]{New: func() edConsts {
	p := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 255), big.NewInt(19))
	d := new(big.Int).Sub(p, big.NewInt(121665))
	d.Mul(d, new(big.Int).ModInverse(big.NewInt(121666), p)).Mod(d, p)
	sqrtM1 := new(big.Int).Exp(big.NewInt(2), new(big.Int).Rsh(new(big.Int).Sub(p, big.NewInt(1)), 2), p)
	return edConsts{p: p, d: d, sqrtM1: sqrtM1}
}}

type edPoint struct{ x, y *big.Int }

// edY returns the y of a 32-byte encoding (little-endian, sign bit masked)
// and the sign bit of x.
func edY(b []byte) (*big.Int, uint) {
	le := slices.Clone(b)
	sign := uint(le[31] >> 7)
	le[31] &= 0x7f
	slices.Reverse(le)
	return new(big.Int).SetBytes(le), sign
}

// edDecode decodes a point as RFC 8032 5.1.3 does, except that a y at or
// above p is reduced mod p instead of refused; ok is false when no point
// has that y.
func edDecode(b []byte) (edPoint, bool) {
	f := edField.Get()
	y, sign := edY(b)
	y.Mod(y, f.p)
	y2 := new(big.Int).Mul(y, y)
	u := new(big.Int).Sub(y2, big.NewInt(1))
	v := new(big.Int).Add(new(big.Int).Mul(f.d, y2), big.NewInt(1))
	x2 := u.Mul(u, new(big.Int).ModInverse(v.Mod(v, f.p), f.p))
	x2.Mod(x2, f.p)
	exp := new(big.Int).Rsh(new(big.Int).Add(f.p, big.NewInt(3)), 3)
	x := new(big.Int).Exp(x2, exp, f.p)
	if new(big.Int).Mod(new(big.Int).Mul(x, x), f.p).Cmp(x2) != 0 {
		x.Mul(x, f.sqrtM1).Mod(x, f.p)
	}
	if new(big.Int).Mod(new(big.Int).Mul(x, x), f.p).Cmp(x2) != 0 {
		return edPoint{}, false
	}
	if x.Sign() == 0 && sign == 1 {
		return edPoint{}, false
	}
	if x.Bit(0) != sign {
		x.Sub(f.p, x)
	}
	return edPoint{x, y}, true
}

// edAdd is the complete twisted Edwards addition law with a = -1.
func edAdd(a, b edPoint) edPoint {
	f := edField.Get()
	mul := func(xs ...*big.Int) *big.Int {
		r := big.NewInt(1)
		for _, x := range xs {
			r.Mul(r, x).Mod(r, f.p)
		}
		return r
	}
	t := mul(f.d, a.x, b.x, a.y, b.y)
	xn := new(big.Int).Add(mul(a.x, b.y), mul(a.y, b.x))
	yn := new(big.Int).Add(mul(a.y, b.y), mul(a.x, b.x))
	xd := new(big.Int).Add(big.NewInt(1), t)
	yd := new(big.Int).Sub(big.NewInt(1), t)
	yd.Mod(yd, f.p)
	return edPoint{mul(xn, new(big.Int).ModInverse(xd, f.p)), mul(yn, new(big.Int).ModInverse(yd, f.p))}
}

// edSmallOrder reports whether the encoding decodes (y reduced mod p) to a
// point P with 8P = identity.
func edSmallOrder(b []byte) bool {
	p, ok := edDecode(b)
	if !ok {
		return false
	}
	for range 3 {
		p = edAdd(p, p)
	}
	return p.x.Sign() == 0 && p.y.Cmp(big.NewInt(1)) == 0
}

// edCanonical reports whether an encoding's y is below p.
func edCanonical(b []byte) bool {
	f := edField.Get()
	y, _ := edY(b)
	return y.Cmp(f.p) < 0
}
