package fuzz

import (
	"encoding/hex"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/refereehq/referee/canon"
	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/jsongen"
)

// kindOf is a check's ID with the vector's name replaced by *: which check
// of the vector failed (crosslink/cases/*/frame).
func kindOf(id, name string) string { return strings.ReplaceAll(id, name, "*") }

// reasonClass is a failure reason without what varies from input to
// input: the part before the first ": " (what the adapter said comes
// after it), with every run of digits as N. A class the check names in
// brackets after a space, " [...]", is kept as written, digits and ": "
// too: the suite's word for which kind of mistake it saw ("[misses F4
// (date)]", "[MalformedKey as BadSignature: key non-canonical]"), so that
// distinct bugs failing the same check keep distinct keys.
func reasonClass(reason string) string {
	var b strings.Builder
	digits := false
	for i := 0; i < len(reason); i++ {
		c := reason[i]
		switch {
		case c == ':' && strings.HasPrefix(reason[i:], ": "):
			return b.String()
		case c == ' ' && strings.HasPrefix(reason[i:], " ["):
			if end := strings.IndexByte(reason[i:], ']'); end > 0 {
				b.WriteString(reason[i : i+end+1])
				i += end
				digits = false
				continue
			}
		case '0' <= c && c <= '9':
			if !digits {
				b.WriteByte('N')
			}
			digits = true
			continue
		}
		digits = false
		b.WriteByte(c)
	}
	return b.String()
}

// byteClass names a byte for a diff's class: punctuation as itself,
// letters, digits, controls and non-ASCII by class, $ past the end.
func byteClass(b []byte, i int) string {
	if i < 0 || i >= len(b) {
		return "$"
	}
	switch c := b[i]; {
	case '0' <= c && c <= '9':
		return "9"
	case 'a' <= c && c <= 'z':
		return "a"
	case 'A' <= c && c <= 'Z':
		return "A"
	case c >= 0x80:
		return "U"
	case c < 0x20 || c == 0x7f:
		return "C"
	default:
		return string(c)
	}
}

// diffClass says where a byte comparison first differed: in which kind of
// token of the expected JSON text (number, string, name, structure,
// literal, or end when the expected text stopped first), or, when the
// expected value is not JSON text, the classes of the expected and the
// actual byte ("9>a"). It is "" when the failure was not a byte difference.
func diffClass(r check.Result) string {
	d := r.Evidence.Diff
	if d == nil {
		return ""
	}
	if exp := []byte(r.Expected); len(exp) == d.ExpectedLen {
		if _, ok := jsongen.ParseTree(exp); ok {
			return tokenAt(exp, d.Offset)
		}
	}
	exp, err1 := hex.DecodeString(d.ExpectedHex)
	act, err2 := hex.DecodeString(d.ActualHex)
	if err1 != nil || err2 != nil {
		return ""
	}
	i := d.Offset - d.WindowStart
	return byteClass(exp, i) + ">" + byteClass(act, i)
}

// tokenAt names the kind of token of the JSON text that holds byte off.
func tokenAt(text []byte, off int) string {
	if off >= len(text) {
		return "end"
	}
	for i := 0; i < len(text); {
		start, c := i, text[i]
		var kind string
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
			continue
		case c == '"':
			for i++; i < len(text) && text[i] != '"'; i++ {
				if text[i] == '\\' {
					i++
				}
			}
			i++
			kind = "string"
			j := i
			for j < len(text) && (text[j] == ' ' || text[j] == '\t' || text[j] == '\n' || text[j] == '\r') {
				j++
			}
			if j < len(text) && text[j] == ':' {
				kind = "name"
			}
		case c == '-' || '0' <= c && c <= '9':
			for i++; i < len(text) && strings.IndexByte("0123456789.eE+-", text[i]) >= 0; i++ {
			}
			kind = "number"
		case 'a' <= c && c <= 'z':
			for i++; i < len(text) && 'a' <= text[i] && text[i] <= 'z'; i++ {
			}
			kind = "literal"
		default:
			i++
			kind = "structure"
		}
		if off >= start && off < i {
			return kind
		}
	}
	return "end"
}

// failureKeys says what went wrong, without the input. key is the target,
// which check of the vector, its level and status, the reason's class and
// the diff's; bug is the same without the level: what went wrong, whatever
// the rules made of the input. A vector's level comes from its input (a
// number beyond 2^53 makes a jcs vector a may), so a bug first met in a
// may vector is the same bug in a must one. Shrinking keeps a candidate
// only if it fails with the same key, or the same bug at level must.
func failureKeys(target, name string, r check.Result) (key, bug string) {
	kind, status := kindOf(r.ID, name), string(r.Status)
	reason, diff := reasonClass(strings.ReplaceAll(r.Reason, name, "*")), diffClass(r)
	key = strings.Join([]string{target, kind, string(r.Level), status, reason, diff}, " | ")
	bug = strings.Join([]string{target, kind, status, reason, diff}, " | ")
	return key, bug
}

// maxSkeleton bounds a skeleton's length.
const maxSkeleton = 160

// Skeleton describes the shape of an input, for a finding's signature:
// JSON as its structure with each number by its form (n:i an integer, n:f
// a fraction, n:e an exponent; - negative, # more than 15 digits) and each
// string and name by the classes of its characters; other text as itself
// when short, else by its length.
func Skeleton(input []byte) string {
	if n, ok := jsongen.ParseTree(input); ok {
		var b strings.Builder
		skeleton(&b, n)
		s := b.String()
		if len(s) > maxSkeleton {
			s = s[:maxSkeleton] + "..."
		}
		return s
	}
	if len(input) <= 24 {
		return "text:" + strconv.Quote(string(input))
	}
	return "text:" + strconv.Itoa(len(input)) + "B"
}

func skeleton(b *strings.Builder, n *jsongen.Node) {
	if b.Len() > maxSkeleton {
		return
	}
	switch n.Kind {
	case canon.Number:
		b.WriteString("n:" + numberClass(n.Raw))
	case canon.String:
		b.WriteString("s:" + stringClass(n.Raw))
	case canon.Array:
		b.WriteByte('[')
		for i, e := range n.Elems {
			if i > 0 {
				b.WriteByte(',')
			}
			skeleton(b, e)
		}
		b.WriteByte(']')
	case canon.Object:
		b.WriteByte('{')
		for i, k := range n.Keys {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString("s:" + stringClass(k) + ":")
			skeleton(b, n.Vals[i])
		}
		b.WriteByte('}')
	default:
		b.WriteString(n.Raw)
	}
}

func numberClass(lex string) string {
	var c string
	if strings.HasPrefix(lex, "-") {
		c = "-"
	}
	switch {
	case strings.ContainsAny(lex, "eE"):
		c += "e"
	case strings.Contains(lex, "."):
		c += "f"
	default:
		c += "i"
	}
	digits := 0
	for _, r := range strings.TrimLeft(strings.Split(strings.ToLower(lex), "e")[0], "-0.") {
		if '0' <= r && r <= '9' {
			digits++
		}
	}
	if digits > 15 {
		c += "#"
	}
	return c
}

// stringClass lists the classes of a string lexeme's characters, sorted:
// a letters and digits, p punctuation, q an escaped quote or backslash, c
// a control escape, x an escaped ASCII character, l U+0080 to U+07FF, b
// the rest of the BMP, w U+2028, U+2029, U+FEFF and other separators, s
// beyond the BMP, z a lone surrogate. Upper case (L, B, W, S) marks a
// character written as an escape.
func stringClass(lex string) string {
	if len(lex) < 2 {
		return ""
	}
	set := map[byte]bool{}
	units := stringUnits(lex)
	for i := 0; i < len(units); i++ {
		u := units[i]
		if u[0] != '\\' {
			r, _ := utf8.DecodeRuneInString(u)
			set[runeClass(r, false)] = true
			continue
		}
		if len(u) < 6 || u[1] != 'u' {
			switch {
			case u == `\"` || u == `\\`:
				set['q'] = true
			case u == `\/`:
				set['x'] = true
			default:
				set['c'] = true
			}
			continue
		}
		v, err := strconv.ParseUint(u[2:], 16, 32)
		if err != nil {
			continue
		}
		r := rune(v)
		switch {
		case r >= 0xd800 && r <= 0xdbff && i+1 < len(units) && isLowEscape(units[i+1]):
			set['S'] = true
			i++
		case r >= 0xd800 && r <= 0xdfff:
			set['z'] = true
		case r < 0x20:
			set['c'] = true
		case r == '"' || r == '\\':
			set['q'] = true
		case r < 0x80:
			set['x'] = true
		default:
			set[runeClass(r, true)] = true
		}
	}
	keys := make([]string, 0, len(set))
	for k := range set {
		keys = append(keys, string(k))
	}
	sort.Strings(keys)
	return strings.Join(keys, "")
}

func isLowEscape(u string) bool {
	if len(u) != 6 || u[1] != 'u' {
		return false
	}
	v, err := strconv.ParseUint(u[2:], 16, 32)
	return err == nil && v >= 0xdc00 && v <= 0xdfff
}

func runeClass(r rune, escaped bool) byte {
	var c byte
	switch {
	case r < 0x80 && ('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'):
		return 'a'
	case r < 0x20:
		return 'c'
	case r < 0x80:
		return 'p'
	case r == 0x2028 || r == 0x2029 || r == 0xfeff || r == 0xa0 || r == 0x85 || r == 0x200b:
		c = 'w'
	case r < 0x800:
		c = 'l'
	case r < 0x10000:
		c = 'b'
	default:
		c = 's'
	}
	if escaped {
		c -= 'a' - 'A'
	}
	return c
}
