package cgp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"

	"github.com/refereehq/referee/internal/jsonstring"
)

// The reference serializer is Rust's serde_json, compact, over the wire
// types. It differs from encoding/json in three ways that matter for a byte
// for byte round trip: an f32 is written in its own shortest form (ryu's
// format32: 1.0 as "1.0", 0.875 as "0.875", never widened to f64 digits), a
// Vec is always an array (never null), and strings escape only what JSON
// requires. Member order is the declaration order of the Go wire types,
// which follow the Rust ones, and omitempty says which members the
// reference skips.

// MarshalReference writes a wire value (a struct of this package, or a
// pointer, slice, string, bool, integer or float32) as the reference
// serializer does.
func MarshalReference(v any) ([]byte, error) {
	return appendReference(nil, reflect.ValueOf(v))
}

func appendReference(b []byte, v reflect.Value) ([]byte, error) {
	if !v.IsValid() {
		return append(b, "null"...), nil
	}
	if v.Type() == reflect.TypeFor[json.RawMessage]() {
		if v.Len() == 0 {
			return append(b, "null"...), nil
		}
		var buf bytes.Buffer
		if err := json.Compact(&buf, v.Bytes()); err != nil {
			return nil, fmt.Errorf("raw member: %w", err)
		}
		return append(b, buf.Bytes()...), nil
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return append(b, "null"...), nil
		}
		return appendReference(b, v.Elem())
	case reflect.Struct:
		b = append(b, '{')
		first := true
		t := v.Type()
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "-" {
				continue
			}
			if name == "" {
				name = f.Name
			}
			fv := v.Field(i)
			if hasOption(opts, "omitempty") && emptyValue(fv) {
				continue
			}
			if !first {
				b = append(b, ',')
			}
			first = false
			b = AppendSerdeString(b, name)
			b = append(b, ':')
			var err error
			if b, err = appendReference(b, fv); err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
		}
		return append(b, '}'), nil
	case reflect.Slice, reflect.Array:
		// A Rust Vec is never null: a nil slice is written as [].
		b = append(b, '[')
		for i := range v.Len() {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = appendReference(b, v.Index(i)); err != nil {
				return nil, fmt.Errorf("[%d]: %w", i, err)
			}
		}
		return append(b, ']'), nil
	case reflect.String:
		return AppendSerdeString(b, v.String()), nil
	case reflect.Bool:
		return strconv.AppendBool(b, v.Bool()), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.AppendInt(b, v.Int(), 10), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return strconv.AppendUint(b, v.Uint(), 10), nil
	case reflect.Float32:
		return append(b, FormatF32(float32(v.Float()))...), nil
	}
	return nil, fmt.Errorf("no reference form for a %s", v.Type())
}

func hasOption(opts, want string) bool {
	for o := range strings.SplitSeq(opts, ",") {
		if o == want {
			return true
		}
	}
	return false
}

// emptyValue is encoding/json's omitempty test.
func emptyValue(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool:
		return !v.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int() == 0
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return v.Uint() == 0
	case reflect.Float32, reflect.Float64:
		return v.Float() == 0
	case reflect.Pointer, reflect.Interface:
		return v.IsNil()
	}
	return false
}

// AppendSerdeString appends s as a JSON string the way serde_json writes it:
// `"` and `\` escaped, \b \t \n \f \r in their short forms, other C0
// controls as \u00xx (lowercase hex), everything else (DEL, U+2028,
// non-ASCII) as it stands.
func AppendSerdeString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' {
			b = jsonstring.AppendEscape(append(b, s[start:i]...), c)
			start = i + 1
		}
	}
	return append(append(b, s[start:]...), '"')
}

// FormatF32 writes an f32 as serde_json does (ryu's format32): the shortest
// decimal digits that read back as the same f32, laid out as
//
//	integral, below 1e13:      12340000000.0, 1.0
//	at least 1, below 1e13:    12.34
//	at least 1e-6, below 1:    0.001234, 0.000001
//	otherwise:                 1e13, 1.5e-7, 3.4028235e38
//
// with "0.0" and "-0.0" for zeros. NaN and the infinities are "null".
func FormatF32(f float32) string {
	if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
		return "null"
	}
	if f == 0 {
		if math.Signbit(float64(f)) {
			return "-0.0"
		}
		return "0.0"
	}
	sign := ""
	if f < 0 {
		sign, f = "-", -f
	}
	// d.ddde±XX: the shortest digits that identify f among f32s.
	s := strconv.FormatFloat(float64(f), 'e', -1, 32)
	mant, expText, _ := strings.Cut(s, "e")
	digits := strings.Replace(mant, ".", "", 1)
	e, _ := strconv.Atoi(expText)
	n := len(digits)
	k := e - (n - 1) // the exponent of the last digit
	kk := n + k      // 10^(kk-1) <= f < 10^kk
	switch {
	case 0 <= k && kk <= 13:
		return sign + digits + strings.Repeat("0", k) + ".0"
	case 0 < kk && kk <= 13:
		return sign + digits[:kk] + "." + digits[kk:]
	case -6 < kk && kk <= 0:
		return sign + "0." + strings.Repeat("0", -kk) + digits
	case n == 1:
		return sign + digits + "e" + strconv.Itoa(kk-1)
	}
	return sign + digits[:1] + "." + digits[1:] + "e" + strconv.Itoa(kk-1)
}
