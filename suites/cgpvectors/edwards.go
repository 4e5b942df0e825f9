package cgpvectors

import (
	"math/big"
	"slices"
)

// A few lines of edwards25519 arithmetic over math/big, slow and only for
// reading the vectors: upstream says every key it lists as small-order is a
// point P with 8P = identity, and referee recomputes that rather than trust
// the list (or its own copy of it in protocols/cgp).

var (
	edP = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 255), big.NewInt(19))
	// edD is -121665/121666 mod p.
	edD = func() *big.Int {
		n := new(big.Int).Sub(edP, big.NewInt(121665))
		return n.Mul(n, new(big.Int).ModInverse(big.NewInt(121666), edP)).Mod(n, edP)
	}()
	// edSqrtM1 is 2^((p-1)/4), a square root of -1.
	edSqrtM1 = new(big.Int).Exp(big.NewInt(2), new(big.Int).Rsh(new(big.Int).Sub(edP, big.NewInt(1)), 2), edP)
)

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
	y, sign := edY(b)
	y.Mod(y, edP)
	y2 := new(big.Int).Mul(y, y)
	u := new(big.Int).Sub(y2, big.NewInt(1))
	v := new(big.Int).Add(new(big.Int).Mul(edD, y2), big.NewInt(1))
	x2 := u.Mul(u, new(big.Int).ModInverse(v.Mod(v, edP), edP))
	x2.Mod(x2, edP)
	exp := new(big.Int).Rsh(new(big.Int).Add(edP, big.NewInt(3)), 3)
	x := new(big.Int).Exp(x2, exp, edP)
	if new(big.Int).Mod(new(big.Int).Mul(x, x), edP).Cmp(x2) != 0 {
		x.Mul(x, edSqrtM1).Mod(x, edP)
	}
	if new(big.Int).Mod(new(big.Int).Mul(x, x), edP).Cmp(x2) != 0 {
		return edPoint{}, false
	}
	if x.Sign() == 0 && sign == 1 {
		return edPoint{}, false
	}
	if x.Bit(0) != sign {
		x.Sub(edP, x)
	}
	return edPoint{x, y}, true
}

// edAdd is the complete twisted Edwards addition law with a = -1.
func edAdd(a, b edPoint) edPoint {
	mul := func(xs ...*big.Int) *big.Int {
		r := big.NewInt(1)
		for _, x := range xs {
			r.Mul(r, x).Mod(r, edP)
		}
		return r
	}
	t := mul(edD, a.x, b.x, a.y, b.y)
	xn := new(big.Int).Add(mul(a.x, b.y), mul(a.y, b.x))
	yn := new(big.Int).Add(mul(a.y, b.y), mul(a.x, b.x))
	xd := new(big.Int).Add(big.NewInt(1), t)
	yd := new(big.Int).Sub(big.NewInt(1), t)
	yd.Mod(yd, edP)
	return edPoint{mul(xn, new(big.Int).ModInverse(xd, edP)), mul(yn, new(big.Int).ModInverse(yd, edP))}
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
	y, _ := edY(b)
	return y.Cmp(edP) < 0
}
