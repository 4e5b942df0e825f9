package childlog

import (
	"bytes"
	"strings"
	"testing"
)

func TestTail(t *testing.T) {
	tl := NewTail(4)
	tl.Write([]byte("abc"))
	tl.Write([]byte("defg"))
	if got := tl.String(); got != "defg" {
		t.Errorf("tail %q", got)
	}
}

func TestCopyBoundsChunks(t *testing.T) {
	in := strings.Repeat("x", 200<<10) + "\nshort\n"
	var chunks [][]byte
	Copy(strings.NewReader(in), func(c []byte) { chunks = append(chunks, bytes.Clone(c)) })
	var all []byte
	for _, c := range chunks {
		if len(c) > 64<<10 {
			t.Fatalf("a chunk of %d bytes", len(c))
		}
		all = append(all, c...)
	}
	if string(all) != in || string(chunks[len(chunks)-1]) != "short\n" {
		t.Errorf("%d chunks do not add up to the input", len(chunks))
	}
}
