//go:build !unix

package child

// rawWrite is unused: see tryWrite.
type rawWrite struct{}

// tryWrite writes nothing: the caller writes with a deadline.
func (p *Process) tryWrite(b []byte) (int, error) { return 0, nil }
