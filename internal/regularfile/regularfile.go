// Package regularfile reads a file someone else named (a provider's
// provenance, a docs folder) only if it is a regular file of bounded size,
// opened without blocking so that a FIFO cannot hang the reader.
package regularfile

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// ErrNotRegular marks a directory, a device, a FIFO or a socket.
var ErrNotRegular = errors.New("not a regular file")

// Read reads f, opened with os.O_RDONLY|NonBlock, when it is a regular file
// of at most limit bytes; what ends the too-big message ("referee reads").
func Read(f *os.File, limit int64, what string) ([]byte, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%w (%s)", ErrNotRegular, st.Mode().Type())
	}
	if st.Size() > limit {
		return nil, fmt.Errorf("%d bytes, more than the %d %s", st.Size(), limit, what)
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit { // it grew after the Stat
		return nil, fmt.Errorf("more than the %d bytes %s", limit, what)
	}
	return data, nil
}
