package child

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
)

// FuzzChunker: however the stream is cut into pieces, the chunks add up
// to it, each at most chunkSize bytes, and each but the last ends at a
// newline or is chunkSize long, with no newline inside.
func FuzzChunker(f *testing.F) {
	f.Add([]byte("a\nbc\n\nd"), uint8(3))
	f.Add([]byte("x\r\n\ny\n"), uint8(0))
	f.Add([]byte{}, uint8(1))
	f.Fuzz(func(t *testing.T, in []byte, piece uint8) {
		size := int(piece) + 1
		var chunks [][]byte
		sink := func(c []byte) { chunks = append(chunks, bytes.Clone(c)) }
		var c chunker
		for rest := in; len(rest) > 0; {
			k := min(len(rest), size)
			c.feed(rest[:k], sink)
			rest = rest[k:]
		}
		c.flush(sink)
		if got := bytes.Join(chunks, nil); !bytes.Equal(got, in) {
			t.Fatalf("chunks add up to %q, not %q", got, in)
		}
		for i, ch := range chunks {
			if len(ch) == 0 || len(ch) > chunkSize {
				t.Fatalf("chunk %d of %d bytes", i, len(ch))
			}
			if nl := bytes.IndexByte(ch, '\n'); nl >= 0 && nl != len(ch)-1 {
				t.Fatalf("chunk %d has a newline inside: %q", i, ch)
			}
			if i < len(chunks)-1 && ch[len(ch)-1] != '\n' && len(ch) != chunkSize {
				t.Fatalf("chunk %d of %d bytes ends neither a line nor a full chunk", i, len(ch))
			}
		}
	})
}

// FuzzAppendLine: lines read with reads cut short at random (a read
// deadline, as InterruptRead makes) are the lines read without.
func FuzzAppendLine(f *testing.F) {
	f.Add([]byte("ab\r\ncd\n\nlast"), []byte{1, 0, 2})
	f.Add([]byte(strings.Repeat("z", 40)+"\nx\n"), []byte{5, 5, 5})
	f.Fuzz(func(t *testing.T, in []byte, cuts []byte) {
		const max = 32
		read := func(r *bufio.Reader, cut bool) (lines []string, last error) {
			var line []byte
			for {
				var err error
				line, err = appendLine(line, r, max)
				switch {
				case cut && errors.Is(err, os.ErrDeadlineExceeded):
					continue
				case err != nil:
					return append(lines, string(line)), err
				}
				lines = append(lines, string(line))
				line = nil
			}
		}
		want, wantErr := read(bufio.NewReaderSize(bytes.NewReader(in), 16), false)
		steps := script{}
		rest := in
		for _, c := range cuts {
			k := min(len(rest), int(c))
			steps = append(steps, string(rest[:k]), os.ErrDeadlineExceeded)
			rest = rest[k:]
		}
		if len(rest) > 0 {
			steps = append(steps, string(rest))
		}
		got, gotErr := read(bufio.NewReaderSize(&steps, 16), true)
		same := strings.Join(got, "|") == strings.Join(want, "|")
		if errors.Is(wantErr, ErrLineTooLong) && len(got) == len(want) {
			// How far past the cap a refused line was read depends on
			// where the reads ended: compare the cap's worth.
			g, w := got[len(got)-1], want[len(want)-1]
			same = slices.Equal(got[:len(got)-1], want[:len(want)-1]) &&
				len(g) > max && len(g) <= max+16 && g[:max+1] == w[:max+1]
		}
		if !errors.Is(gotErr, wantErr) || !same {
			t.Fatalf("cut reads gave %q, %v; whole reads %q, %v", got, gotErr, want, wantErr)
		}
	})
}
