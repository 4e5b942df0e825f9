//go:build unix

package privatedir

import (
	"io/fs"
	"syscall"
)

// owner returns the uid that owns the file fi describes.
func owner(fi fs.FileInfo) (int, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}

// writableByOthers reports whether group or others may write the file.
func writableByOthers(fi fs.FileInfo) bool { return fi.Mode().Perm()&0o022 != 0 }
