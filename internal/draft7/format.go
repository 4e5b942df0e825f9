package draft7

import (
	"net/netip"
	"net/url"
	"strings"
)

// formatCheck returns the check of a string for a format name, or nil
// when the name is not asserted (values of other types always pass).
// Draft-07 makes format assertion optional; these are the names referee's
// earlier validator asserted for draft-07, so a corpus validates the same.
// Other names (idn-email, idn-hostname, unknown ones) are not asserted;
// "regex" is handled apart, since it needs the ECMA-262 engine.
func formatCheck(name string) func(string) bool {
	switch name {
	case "date":
		return isDate
	case "time":
		return isTime
	case "date-time":
		return isDateTime
	case "duration":
		return isDuration
	case "period":
		return isPeriod
	case "email":
		return isEmail
	case "hostname":
		return isHostname
	case "ipv4":
		return isIPv4
	case "ipv6":
		return isIPv6
	case "uri", "iri":
		return isURI
	case "uri-reference", "iri-reference":
		return isURIReference
	case "uri-template":
		return isURITemplate
	case "json-pointer":
		return isJSONPointer
	case "relative-json-pointer":
		return isRelativeJSONPointer
	case "uuid":
		return isUUID
	case "semver":
		return isSemver
	}
	return nil
}

// digits returns how many ASCII digits s starts with.
func digits(s string) int {
	n := 0
	for n < len(s) && isDigit(s[n]) {
		n++
	}
	return n
}

// number reads exactly n digits at the start of s.
func fixedDigits(s string, n int) (int, bool) {
	if len(s) < n || digits(s[:n]) != n {
		return 0, false
	}
	v := 0
	for i := range n {
		v = v*10 + int(s[i]-'0')
	}
	return v, true
}

// isDate is RFC 3339 full-date: YYYY-MM-DD, a day that exists.
func isDate(s string) bool {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return false
	}
	y, ok1 := fixedDigits(s, 4)
	m, ok2 := fixedDigits(s[5:], 2)
	d, ok3 := fixedDigits(s[8:], 2)
	if !ok1 || !ok2 || !ok3 || m < 1 || m > 12 || d < 1 {
		return false
	}
	days := [...]int{31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}[m-1]
	if m == 2 && y%4 == 0 && (y%100 != 0 || y%400 == 0) {
		days = 29
	}
	return d <= days
}

// isTime is RFC 3339 full-time: hh:mm:ss[.frac] and Z or an offset; a
// leap second only at 23:59 UTC.
func isTime(s string) bool {
	if len(s) < 9 || s[2] != ':' || s[5] != ':' {
		return false
	}
	h, ok1 := fixedDigits(s, 2)
	m, ok2 := fixedDigits(s[3:], 2)
	sec, ok3 := fixedDigits(s[6:], 2)
	if !ok1 || !ok2 || !ok3 || h > 23 || m > 59 || sec > 60 {
		return false
	}
	rest := s[8:]
	if strings.HasPrefix(rest, ".") {
		n := digits(rest[1:])
		if n == 0 {
			return false
		}
		rest = rest[1+n:]
	}
	utc := h*60 + m
	switch {
	case rest == "Z" || rest == "z":
	case len(rest) == 6 && (rest[0] == '+' || rest[0] == '-') && rest[3] == ':':
		oh, ok1 := fixedDigits(rest[1:], 2)
		om, ok2 := fixedDigits(rest[4:], 2)
		if !ok1 || !ok2 || oh > 23 || om > 59 {
			return false
		}
		off := oh*60 + om
		if rest[0] == '+' {
			off = -off
		}
		utc = ((utc+off)%1440 + 1440) % 1440
	default:
		return false
	}
	return sec < 60 || utc == 23*60+59
}

// isDateTime is RFC 3339 date-time.
func isDateTime(s string) bool {
	return len(s) > 11 && (s[10] == 'T' || s[10] == 't') && isDate(s[:10]) && isTime(s[11:])
}

// isDuration is RFC 3339 appendix A duration: PnW, or P with date units
// Y, M, D and, after T, time units H, M, S, each in that order.
func isDuration(s string) bool {
	s, ok := strings.CutPrefix(s, "P")
	if !ok || s == "" {
		return false
	}
	if w, ok := strings.CutSuffix(s, "W"); ok {
		return w != "" && digits(w) == len(w)
	}
	date, tm, hasT := strings.Cut(s, "T")
	if hasT && tm == "" {
		return false
	}
	return durationUnits(date, "YMD") && durationUnits(tm, "HMS")
}

// durationUnits reads number-unit pairs from s whose units come from units,
// in order, each at most once.
func durationUnits(s, units string) bool {
	for s != "" {
		n := digits(s)
		if n == 0 || n == len(s) {
			return false
		}
		i := strings.IndexByte(units, s[n])
		if i < 0 {
			return false
		}
		units, s = units[i+1:], s[n+1:]
	}
	return true
}

// isPeriod is an ISO 8601 interval: start/end, start/duration or duration/end.
func isPeriod(s string) bool {
	start, end, ok := strings.Cut(s, "/")
	switch {
	case !ok:
		return false
	case strings.HasPrefix(start, "P"):
		return isDuration(start) && isDateTime(end)
	case strings.HasPrefix(end, "P"):
		return isDateTime(start) && isDuration(end)
	}
	return isDateTime(start) && isDateTime(end)
}

// isEmail is an RFC 5321 mailbox: a dot-atom or quoted local part of at
// most 64 octets, @, and a host name or a bracketed address literal.
func isEmail(s string) bool {
	at := strings.LastIndexByte(s, '@')
	if len(s) > 254 || at < 0 {
		return false
	}
	local, domain := s[:at], s[at+1:]
	if len(local) > 64 {
		return false
	}
	if len(local) >= 2 && local[0] == '"' && local[len(local)-1] == '"' {
		if strings.ContainsAny(local[1:len(local)-1], `"\`) {
			return false
		}
	} else {
		for _, atom := range strings.Split(local, ".") {
			if atom == "" {
				return false
			}
			for i := 0; i < len(atom); i++ {
				if !isAlnum(atom[i]) && !strings.ContainsRune("!#$%&'*+-/=?^_`{|}~", rune(atom[i])) {
					return false
				}
			}
		}
	}
	if lit, ok := strings.CutPrefix(domain, "["); ok {
		lit, ok = strings.CutSuffix(lit, "]")
		if !ok {
			return false
		}
		if v6, ok := strings.CutPrefix(lit, "IPv6:"); ok {
			return isIPv6(v6)
		}
		return isIPv4(lit)
	}
	return isHostname(domain)
}

func isAlnum(c byte) bool {
	return isDigit(c) || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z')
}

// isHostname is an RFC 1123 host name: dot-separated labels of 1 to 63
// letters, digits and hyphens, not starting or ending with a hyphen, 253
// characters at most (a final dot allowed).
func isHostname(s string) bool {
	s = strings.TrimSuffix(s, ".")
	if len(s) > 253 {
		return false
	}
	for _, label := range strings.Split(s, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for i := 0; i < len(label); i++ {
			if !isAlnum(label[i]) && label[i] != '-' {
				return false
			}
		}
	}
	return true
}

// isIPv4 is a dotted quad of decimals 0 to 255 without leading zeros.
func isIPv4(s string) bool {
	parts := strings.Split(s, ".")
	if len(parts) != 4 {
		return false
	}
	for _, p := range parts {
		n := digits(p)
		if n == 0 || n != len(p) || n > 3 || (n > 1 && p[0] == '0') {
			return false
		}
		if v, _ := fixedDigits(p, n); v > 255 {
			return false
		}
	}
	return true
}

// isIPv6 is an RFC 4291 text address, without a zone.
func isIPv6(s string) bool {
	if !strings.Contains(s, ":") {
		return false
	}
	a, err := netip.ParseAddr(s)
	return err == nil && a.Is6() && a.Zone() == ""
}

// parseURI parses s as a URI reference whose host, when it is an IPv6
// literal, is bracketed and well formed.
func parseURI(s string) (*url.URL, bool) {
	u, err := url.Parse(s)
	if err != nil {
		return nil, false
	}
	if h := u.Hostname(); strings.Contains(h, ":") && (!strings.Contains(u.Host, "[") || !isIPv6(h)) {
		return nil, false
	}
	return u, true
}

// isURI is an absolute URI (RFC 3986).
func isURI(s string) bool {
	u, ok := parseURI(s)
	return ok && u.IsAbs()
}

// isURIReference is a URI or a relative reference (RFC 3986).
func isURIReference(s string) bool {
	_, ok := parseURI(s)
	return ok && !strings.Contains(s, `\`)
}

// isURITemplate is an RFC 6570 template: a URI reference whose
// expressions are braced and not nested.
func isURITemplate(s string) bool {
	open := false
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '{':
			if open {
				return false
			}
			open = true
		case '}':
			if !open {
				return false
			}
			open = false
		}
	}
	_, ok := parseURI(s)
	return ok && !open
}

// isJSONPointer is an RFC 6901 pointer: empty, or /-prefixed tokens in
// which ~ is followed by 0 or 1.
func isJSONPointer(s string) bool {
	if s != "" && s[0] != '/' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] == '~' && (i+1 == len(s) || (s[i+1] != '0' && s[i+1] != '1')) {
			return false
		}
	}
	return true
}

// isRelativeJSONPointer is a non-negative integer without leading zeros
// followed by # or a JSON pointer.
func isRelativeJSONPointer(s string) bool {
	n := digits(s)
	if n == 0 || (n > 1 && s[0] == '0') {
		return false
	}
	return s[n:] == "#" || isJSONPointer(s[n:])
}

// isUUID is RFC 4122's 8-4-4-4-12 hexadecimal form.
func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !isDigit(c) && !('a' <= c && c <= 'f') && !('A' <= c && c <= 'F') {
				return false
			}
		}
	}
	return true
}

// isSemver is a Semantic Versioning 2.0.0 version.
func isSemver(s string) bool {
	s, build, hasBuild := strings.Cut(s, "+")
	if hasBuild && !semverIDs(build, false) {
		return false
	}
	s, pre, hasPre := strings.Cut(s, "-")
	if hasPre && !semverIDs(pre, true) {
		return false
	}
	core := strings.Split(s, ".")
	if len(core) != 3 {
		return false
	}
	for _, n := range core {
		if n == "" || digits(n) != len(n) || (len(n) > 1 && n[0] == '0') {
			return false
		}
	}
	return true
}

// semverIDs checks dot-separated identifiers of [0-9A-Za-z-]; numeric
// ones have no leading zero when numeric is set (pre-release).
func semverIDs(s string, numeric bool) bool {
	for _, id := range strings.Split(s, ".") {
		if id == "" {
			return false
		}
		for i := 0; i < len(id); i++ {
			if !isAlnum(id[i]) && id[i] != '-' {
				return false
			}
		}
		if numeric && len(id) > 1 && id[0] == '0' && digits(id) == len(id) {
			return false
		}
	}
	return true
}
