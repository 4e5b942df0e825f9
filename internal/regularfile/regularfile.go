// Package regularfile is the one way referee opens a file it is given (a
// corpus file, a baseline, a vector file, a provider's provenance, a docs
// folder): only a regular file of bounded size, refused by its size before
// it is read, and opened without blocking so that a FIFO cannot hang the
// reader.
package regularfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// DefaultLimit is the size cap on a file referee is given, unless told
// otherwise (--max-file-size).
const DefaultLimit int64 = 256 << 20

// Limit returns n, or DefaultLimit when n is 0 or less.
func Limit(n int64) int64 {
	if n <= 0 {
		return DefaultLimit
	}
	return n
}

// ErrNotRegular marks a directory, a device, a FIFO or a socket.
var ErrNotRegular = errors.New("not a regular file")

// TooLargeError is a file refused for its size, before it was read (or
// while it was, if it grew): Size is what it had then, at least Limit+1.
type TooLargeError struct {
	Size, Limit int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%d bytes, more than the limit of %s per file (--max-file-size)", e.Size, Size(e.Limit))
}

// Size renders a byte count as bytes, with its MiB, GiB or KiB when it is
// a whole number of them: "268435456 bytes (256 MiB)".
func Size(n int64) string {
	for _, u := range []struct {
		shift uint
		name  string
	}{{30, "GiB"}, {20, "MiB"}, {10, "KiB"}} {
		if n >= 1<<u.shift && n%(1<<u.shift) == 0 {
			return fmt.Sprintf("%d bytes (%d %s)", n, n>>u.shift, u.name)
		}
	}
	return fmt.Sprintf("%d bytes", n)
}

// check says why a file with info st may not be read under limit, or nil.
func check(st fs.FileInfo, limit int64) error {
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%w: %s", ErrNotRegular, kind(st.Mode()))
	}
	if st.Size() > limit {
		return &TooLargeError{Size: st.Size(), Limit: limit}
	}
	return nil
}

// kind names what a file that is not a regular one is.
func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0, m&fs.ModeCharDevice != 0:
		return "a device"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "an irregular file (" + m.Type().String() + ")"
}

// Open opens the file at path for reading when it is a regular file of at
// most limit bytes (DefaultLimit when limit is 0 or less). It refuses a
// FIFO, a device, a socket or a directory, and a file over the limit, by
// what stat says, before reading a byte; reading the file it returns fails
// past the limit should the file grow. Errors are *fs.PathError naming
// path.
func Open(path string, limit int64) (fs.File, error) {
	return open(path, path, Limit(limit))
}

// open opens the file at full; errors name it as name.
func open(full, name string, limit int64) (fs.File, error) {
	fail := func(err error) (fs.File, error) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	// Stat first: it does not block where there are FIFOs and no NonBlock.
	st, err := os.Stat(full)
	if err != nil {
		return fail(cause(err))
	}
	if err := check(st, limit); err != nil {
		return fail(err)
	}
	f, err := os.OpenFile(full, os.O_RDONLY|NonBlock, 0)
	if err != nil {
		return fail(cause(err))
	}
	// What was opened may not be what was stat'ed.
	if st, err = f.Stat(); err == nil {
		err = check(st, limit)
	}
	if err != nil {
		f.Close()
		return fail(err)
	}
	return &file{f: f, name: name, left: limit, limit: limit}, nil
}

// cause is what an *fs.PathError from package os says went wrong, so that
// the path this package names is not named twice.
func cause(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// ReadFile reads the file at path as Open allows it.
func ReadFile(path string, limit int64) ([]byte, error) {
	return readFile(path, path, Limit(limit))
}

func readFile(full, name string, limit int64) ([]byte, error) {
	f, err := open(full, name, limit)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var size int64
	if st, err := f.Stat(); err == nil {
		size = st.Size()
	}
	data := make([]byte, 0, size+1)
	for {
		n, err := f.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if err == io.EOF {
			return data, nil
		}
		if err != nil {
			return nil, err
		}
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
	}
}

// file is a regular file whose reads stop at its limit.
type file struct {
	f     *os.File
	name  string
	left  int64 // bytes it may still yield
	limit int64
}

func (f *file) Stat() (fs.FileInfo, error) { return f.f.Stat() }
func (f *file) Close() error               { return f.f.Close() }

func (f *file) Read(p []byte) (int, error) {
	if f.left == 0 {
		// At the limit: the file must end here.
		var one [1]byte
		if n, err := f.f.Read(one[:]); n == 0 {
			return 0, err
		}
		return 0, &fs.PathError{Op: "read", Path: f.name, Err: &TooLargeError{Size: f.limit + 1, Limit: f.limit}}
	}
	if int64(len(p)) > f.left {
		p = p[:f.left]
	}
	n, err := f.f.Read(p)
	f.left -= int64(n)
	return n, err
}

// ReadAt reads len(p) bytes at off, none of them past the limit (an error,
// as in Read); it is safe to call from several goroutines at once.
func (f *file) ReadAt(p []byte, off int64) (int, error) {
	if off+int64(len(p)) > f.limit {
		return 0, &fs.PathError{Op: "read", Path: f.name, Err: &TooLargeError{Size: off + int64(len(p)), Limit: f.limit}}
	}
	n, err := f.f.ReadAt(p, off)
	if err != nil && err != io.EOF {
		err = &fs.PathError{Op: "read", Path: f.name, Err: cause(err)}
	}
	return n, err
}

// DirFS returns the tree at dir as an fs.FS whose files open as Open
// allows them (at most limit bytes each, DefaultLimit when limit is 0 or
// less); directories open as they are. Errors name the path within dir.
func DirFS(dir string, limit int64) fs.FS {
	return &dirFS{dir: dir, limit: Limit(limit)}
}

type dirFS struct {
	dir   string
	limit int64
}

// join returns the path of name under the directory.
func (d *dirFS) join(op, name string) (string, error) {
	if !fs.ValidPath(name) {
		return "", &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	return filepath.Join(d.dir, filepath.FromSlash(name)), nil
}

func (d *dirFS) Open(name string) (fs.File, error) {
	full, err := d.join("open", name)
	if err != nil {
		return nil, err
	}
	if st, err := os.Stat(full); err == nil && st.IsDir() {
		f, err := os.Open(full)
		if err != nil {
			return nil, &fs.PathError{Op: "open", Path: name, Err: cause(err)}
		}
		return f, nil
	}
	return open(full, name, d.limit)
}

func (d *dirFS) ReadFile(name string) ([]byte, error) {
	full, err := d.join("read", name)
	if err != nil {
		return nil, err
	}
	return readFile(full, name, d.limit)
}

func (d *dirFS) ReadDir(name string) ([]fs.DirEntry, error) {
	full, err := d.join("readdir", name)
	if err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(full)
	if err != nil {
		return entries, &fs.PathError{Op: "readdir", Path: name, Err: cause(err)}
	}
	return entries, nil
}

func (d *dirFS) Stat(name string) (fs.FileInfo, error) {
	full, err := d.join("stat", name)
	if err != nil {
		return nil, err
	}
	st, err := os.Stat(full)
	if err != nil {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: cause(err)}
	}
	return st, nil
}

// Read reads f, opened with os.O_RDONLY|NonBlock, when it is a regular file
// of at most limit bytes; what ends the too-big message ("referee reads").
func Read(f *os.File, limit int64, what string) ([]byte, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%w: %s", ErrNotRegular, kind(st.Mode()))
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
