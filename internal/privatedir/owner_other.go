//go:build !unix

package privatedir

import "io/fs"

// owner says nothing where files have no Unix owner.
func owner(fs.FileInfo) (int, bool) { return 0, false }

// writableByOthers says nothing where files have no Unix permission bits.
func writableByOthers(fs.FileInfo) bool { return false }
