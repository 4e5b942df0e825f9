package frame

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
)

// hdr returns a 4-byte big-endian header declaring n.
func hdr(n uint32) []byte {
	return []byte{byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}
}

// cat concatenates byte slices and strings into one slice.
func cat(parts ...any) []byte {
	var b []byte
	for _, p := range parts {
		switch v := p.(type) {
		case []byte:
			b = append(b, v...)
		case string:
			b = append(b, v...)
		default:
			panic("cat: bad part")
		}
	}
	return b
}

// streamCase describes a byte stream and what decoding it must yield.
type streamCase struct {
	name     string
	in       []byte
	max      int
	want     []string // payloads decoded before any error
	err      error    // wanted sentinel, nil for a clean end
	offset   int64    // wanted Error.Offset
	declared int64    // wanted Error.Declared
}

var streamCases = []streamCase{
	{name: "empty stream", in: nil, max: 10},
	{name: "empty payload", in: hdr(0), max: 10, want: []string{""}},
	{name: "one frame", in: cat(hdr(3), "abc"), max: 10, want: []string{"abc"}},
	{name: "several frames", in: cat(hdr(1), "a", hdr(0), hdr(3), "bcd"), max: 10, want: []string{"a", "", "bcd"}},
	{name: "max exactly equal", in: cat(hdr(5), "hello"), max: 5, want: []string{"hello"}},
	{name: "max plus one", in: cat(hdr(6), "hello!"), max: 5, err: ErrTooLarge, offset: 0, declared: 6},
	{name: "too large second frame", in: cat(hdr(2), "ab", hdr(9), "123456789"), max: 5, want: []string{"ab"}, err: ErrTooLarge, offset: 6, declared: 9},
	{name: "truncated header 1", in: []byte{0}, max: 10, err: ErrTruncatedHeader, declared: -1},
	{name: "truncated header 2", in: []byte{0, 0}, max: 10, err: ErrTruncatedHeader, declared: -1},
	{name: "truncated header 3", in: []byte{0, 0, 0}, max: 10, err: ErrTruncatedHeader, declared: -1},
	{name: "truncated header after frame", in: cat(hdr(1), "x", []byte{0, 0}), max: 10, want: []string{"x"}, err: ErrTruncatedHeader, offset: 5, declared: -1},
	{name: "truncated body", in: cat(hdr(5), "ab"), max: 10, err: ErrTruncatedBody, declared: 5},
	{name: "truncated body no bytes", in: hdr(5), max: 10, err: ErrTruncatedBody, declared: 5},
	{name: "truncated body after frame", in: cat(hdr(0), hdr(3), "a"), max: 10, want: []string{""}, err: ErrTruncatedBody, offset: 4, declared: 3},
	{name: "over-long declared no body", in: hdr(0xFFFFFFFF), max: 4 << 20, err: ErrTooLarge, declared: 0xFFFFFFFF},
	{name: "over-long declared short body", in: cat(hdr(100), "abc"), max: 10, err: ErrTooLarge, declared: 100},
	{name: "max zero is u32 limit", in: hdr(0xFFFFFFFF), max: 0, err: ErrTruncatedBody, declared: 0xFFFFFFFF},
	{name: "max negative is u32 limit", in: cat(hdr(2), "ok"), max: -1, want: []string{"ok"}},
}

// checkErr verifies err against the wanted sentinel, offset and declared length.
func checkErr(t *testing.T, err error, tc streamCase) {
	t.Helper()
	if tc.err == nil {
		if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
		return
	}
	if !errors.Is(err, tc.err) {
		t.Fatalf("error = %v, want %v", err, tc.err)
	}
	var fe *Error
	if !errors.As(err, &fe) {
		t.Fatalf("error %v is not *Error", err)
	}
	if fe.Offset != tc.offset || fe.Declared != tc.declared {
		t.Fatalf("Offset, Declared = %d, %d; want %d, %d", fe.Offset, fe.Declared, tc.offset, tc.declared)
	}
	if !strings.HasPrefix(err.Error(), "frame: at offset ") {
		t.Fatalf("message %q lacks prefix", err.Error())
	}
}

// checkPayloads compares decoded payloads with the wanted strings.
func checkPayloads(t *testing.T, got [][]byte, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d payloads %q, want %d %q", len(got), got, len(want), want)
	}
	for i := range got {
		if string(got[i]) != want[i] {
			t.Fatalf("payload %d = %q, want %q", i, got[i], want[i])
		}
	}
}

func TestDecodeAll(t *testing.T) {
	for _, tc := range streamCases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := DecodeAll(tc.in, tc.max)
			checkErr(t, err, tc)
			checkPayloads(t, got, tc.want)
		})
	}
}

// readers wraps a byte slice in the reader variants the Decoder must handle.
var readers = []struct {
	name string
	wrap func([]byte) io.Reader
}{
	{"bytes", func(b []byte) io.Reader { return bytes.NewReader(b) }},
	{"one byte", func(b []byte) io.Reader { return iotest.OneByteReader(bytes.NewReader(b)) }},
	{"data err", func(b []byte) io.Reader { return iotest.DataErrReader(bytes.NewReader(b)) }},
	{"half", func(b []byte) io.Reader { return iotest.HalfReader(bytes.NewReader(b)) }},
}

func TestDecoder(t *testing.T) {
	for _, rd := range readers {
		for _, tc := range streamCases {
			t.Run(rd.name+"/"+tc.name, func(t *testing.T) {
				d := NewDecoder(rd.wrap(tc.in), tc.max)
				var got [][]byte
				var err error
				for {
					var p []byte
					p, err = d.Next()
					if err != nil {
						break
					}
					got = append(got, p)
				}
				checkPayloads(t, got, tc.want)
				if tc.err == nil {
					if err != io.EOF {
						t.Fatalf("end error = %v, want io.EOF", err)
					}
					if d.Offset() != int64(len(tc.in)) {
						t.Fatalf("Offset = %d, want %d", d.Offset(), len(tc.in))
					}
				} else {
					checkErr(t, err, tc)
				}
				if _, again := d.Next(); again != err {
					t.Fatalf("error not sticky: %v then %v", err, again)
				}
			})
		}
	}
}

func TestSplit(t *testing.T) {
	tests := []struct {
		name     string
		in       []byte
		max      int
		payload  string
		rest     string
		err      error
		declared int64
	}{
		{name: "empty input", in: nil, max: 10, err: ErrTruncatedHeader, declared: -1},
		{name: "empty payload", in: hdr(0), max: 10},
		{name: "one frame", in: cat(hdr(3), "abc"), max: 10, payload: "abc"},
		{name: "frame with rest", in: cat(hdr(1), "a", "tail"), max: 10, payload: "a", rest: "tail"},
		{name: "max exactly equal", in: cat(hdr(4), "abcd"), max: 4, payload: "abcd"},
		{name: "max plus one", in: cat(hdr(5), "abcde"), max: 4, err: ErrTooLarge, declared: 5},
		{name: "truncated header 3", in: []byte{1, 2, 3}, max: 10, err: ErrTruncatedHeader, declared: -1},
		{name: "truncated body", in: cat(hdr(4), "abc"), max: 10, err: ErrTruncatedBody, declared: 4},
		{name: "over-long no body", in: hdr(0xFFFFFFFF), max: 4 << 20, err: ErrTooLarge, declared: 0xFFFFFFFF},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, rest, err := Split(tc.in, tc.max)
			checkErr(t, err, streamCase{err: tc.err, declared: tc.declared})
			if err != nil {
				if !bytes.Equal(rest, tc.in) {
					t.Fatalf("rest on error = %q, want input", rest)
				}
				return
			}
			if string(p) != tc.payload || string(rest) != tc.rest {
				t.Fatalf("Split = %q, %q; want %q, %q", p, rest, tc.payload, tc.rest)
			}
			if cap(p) != len(p) {
				t.Fatalf("payload cap %d exceeds len %d", cap(p), len(p))
			}
		})
	}
}

func TestAppend(t *testing.T) {
	tests := []struct {
		name    string
		dst     string
		payload string
		max     int
		want    []byte
		err     error
	}{
		{name: "empty payload", payload: "", max: 10, want: hdr(0)},
		{name: "one frame", payload: "abc", max: 10, want: cat(hdr(3), "abc")},
		{name: "onto existing", dst: "xy", payload: "abc", max: 10, want: cat("xy", hdr(3), "abc")},
		{name: "max exactly equal", payload: "abcde", max: 5, want: cat(hdr(5), "abcde")},
		{name: "max plus one", dst: "xy", payload: "abcdef", max: 5, want: []byte("xy"), err: ErrTooLarge},
		{name: "max zero", payload: "abc", max: 0, want: cat(hdr(3), "abc")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Append([]byte(tc.dst), []byte(tc.payload), tc.max)
			if !bytes.Equal(got, tc.want) {
				t.Fatalf("Append = %x, want %x", got, tc.want)
			}
			enc, encErr := Encode([]byte(tc.payload), tc.max)
			if tc.err == nil {
				if err != nil || encErr != nil {
					t.Fatalf("unexpected errors %v, %v", err, encErr)
				}
				if !bytes.Equal(enc, tc.want[len(tc.dst):]) {
					t.Fatalf("Encode = %x, want %x", enc, tc.want[len(tc.dst):])
				}
				return
			}
			for _, e := range []error{err, encErr} {
				if !errors.Is(e, tc.err) {
					t.Fatalf("error = %v, want %v", e, tc.err)
				}
			}
			var fe *Error
			if !errors.As(err, &fe) || fe.Offset != int64(len(tc.dst)) || fe.Declared != int64(len(tc.payload)) || fe.Max != tc.max {
				t.Fatalf("Append error = %#v", err)
			}
			if enc != nil {
				t.Fatalf("Encode returned %x on error", enc)
			}
		})
	}
}

func TestErrorMessage(t *testing.T) {
	tests := []struct {
		err  *Error
		want string
	}{
		{&Error{Offset: 12, Declared: 5000000, Max: 4194304, Err: ErrTooLarge}, "frame: at offset 12: declared length 5000000 exceeds maximum 4194304"},
		{&Error{Offset: 3, Declared: -1, Max: 10, Err: ErrTruncatedHeader}, "frame: at offset 3: truncated header"},
		{&Error{Offset: 0, Declared: 7, Max: 10, Err: ErrTruncatedBody}, "frame: at offset 0: truncated body (declared length 7)"},
		{&Error{Offset: 8, Declared: -1, Max: 10, Err: iotest.ErrTimeout}, "frame: at offset 8: timeout"},
	}
	for _, tc := range tests {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("Error() = %q, want %q", got, tc.want)
		}
	}
}

func TestDecoderReadError(t *testing.T) {
	tests := []struct {
		name   string
		r      io.Reader
		offset int64
	}{
		{"error at start", iotest.ErrReader(iotest.ErrTimeout), 0},
		{"error in header", io.MultiReader(bytes.NewReader([]byte{0, 0}), iotest.ErrReader(iotest.ErrTimeout)), 0},
		{"error in body", io.MultiReader(bytes.NewReader(cat(hdr(1), "a", hdr(3), "b")), iotest.ErrReader(iotest.ErrTimeout)), 5},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := NewDecoder(tc.r, 10)
			var err error
			for err == nil {
				_, err = d.Next()
			}
			var fe *Error
			if !errors.Is(err, iotest.ErrTimeout) || !errors.As(err, &fe) || fe.Offset != tc.offset {
				t.Fatalf("error = %v, want timeout at offset %d", err, tc.offset)
			}
		})
	}
}

// errWrappedEOF is an io.EOF wrapped the way some readers report it.
var errWrappedEOF = fmt.Errorf("source closed: %w", io.EOF)

func TestDecoderWrappedEOF(t *testing.T) {
	tests := []struct {
		name string
		in   []byte
		want error
	}{
		{"between frames", cat(hdr(1), "a"), io.EOF},
		{"inside header", cat(hdr(1), "a", []byte{0}), ErrTruncatedHeader},
		{"inside body", cat(hdr(2), "a"), ErrTruncatedBody},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := NewDecoder(io.MultiReader(bytes.NewReader(tc.in), iotest.ErrReader(errWrappedEOF)), 10)
			var err error
			for err == nil {
				_, err = d.Next()
			}
			if tc.want == io.EOF && err != io.EOF {
				t.Fatalf("error = %v, want io.EOF itself", err)
			}
			if !errors.Is(err, tc.want) {
				t.Fatalf("error = %v, want %v", err, tc.want)
			}
		})
	}
}

// allocatedBytes reports the bytes allocated while running f.
func allocatedBytes(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

func TestHugeDeclaredLengthDoesNotAllocate(t *testing.T) {
	tests := []struct {
		name string
		in   []byte
		max  int
		err  error
	}{
		{"over max", hdr(0xFFFFFFFF), 4 << 20, ErrTooLarge},
		{"within u32 limit but absent", cat(hdr(0xFFFFFFFF), "only a little"), 0, ErrTruncatedBody},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			n := allocatedBytes(func() {
				for range 10 {
					_, err = NewDecoder(bytes.NewReader(tc.in), tc.max).Next()
				}
			})
			if !errors.Is(err, tc.err) {
				t.Fatalf("error = %v, want %v", err, tc.err)
			}
			if n > 10*(readChunk+4096) {
				t.Fatalf("allocated %d bytes for 10 decodes", n)
			}
		})
	}
	allocs := testing.AllocsPerRun(100, func() {
		_, _ = NewDecoder(bytes.NewReader(hdr(0xFFFFFFFF)), 4<<20).Next()
	})
	if allocs > 4 {
		t.Fatalf("%v allocations per rejected header", allocs)
	}
}

// sentinel returns the framing sentinel err wraps, io.EOF, or err itself.
func sentinel(err error) error {
	for _, s := range []error{ErrTruncatedHeader, ErrTruncatedBody, ErrTooLarge, io.EOF} {
		if errors.Is(err, s) {
			return s
		}
	}
	return err
}

func FuzzDecoder(f *testing.F) {
	for _, tc := range streamCases {
		f.Add(tc.in, uint8(tc.max))
	}
	f.Add(cat(hdr(1), "a", hdr(2), "bc", hdr(0)), uint8(2))
	f.Fuzz(func(t *testing.T, data []byte, m uint8) {
		max := int(m) // 0 means the u32 limit
		all, allErr := DecodeAll(data, max)

		d := NewDecoder(iotest.OneByteReader(bytes.NewReader(data)), max)
		var got [][]byte
		var err error
		for {
			var p []byte
			p, err = d.Next()
			if err != nil {
				break
			}
			if len(p) > max && max > 0 {
				t.Fatalf("payload of %d bytes exceeds max %d", len(p), max)
			}
			got = append(got, p)
		}
		if len(got) != len(all) {
			t.Fatalf("Decoder gave %d payloads, DecodeAll %d", len(got), len(all))
		}
		for i := range got {
			if !bytes.Equal(got[i], all[i]) {
				t.Fatalf("payload %d differs: %q vs %q", i, got[i], all[i])
			}
		}
		consumed := int64(len(data))
		if allErr == nil {
			if err != io.EOF {
				t.Fatalf("DecodeAll succeeded, Decoder ended with %v", err)
			}
		} else {
			if sentinel(err) != sentinel(allErr) {
				t.Fatalf("Decoder error %v, DecodeAll error %v", err, allErr)
			}
			var a, b *Error
			if !errors.As(err, &a) || !errors.As(allErr, &b) || a.Offset != b.Offset || a.Declared != b.Declared {
				t.Fatalf("error details differ: %v vs %v", err, allErr)
			}
			consumed = b.Offset
		}
		var re []byte
		for _, p := range got {
			var encErr error
			re, encErr = Append(re, p, max)
			if encErr != nil {
				t.Fatalf("re-encoding: %v", encErr)
			}
		}
		if !bytes.Equal(re, data[:consumed]) {
			t.Fatalf("re-encoding gave %x, want prefix %x", re, data[:consumed])
		}
	})
}

func BenchmarkDecoder(b *testing.B) {
	for _, size := range []int{16, 1 << 10, 64 << 10, 1 << 20} {
		var stream []byte
		payload := bytes.Repeat([]byte{'x'}, size)
		for len(stream) < 4<<20 {
			stream, _ = Append(stream, payload, 0)
		}
		b.Run(byteSize(size), func(b *testing.B) {
			b.SetBytes(int64(len(stream)))
			b.ReportAllocs()
			r := bytes.NewReader(stream)
			for b.Loop() {
				r.Reset(stream)
				d := NewDecoder(r, 0)
				for {
					if _, err := d.Next(); err != nil {
						if err != io.EOF {
							b.Fatal(err)
						}
						break
					}
				}
			}
		})
	}
}

// byteSize names a size in bytes for a benchmark.
func byteSize(n int) string {
	switch {
	case n >= 1<<20:
		return strconv.Itoa(n>>20) + "MiB"
	case n >= 1<<10:
		return strconv.Itoa(n>>10) + "KiB"
	}
	return strconv.Itoa(n) + "B"
}
