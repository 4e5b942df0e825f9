//go:build unix

package child

import "syscall"

// rawWrite is one write(2) loop of tryWrite; it lives in the Process, so
// the callback handed to the runtime allocates nothing per write.
type rawWrite struct {
	b   []byte
	n   int
	err error
	fn  func(fd uintptr) bool // write, bound once
}

func (w *rawWrite) write(fd uintptr) bool {
	for w.n < len(w.b) {
		k, err := syscall.Write(int(fd), w.b[w.n:])
		if k > 0 {
			w.n += k
		}
		switch {
		case err == syscall.EINTR:
			continue
		case err == syscall.EAGAIN:
		case err != nil:
			w.err = err
		case k > 0:
			continue
		}
		break
	}
	return true // never wait here: the caller waits, with a deadline
}

// tryWrite writes as much of b as stdin takes without waiting; the caller
// holds writeMu.
func (p *Process) tryWrite(b []byte) (n int, err error) {
	w := &p.rw
	if w.fn == nil {
		w.fn = w.write
	}
	w.b, w.n, w.err = b, 0, nil
	werr := p.raw.Write(w.fn)
	n, err = w.n, w.err
	w.b = nil
	if err == nil {
		err = werr
	}
	return n, err
}
