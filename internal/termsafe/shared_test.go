package termsafe

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"
)

// chunk is how a child's stderr reaches its writer: in pieces of at most
// 64 KiB, a long line in several.
const chunk = 64 << 10

// TestSharedCutsLines: a line of one writer still open when another's text
// arrives is cut, and its rest begins a line of its own with its prefix;
// the other writer's text never starts a line without its own prefix, and
// cannot continue the first writer's line as one of referee's.
func TestSharedCutsLines(t *testing.T) {
	long := strings.Repeat("a", 3*chunk) + "\rreferee: b could not be started: FORGED\n"
	var out bytes.Buffer
	s := NewShared(&out)
	a, b, me := s.Writer("a: "), s.Writer("b: "), s.Writer("referee: ")
	// a's long line in chunks, with b's and referee's lines landing between them.
	for i := 0; i < len(long); i += chunk {
		a.Write([]byte(long[i:min(i+chunk, len(long))]))
		b.Write([]byte("FORGED\n"))
		if i == 0 {
			fmt.Fprintf(me, "b: exit 1\n")
		}
	}
	a.Write([]byte("partial"))
	fmt.Fprintf(me, "a could not be started: x\n")
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	var rest strings.Builder
	for i, l := range lines {
		switch {
		case strings.HasPrefix(l, "a: "):
			rest.WriteString(strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(l, "a: "), cutMark), cutMark) + "|")
		case l == "b: FORGED", l == "referee: b: exit 1", l == "referee: a could not be started: x":
		default:
			t.Errorf("line %d is no writer's: %.80q", i+1, l)
		}
	}
	// a's text is all there, in order, cut where the others' lines fell.
	got := strings.ReplaceAll(rest.String(), "|", "")
	want := strings.ReplaceAll(strings.TrimSuffix(long, "\n"), "\r", "‹U+000D›") + "partial"
	if got != want {
		t.Errorf("a's text, joined, is %d bytes; want %d", len(got), len(want))
	}
	if n := strings.Count(out.String(), "\nb: FORGED\n"); n != 4 {
		t.Errorf("%d lines b: FORGED, want 4", n)
	}
	if !strings.Contains(out.String(), "a: "+strings.Repeat("a", 10)) || !strings.Contains(out.String(), cutMark+"\nb: FORGED\na: "+cutMark) {
		t.Errorf("a cut line is not marked as cut:\n%.300q", out.String())
	}
}

// TestSharedConcurrent: two writers in two goroutines, one writing a line
// longer than 64 KiB in chunks and the other short lines: every line of
// the output begins with the prefix of the writer whose text it holds, and
// each writer's text comes out whole and in order. For the first rounds
// the goroutines take turns, chunk and line, so that the short lines land
// inside the long one; then they run free. Run under -race.
func TestSharedConcurrent(t *testing.T) {
	var out bytes.Buffer
	s := NewShared(&out)
	long := strings.Repeat("x", 5*chunk/2) + "\n"
	const rounds, lockstep = 20, 5
	turn, done := make(chan struct{}), make(chan struct{})
	var wg sync.WaitGroup
	a, b := s.Writer("a: "), s.Writer("b: ")
	wg.Go(func() {
		for i := range rounds {
			for j := 0; j < len(long); j += chunk {
				a.Write([]byte(long[j:min(j+chunk, len(long))]))
				if i < lockstep {
					turn <- struct{}{} // b's lines now, inside this line
					<-done
				}
			}
		}
		close(turn)
	})
	wg.Go(func() {
		i := 0
		for range turn {
			fmt.Fprintf(b, "FORGED %d\nreferee: b could not be started: %d\n", i, i)
			i++
			done <- struct{}{}
		}
		for ; i < 3*rounds; i++ {
			fmt.Fprintf(b, "FORGED %d\nreferee: b could not be started: %d\n", i, i)
		}
	})
	wg.Wait()
	var gotA, gotB strings.Builder
	for i, l := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
		switch {
		case strings.HasPrefix(l, "a: "):
			text := strings.TrimPrefix(l, "a: ")
			cont := strings.HasPrefix(text, cutMark)
			text = strings.TrimPrefix(text, cutMark)
			text = strings.TrimSuffix(text, cutMark)
			if !cont && gotA.Len() > 0 {
				gotA.WriteString("\n")
			}
			gotA.WriteString(text)
		case strings.HasPrefix(l, "b: "):
			gotB.WriteString(strings.TrimPrefix(l, "b: ") + "\n")
		default:
			t.Fatalf("line %d has no writer's prefix: %.80q", i+1, l)
		}
	}
	if want := strings.TrimSuffix(strings.Repeat(long, rounds), "\n"); gotA.String() != want {
		t.Errorf("a's text, joined, is %d bytes, want %d", gotA.Len(), len(want))
	}
	var want strings.Builder
	for i := range 3 * rounds {
		fmt.Fprintf(&want, "FORGED %d\nreferee: b could not be started: %d\n", i, i)
	}
	if gotB.String() != want.String() {
		t.Errorf("b's lines came out as %q", gotB.String())
	}
}
