package cgpvectors

import (
	"crypto/ed25519"
	"encoding/hex"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"

	"github.com/refereehq/referee/canon"
	"github.com/refereehq/referee/jsongen"
	"github.com/refereehq/referee/protocols/cgp"
)

// The verify and verify-record targets: attestations for verifyAttestation
// and verifyRecordAttestation, each valid (a real Ed25519 signature by a
// generated seed) and then made adversarial in one or two ways: keys of
// small order, with x = 0 and the sign bit set, with y ≥ p (reducing to
// points of small and of large order), off the curve, of mixed order (a
// valid key plus a point of order 2 or 4, with a signature that verifies
// under it), in uppercase hex or of the wrong length, another key; R the
// identity with S = k·a (the group equation holds: only the R check
// refuses it), R with y ≥ p; S + L and S beyond 2^253 (S out of range), S
// tampered; signatures in uppercase or of the wrong length; commitments
// that do not match, in uppercase, without their prefix; other algorithms;
// members missing. The reference's verdict is the vector.

// torsionPoints are the encodings of the eight points of small order.
var torsionPoints = []string{
	"0100000000000000000000000000000000000000000000000000000000000000",
	"ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
	"0000000000000000000000000000000000000000000000000000000000000000",
	"0000000000000000000000000000000000000000000000000000000000000080",
	"26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05",
	"26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85",
	"c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a",
	"c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa",
}

// forgeries caches forge's answers: a small-order key's forgery takes up
// to 512 verifications to find.
var forgeries sync.Map // key hex -> forgery (zero when none)

// cachedForge is forge of a key given in hex, over the eight small-order
// Rs, remembered; ok is false when the key is not 32 bytes or has none.
func cachedForge(key string) (forgery, bool) {
	if b, err := hex.DecodeString(key); err != nil || len(b) != ed25519.PublicKeySize {
		return forgery{}, false
	}
	if f, ok := forgeries.Load(key); ok {
		return f.(forgery), f.(forgery).signature != ""
	}
	var f forgery
	b, _ := hex.DecodeString(key)
	b[31] &= 0x7f // the sign of x does not change the point's order
	if edSmallOrder(b) {
		// Only under a key crypto/ed25519 reads as a point of small order
		// (y reduced; x = 0 whatever the sign bit) does a forgery exist:
		// the search is spared the others.
		f, _ = forge(key, torsionPoints)
	}
	forgeries.Store(key, f)
	return f, f.signature != ""
}

// weakKeyHex is a key a strict verifier refuses: small-order, x = 0 with
// the sign bit set, y ≥ p (of small order reduced or not), or off the
// curve.
func weakKeyHex(r *rand.Rand) string {
	switch r.IntN(4) {
	case 0:
		return pick(r, torsionPoints)
	case 1:
		return pick(r, xZeroSign[:])
	case 2:
		return hex.EncodeToString(nonCanonicalY(r.IntN(19), r.IntN(2) == 0))
	}
	return pick(r, []string{offCurveKey, hex.EncodeToString(nonCanonicalY(1, false)), nonCanonicalLarge})
}

// attParts are an attestation's members, as strings, before they are
// written: absent members are left out.
type attParts struct {
	members [][2]string
}

// set sets member k to v, adding it when absent.
func (a *attParts) set(k, v string) {
	for i := range a.members {
		if a.members[i][0] == k {
			a.members[i][1] = v
			return
		}
	}
	a.members = append(a.members, [2]string{k, v})
}

// node is the attestation as JSON, at times without one of its members.
func (a *attParts) node(r *rand.Rand) *jsongen.Node {
	o := &jsongen.Node{Kind: canon.Object}
	for _, m := range a.members {
		o.Set(m[0], jsongen.Str(m[1]))
	}
	if r.IntN(8) == 0 {
		o.Delete(pick(r, []string{"key_id", "attester_id", "issued_at", "algorithm", "signature", "signed_commitment", "signed_record_hash"}))
	}
	return o
}

// sigCase is a signature, key and message made adversarial together.
type sigCase struct {
	key, sig []byte
	keyHex   string // when set, the key as sent (malformed, uppercase, weak)
	sigHex   string // when set, the signature as sent
}

// adversarial turns a valid signature of msg by s into another case: its
// key, R or S pushed out of what a strict verifier accepts, tampered, or
// sent in another form.
func adversarial(r *rand.Rand, s edSigner, msg []byte) sigCase {
	c := sigCase{key: s.pub, sig: ed25519.Sign(s.priv, msg)}
	switch r.IntN(11) {
	case 0, 1:
		// R the identity, S = k·a: the group equation holds.
		c.sig = s.withR(identityR, msg)
	case 2:
		// R with y ≥ p: the identity (y = p + 1), a point of order 4
		// (y = p) or of large order (y = p + 3).
		c.sig = s.withR(nonCanonicalY(pick(r, []int{1, 1, 0, 3}), false), msg)
	case 3:
		c.sig = sPlus(c.sig, 1)
	case 4:
		c.sig = sPlus(c.sig, int64(1+r.IntN(15)))
	case 5, 6:
		c.keyHex = weakKeyHex(r)
		if f, ok := cachedForge(c.keyHex); ok && r.IntN(2) == 0 {
			c.sig = f.sigBytes()
		}
	case 7:
		c.key = newSigner([]byte(strings.Repeat("\x2a", 32))).pub
	case 8:
		c.sig = slices.Clone(c.sig)
		c.sig[r.IntN(64)] ^= byte(1 << r.IntN(8))
	case 9:
		c.keyHex = pick(r, []string{strings.ToUpper(hex.EncodeToString(c.key)), hex.EncodeToString(c.key[:31]), hex.EncodeToString(append(slices.Clone(c.key), 0)), "", "zz" + hex.EncodeToString(c.key[1:])})
	case 10:
		c.sigHex = pick(r, []string{strings.ToUpper(hex.EncodeToString(c.sig)), hex.EncodeToString(c.sig[:63]), hex.EncodeToString(append(slices.Clone(c.sig), 0)), "", hex.EncodeToString(c.sig[:32])})
	}
	return c
}

func (f forgery) sigBytes() []byte {
	b, _ := hex.DecodeString(f.signature)
	return b
}

func (c sigCase) keyText() string {
	if c.keyHex != "" {
		return c.keyHex
	}
	return hex.EncodeToString(c.key)
}

func (c sigCase) sigText() string {
	if c.sigHex != "" {
		return c.sigHex
	}
	return hex.EncodeToString(c.sig)
}

// genVerify is {attestation, expected_commitment, public_key} for
// verifyAttestation.
func genVerify(r *rand.Rand) *jsongen.Node {
	s := newSigner([]byte(hexBytes(r, 16)))
	randomHash := func() cgp.Hash {
		var c cgp.Hash
		for i := range c {
			c[i] = byte(r.Uint32())
		}
		return c
	}
	c := randomHash()
	sc := sigCase{key: s.pub, sig: ed25519.Sign(s.priv, c[:])}
	switch r.IntN(8) {
	case 0:
	case 1:
		var msgs [][]byte
		for range 8 {
			h := randomHash()
			msgs = append(msgs, h[:])
		}
		if mc, m, ok := mixedCase(s, pick(r, []int{2, 4}), msgs); ok {
			sc, c = mc, cgp.Hash(m)
		}
	default:
		sc = adversarial(r, s, c[:])
		if sc.keyHex == "" {
			break
		}
		if f, ok := cachedForge(sc.keyHex); ok && slices.Equal(sc.sig, f.sigBytes()) {
			// A forgery holds over its own commitment.
			c = f.commitment
		}
	}
	signed := c
	att := &attParts{}
	att.set("signed_commitment", signed.String())
	att.set("key_id", "key-1")
	att.set("algorithm", "ed25519")
	att.set("attester_id", "referee")
	att.set("signature", sc.sigText())
	att.set("issued_at", "2026-08-27T00:00:00Z")
	expected := c
	switch r.IntN(10) {
	case 0:
		expected[r.IntN(32)] ^= 1
	case 1:
		att.set("signed_commitment", pick(r, []string{"sha256:" + strings.ToUpper(signed.String()[7:]), signed.String()[7:], signed.String()[:70], "sha512:" + signed.String()[7:]}))
	case 2:
		att.set("algorithm", pick(r, []string{"Ed25519", "ed448", "", "ED25519", "ed25519 ", "eddsa"}))
	}
	return jsongen.Obj("attestation", att.node(r), "expected_commitment", jsongen.Str(expected.String()), "public_key", jsongen.Str(sc.keyText()))
}

// genVerifyRecord is {record, attestation, public_key} for
// verifyRecordAttestation.
func genVerifyRecord(r *rand.Rand) *jsongen.Node {
	rec := genRecord(r)
	hash, ok := hashable(rec)
	if !ok {
		// A record the reference cannot hash (a duplicate name, a number
		// beyond double range): the same without its body and score.
		rec.Delete("body")
		rec.Delete("confidence")
		if hash, ok = hashable(rec); !ok {
			return jsongen.Obj("record", rec)
		}
	}
	s := newSigner([]byte(hexBytes(r, 16)))
	signedHash := hash
	switch r.IntN(8) {
	case 0:
		// Another record's hash, validly signed or not.
		signedHash = cgp.DigestOf([]byte(hexBytes(r, 8)))
	case 1:
		signedHash = pick(r, []string{"sha256:" + strings.ToUpper(hash[7:]), hash[7:], hash[:70]})
	}
	msg, err := cgp.RecordAttestationMessage(signedHash)
	if err != nil {
		msg = []byte(signedHash)
	}
	sc := sigCase{key: s.pub, sig: ed25519.Sign(s.priv, msg)}
	switch r.IntN(7) {
	case 0:
		// The bare digest signed, without the domain tag.
		if len(msg) > len(cgp.RecordAttestationDomain) {
			sc.sig = ed25519.Sign(s.priv, msg[len(cgp.RecordAttestationDomain):])
		}
	case 1:
		if mc, _, ok := mixedCase(s, pick(r, []int{2, 4}), [][]byte{msg}); ok {
			sc = mc
		}
	case 2, 3, 4:
		sc = adversarial(r, s, msg)
		if sc.keyHex != "" && r.IntN(2) == 0 {
			// The identity key, under which R = identity, S = 0 verifies any message.
			sc.keyHex, sc.sig, sc.sigHex = torsionPoints[0], append(slices.Clone(identityR), make([]byte, 32)...), ""
		}
	}
	att := &attParts{}
	att.set("signed_record_hash", signedHash)
	att.set("key_id", "key-1")
	att.set("algorithm", "ed25519")
	att.set("attester_id", "referee")
	att.set("signature", sc.sigText())
	att.set("issued_at", "2026-07-29T14:00:05Z")
	if r.IntN(10) == 0 {
		att.set("algorithm", pick(r, []string{"Ed25519", "ed448", ""}))
	}
	key := sc.keyText()
	if _, err := hex.DecodeString(key); err != nil {
		key = hex.EncodeToString(sc.key)
	}
	return jsongen.Obj("record", rec, "attestation", att.node(r), "public_key", jsongen.Str(key))
}

// hashable is a record's hash, when the reference can compute it.
func hashable(rec *jsongen.Node) (string, bool) {
	v, err := canon.Parse(rec.Encode(), canon.ReadOptions{})
	if err != nil {
		return "", false
	}
	h, err := cgp.RecordHash(v)
	return h, err == nil
}

// verifyVector is the op case of a verifier's args, when they are args of
// the op's schema (objects where it wants them) and, for a record
// attestation, the key is 32 bytes of lowercase hex: what a key of another
// length or case gives there, no check settles (verifyAttestation's
// MalformedKey does, and keeps them).
func verifyVector(op, name string, input []byte) (any, bool) {
	v, err := canon.Parse(input, canon.ReadOptions{})
	if err != nil || v.Kind != canon.Object {
		return nil, false
	}
	att, _ := v.Lookup("attestation")
	key, _ := v.Lookup("public_key")
	if att.Kind != canon.Object || key.Kind != canon.String {
		return nil, false
	}
	if op == OpVerifyRecordAttestation {
		rec, _ := v.Lookup("record")
		if b, err := hex.DecodeString(key.Str); rec.Kind != canon.Object || err != nil || len(b) != ed25519.PublicKeySize || strings.ToLower(key.Str) != key.Str {
			return nil, false
		}
	}
	return opVector(op, name, input)
}
