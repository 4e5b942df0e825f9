package canon

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"testing"
)

// sentinels are the errors that every error of the package unwraps to.
var sentinels = []error{ErrSyntax, ErrInvalidUTF8, ErrDuplicateKey, ErrTrailingData, ErrNonFinite, ErrDepth,
	ErrTooMany, ErrNumberRange, ErrNotInteger, ErrLoneSurrogate, ErrUnsupportedType}

func isSentinel(err error) bool {
	for _, s := range sentinels {
		if err == s {
			return true
		}
	}
	return false
}

// sameJSON reports whether a and b are the same JSON data: numbers are
// compared by their float64 value and object members regardless of order.
func sameJSON(a, b Value) bool {
	if a.Kind != b.Kind {
		return false
	}
	switch a.Kind {
	case Bool:
		return a.Bool == b.Bool
	case Number:
		x, errx := strconv.ParseFloat(a.Num, 64)
		y, erry := strconv.ParseFloat(b.Num, 64)
		return errx == nil && erry == nil && x == y
	case String:
		return a.Str == b.Str
	case Array:
		if len(a.Elems) != len(b.Elems) {
			return false
		}
		for i := range a.Elems {
			if !sameJSON(a.Elems[i], b.Elems[i]) {
				return false
			}
		}
	case Object:
		if len(a.Members) != len(b.Members) {
			return false
		}
		bm := make(map[string]Value, len(b.Members))
		for _, m := range b.Members {
			bm[m.Key] = m.Value
		}
		for _, m := range a.Members {
			v, ok := bm[m.Key]
			if !ok || !sameJSON(m.Value, v) {
				return false
			}
		}
	}
	return true
}

func FuzzParse(f *testing.F) {
	for _, tc := range rejectCases {
		if len(tc.in) < 4096 {
			f.Add([]byte(tc.in))
		}
	}
	for _, tc := range acceptCases {
		f.Add([]byte(tc.in))
	}
	for _, doc := range diffDocs(3, 40, true) {
		f.Add([]byte(doc))
	}
	f.Add([]byte(`{"numbers":[333333333.33333329,1E30,4.50,2e-3,0.000000000000000000000000001],"string":"\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/","literals":[null,true,false]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := Parse(data, ReadOptions{})
		kept, kerr := Parse(data, ReadOptions{Duplicates: KeepDuplicates})
		_, lerr := Parse(data, ReadOptions{Duplicates: LastWins})
		switch {
		case err == nil && (kerr != nil || !Equal(v, kept)):
			t.Fatalf("KeepDuplicates differs without duplicates: %v", kerr)
		case (kerr == nil) != (lerr == nil):
			t.Fatalf("KeepDuplicates reads %v, LastWins %v: they differ in repeats only", kerr, lerr)
		case kerr == nil:
			// What it keeps reads back the same.
			again, err := Parse([]byte(kept.String()), ReadOptions{Duplicates: KeepDuplicates})
			if err != nil || !Equal(kept, again) {
				t.Fatalf("KeepDuplicates: %s reads back as %s (%v)", kept, again, err)
			}
		}
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) || !isSentinel(se.Err) {
				t.Fatalf("Parse error %T %v is not a *SyntaxError with a sentinel", err, err)
			}
			if se.Offset < 0 || se.Offset > int64(len(data)) {
				t.Fatalf("Parse error %v: offset out of the input of %d bytes", err, len(data))
			}
			if json.Valid(data) && se.Err != ErrInvalidUTF8 && se.Err != ErrDuplicateKey {
				t.Fatalf("Parse rejects what encoding/json accepts: %v", err)
			}
			return
		}
		if len(data) < 10000 && !json.Valid(data) {
			t.Fatalf("Parse accepts what encoding/json rejects: %s", v)
		}
		lw, err := Parse(data, ReadOptions{Duplicates: LastWins})
		if err != nil || !Equal(v, lw) {
			t.Fatalf("LastWins differs without duplicates: %v", err)
		}

		out, err := JSONStringify.Append(nil, v)
		if err != nil {
			if errors.Is(err, ErrNumberRange) {
				return
			}
			t.Fatalf("JSONStringify.Append: %v", err)
		}
		v2, err := Parse(out, ReadOptions{})
		if err != nil {
			t.Fatalf("Parse of canonical output %q: %v", out, err)
		}
		out2, err := JSONStringify.Append(nil, v2)
		if err != nil || !bytes.Equal(out, out2) {
			t.Fatalf("not idempotent:\n first  %q\n second %q, %v", out, out2, err)
		}
		if !sameJSON(v, v2) {
			t.Fatalf("canonical output %q reads back as different data", out)
		}

		jcsOut, err := JCS.Append(nil, v)
		switch {
		case err == nil:
			if !bytes.Equal(jcsOut, out) {
				t.Fatalf("JCS %q and JSONStringify %q differ without lone surrogates", jcsOut, out)
			}
		case !errors.Is(err, ErrLoneSurrogate):
			t.Fatalf("JCS.Append: %v", err)
		}
		if _, err := CodePointInteger.Append(nil, v); err != nil &&
			!errors.Is(err, ErrLoneSurrogate) && !errors.Is(err, ErrNotInteger) && !errors.Is(err, ErrNumberRange) {
			t.Fatalf("CodePointInteger.Append: %v", err)
		}
		if s := v.String(); s != string(data) && len(data) > 0 {
			if _, err := Parse([]byte(s), ReadOptions{}); err != nil {
				t.Fatalf("String() %q does not parse: %v", s, err)
			}
		}
	})
}

func FuzzFormatES6(f *testing.F) {
	for _, tc := range appendixB {
		f.Add(tc.bits)
	}
	f.Add(math.Float64bits(1e21))
	f.Add(math.Float64bits(1e-7))
	f.Add(math.Float64bits(123.456))
	f.Fuzz(func(t *testing.T, bits uint64) {
		x := math.Float64frombits(bits)
		s, err := FormatES6(x)
		if math.IsNaN(x) || math.IsInf(x, 0) {
			if !errors.Is(err, ErrNonFinite) {
				t.Fatalf("FormatES6(%v) = %q, %v; want ErrNonFinite", x, s, err)
			}
			return
		}
		if err != nil {
			t.Fatalf("FormatES6(%#016x): %v", bits, err)
		}
		if ok, _ := numberShape(s); !ok {
			t.Fatalf("FormatES6(%#016x) = %q, not a JSON number", bits, s)
		}
		y, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatalf("FormatES6(%#016x) = %q: %v", bits, s, err)
		}
		if x == 0 {
			if s != "0" {
				t.Fatalf("FormatES6(%#016x) = %q, want 0", bits, s)
			}
			return
		}
		if math.Float64bits(y) != bits {
			t.Fatalf("FormatES6(%#016x) = %q reads back as %#016x", bits, s, math.Float64bits(y))
		}
	})
}
