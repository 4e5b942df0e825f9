package cgp

import (
	"bytes"
	"fmt"
	"math/big"
)

// The reasons a provenance range addresses nothing a verifier can digest (F17).
const (
	RangeUnrecognised = "unrecognised"   // not a line-range of the grammar; never a whole-resource fallback
	RangeInverted     = "inverted"       // the end precedes the start
	RangeStartPastEnd = "start_past_end" // the range starts past the resource's last line
)

// RangeError is a range that addresses no bytes, with its reason.
type RangeError struct {
	Reason string // one of the Range constants
	Range  string
}

func (e *RangeError) Error() string { return fmt.Sprintf("range %q: %s", e.Range, e.Reason) }

// ParseLineRange reads line-range = "L" line-number ["-" line-number], with
// line-number = %x31-39 *DIGIT. The numbers may be larger than any integer
// type (an end clamps later); end is nil when the range names one line.
func ParseLineRange(r string) (start, end *big.Int, err error) {
	bad := &RangeError{Reason: RangeUnrecognised, Range: r}
	rest, ok := bytes.CutPrefix([]byte(r), []byte("L"))
	if !ok {
		return nil, nil, bad
	}
	first, second, dash := bytes.Cut(rest, []byte("-"))
	number := func(b []byte) *big.Int {
		if len(b) == 0 || b[0] < '1' || b[0] > '9' {
			return nil
		}
		for _, c := range b[1:] {
			if c < '0' || c > '9' {
				return nil
			}
		}
		n, _ := new(big.Int).SetString(string(b), 10)
		return n
	}
	if start = number(first); start == nil {
		return nil, nil, bad
	}
	if !dash {
		return start, nil, nil
	}
	if end = number(second); end == nil {
		return nil, nil, bad
	}
	return start, end, nil
}

// Lines splits a resource into lines on LF only, each line keeping its LF;
// CR is content, and a final LF opens no new line.
func Lines(resource []byte) [][]byte {
	var lines [][]byte
	for len(resource) > 0 {
		i := bytes.IndexByte(resource, '\n')
		if i < 0 {
			lines = append(lines, resource)
			break
		}
		lines = append(lines, resource[:i+1])
		resource = resource[i+1:]
	}
	return lines
}

// RangeBytes returns the exact bytes a provenance range addresses: the whole
// resource when there is no range, else its lines start to end inclusive, the
// end clamped to the last line. Anything else is a *RangeError.
func RangeBytes(resource []byte, r string, hasRange bool) ([]byte, error) {
	if !hasRange {
		return resource, nil
	}
	start, end, err := ParseLineRange(r)
	if err != nil {
		return nil, err
	}
	if end == nil {
		end = start
	}
	if end.Cmp(start) < 0 {
		return nil, &RangeError{Reason: RangeInverted, Range: r}
	}
	lines := Lines(resource)
	n := big.NewInt(int64(len(lines)))
	if start.Cmp(n) > 0 {
		return nil, &RangeError{Reason: RangeStartPastEnd, Range: r}
	}
	if end.Cmp(n) > 0 {
		end = n
	}
	return bytes.Join(lines[start.Int64()-1:end.Int64()], nil), nil
}
