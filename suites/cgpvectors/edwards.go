package cgpvectors

import (
	"crypto/ed25519"
	"crypto/sha512"
	"encoding/hex"
	"math/big"
	"slices"

	"github.com/refereehq/referee/internal/lazy"
)

// A few lines of edwards25519 arithmetic over math/big, slow and only for
// reading and making the vectors: upstream says every key it lists as
// small-order is a point P with 8P = identity, and referee recomputes that
// rather than trust the list (or its own copy of it in protocols/cgp); the
// verify checks and fuzz targets make signatures crypto/ed25519 cannot (R
// chosen, S out of range, under a key of mixed order); and two broken modes
// need a point's order and S reduced.

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

// edOrder is L, the order of the base point: 2^252 +
// 27742317777372353535851937790883648493.
var edOrder = &lazy.Value[*big.Int]{New: func() *big.Int {
	l, _ := new(big.Int).SetString("27742317777372353535851937790883648493", 10)
	return l.Add(l, new(big.Int).Lsh(big.NewInt(1), 252))
}}

// edMul returns [k]p, by doubling and adding.
func edMul(p edPoint, k *big.Int) edPoint {
	acc := edPoint{big.NewInt(0), big.NewInt(1)}
	for i := k.BitLen() - 1; i >= 0; i-- {
		acc = edAdd(acc, acc)
		if k.Bit(i) == 1 {
			acc = edAdd(acc, p)
		}
	}
	return acc
}

// edPrimeOrder reports whether an encoding decodes (y reduced mod p) to a
// point of the prime-order subgroup: [L]P is the identity. A mixed-order
// point, A + T with T of small order, is not.
func edPrimeOrder(b []byte) bool {
	p, ok := edDecode(b)
	if !ok {
		return false
	}
	q := edMul(p, edOrder.Get())
	return q.x.Sign() == 0 && q.y.Cmp(big.NewInt(1)) == 0
}

// edEncode is the 32-byte encoding of a point: y little-endian, the sign
// of x in the top bit.
func edEncode(p edPoint) []byte {
	b := leBytes(p.y, 32)
	b[31] |= byte(p.x.Bit(0)) << 7
	return b
}

// leInt reads b as a little-endian integer.
func leInt(b []byte) *big.Int {
	be := slices.Clone(b)
	slices.Reverse(be)
	return new(big.Int).SetBytes(be)
}

// leBytes writes x (0 <= x < 2^(8n)) as n little-endian bytes.
func leBytes(x *big.Int, n int) []byte {
	b := x.FillBytes(make([]byte, n))
	slices.Reverse(b)
	return b
}

// reducedS is sig with its S reduced mod L, as a verifier that never
// refuses S ≥ L reads it.
func reducedS(sig []byte) []byte {
	s := leInt(sig[32:])
	s.Mod(s, edOrder.Get())
	return append(slices.Clone(sig[:32]), leBytes(s, 32)...)
}

// identityR is the identity point's encoding, as an R.
var identityR, _ = hex.DecodeString(torsionPoints[0])

// nonCanonicalY is the encoding of y = p + j with the sign bit set as given.
func nonCanonicalY(j int, sign bool) []byte {
	b := make([]byte, 32)
	for i := range b {
		b[i] = 0xff
	}
	b[0] = byte(0xed + j)
	b[31] = 0x7f
	if sign {
		b[31] |= 0x80
	}
	return b
}

// edSigner signs with a seed, and knows its secret scalar and nonce key, so
// that it can sign under a key other than its own public key (a mixed-order
// one) or with an R of its choosing.
type edSigner struct {
	priv   ed25519.PrivateKey
	pub    []byte
	a      *big.Int // the clamped secret scalar
	prefix []byte   // the nonce key
}

func newSigner(seed []byte) edSigner {
	h := sha512.Sum512(seed)
	a := slices.Clone(h[:32])
	a[0] &= 248
	a[31] &= 127
	a[31] |= 64
	priv := ed25519.NewKeyFromSeed(seed)
	return edSigner{priv: priv, pub: priv.Public().(ed25519.PublicKey), a: leInt(a), prefix: h[32:]}
}

// challenge is k = SHA-512(R ‖ A ‖ M) mod L.
func challenge(r, a, msg []byte) *big.Int {
	h := sha512.New()
	h.Write(r)
	h.Write(a)
	h.Write(msg)
	k := leInt(h.Sum(nil))
	return k.Mod(k, edOrder.Get())
}

// signAs signs msg as if key were the signer's public key: R = rB as
// Ed25519 makes it, S = r + k·a with k over key. When key is the public key
// plus a point T of small order, the signature verifies under key exactly
// when k·T is the identity.
func (s edSigner) signAs(key, msg []byte) ([]byte, *big.Int) {
	sig := ed25519.Sign(s.priv, msg)
	h := sha512.New()
	h.Write(s.prefix)
	h.Write(msg)
	r := leInt(h.Sum(nil))
	k := challenge(sig[:32], key, msg)
	sc := new(big.Int).Mul(k, s.a)
	sc.Add(sc, r).Mod(sc, edOrder.Get())
	return append(sig[:32:32], leBytes(sc, 32)...), k
}

// withR signs msg with the given R and S = k·a: with R the identity, the
// group equation [S]B = R + [k]A holds, so only a verifier's check of R
// refuses the signature.
func (s edSigner) withR(r, msg []byte) []byte {
	k := challenge(r, s.pub, msg)
	sc := new(big.Int).Mul(k, s.a)
	sc.Mod(sc, edOrder.Get())
	return append(slices.Clone(r), leBytes(sc, 32)...)
}

// mixedKey is the public key plus a point of order n (2 or 4): a key of
// mixed order, neither small-order nor non-canonical. (0, -1) has order 2
// and (√-1, 0) order 4; adding them to (x, y) gives (-x, -y) and
// (√-1·y, √-1·x).
func mixedKey(pub []byte, n int) []byte {
	p, _ := edDecode(pub)
	f := edField.Get()
	if n == 2 {
		return edEncode(edPoint{new(big.Int).Sub(f.p, p.x), new(big.Int).Sub(f.p, p.y)})
	}
	x := new(big.Int).Mul(f.sqrtM1, p.y)
	y := new(big.Int).Mul(f.sqrtM1, p.x)
	return edEncode(edPoint{x.Mod(x, f.p), y.Mod(y, f.p)})
}

// sPlus adds m·L to a signature's S (S + m·L < 2^256 for m < 16).
func sPlus(sig []byte, m int64) []byte {
	s := leInt(sig[32:])
	s.Add(s, new(big.Int).Mul(big.NewInt(m), edOrder.Get()))
	return append(sig[:32:32], leBytes(s, 32)...)
}

// mixedCase is a key of mixed order (s's key plus a point of order n) and
// a signature that verifies under it, over the first of msgs whose
// challenge k clears the small-order part (k·T = identity): with any
// other, a cofactored and a cofactorless verifier disagree, which the
// vectors leave open. ok is false when none does.
func mixedCase(s edSigner, n int, msgs [][]byte) (sigCase, []byte, bool) {
	key := mixedKey(s.pub, n)
	for _, m := range msgs {
		if sig, k := s.signAs(key, m); new(big.Int).Mod(k, big.NewInt(int64(n))).Sign() == 0 {
			return sigCase{key: key, sig: sig}, m, true
		}
	}
	return sigCase{}, nil, false
}
