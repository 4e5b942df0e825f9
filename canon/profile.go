package canon

import (
	"strconv"
	"unsafe"
)

// KeyOrder is the order in which a profile writes object members.
type KeyOrder uint8

const (
	// UTF16 sorts keys by their UTF-16 code units, as RFC 8785 requires.
	UTF16 KeyOrder = iota
	// CodePoint sorts keys by Unicode code point, which is UTF-8 byte order.
	CodePoint
)

// NumberFormat is the way a profile writes numbers.
type NumberFormat uint8

const (
	// ES6 writes a number as ECMAScript writes the nearest IEEE 754 double.
	ES6 NumberFormat = iota
	// Integer accepts only integers of magnitude at most 2^53-1, written in
	// plain decimal.
	Integer
)

// SurrogatePolicy is what a profile does with a lone surrogate in a string.
type SurrogatePolicy uint8

const (
	// RejectSurrogates makes a lone surrogate an ErrLoneSurrogate error.
	RejectSurrogates SurrogatePolicy = iota
	// EscapeSurrogates writes a lone surrogate as a lower-case \udxxx
	// escape, as ECMAScript 2019 JSON.stringify does.
	EscapeSurrogates
)

// Profile is a set of canonicalisation rules.
type Profile struct {
	Name       string
	Keys       KeyOrder
	Numbers    NumberFormat
	Surrogates SurrogatePolicy
}

// JCS is the JSON Canonicalization Scheme of RFC 8785.
var JCS = Profile{Name: "jcs", Keys: UTF16, Numbers: ES6, Surrogates: RejectSurrogates}

// JSONStringify is what a canonicaliser built on ECMAScript 2019
// JSON.stringify with sorted keys writes (as Crosslink and CDC do).
var JSONStringify = Profile{Name: "es2019", Keys: UTF16, Numbers: ES6, Surrogates: EscapeSurrogates}

// CodePointInteger is the FablePool draft: code point key order and
// integers only.
var CodePointInteger = Profile{Name: "codepoint-integer", Keys: CodePoint, Numbers: Integer, Surrogates: RejectSurrogates}

// check reports a profile whose rules are not among the known ones.
func (p Profile) check() error {
	var what string
	var n uint8
	switch {
	case p.Keys > CodePoint:
		what, n = "key order", uint8(p.Keys)
	case p.Numbers > Integer:
		what, n = "number format", uint8(p.Numbers)
	case p.Surrogates > EscapeSurrogates:
		what, n = "surrogate policy", uint8(p.Surrogates)
	default:
		return nil
	}
	return &ValueError{Err: ErrUnsupportedType, Msg: "profile " + strconv.Quote(p.Name) + " has unknown " + what + " " + strconv.Itoa(int(n))}
}

// Append appends the canonical form of v to dst. On error it returns dst
// unchanged and a *ValueError.
func (p Profile) Append(dst []byte, v Value) ([]byte, error) {
	if err := p.check(); err != nil {
		return dst, err
	}
	n := len(dst)
	e := getEncoder(p)
	out, err := e.run(dst, &v)
	putEncoder(e)
	if err != nil {
		return dst[:n], err
	}
	return out, nil
}

// Canonicalize parses data with opts and returns its canonical form.
func (p Profile) Canonicalize(data []byte, opts ReadOptions) ([]byte, error) {
	if err := p.check(); err != nil {
		return nil, err
	}
	// data is read in place, not copied as Parse copies it: the Value read
	// from it ends with this call, and what Append makes of it (the
	// canonical text, an error's path and message) is copied out of it.
	v, err := parse(unsafe.String(unsafe.SliceData(data), len(data)), opts)
	if err != nil {
		return nil, err
	}
	return p.Append(make([]byte, 0, len(data)), v)
}
