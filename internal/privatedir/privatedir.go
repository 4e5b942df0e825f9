// Package privatedir makes and checks directories that belong to the
// current user alone: owned by them and writable by no one else, so that
// what was verified in them stays as it was while a program reads it. On
// systems without Unix ownership and permission bits (Windows), only
// symbolic links are refused.
package privatedir

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Make creates dir and its missing parents (mode 0700), or takes the
// directory that is there: it must be a directory of the current user's,
// not a symbolic link; group and others lose write permission on it if
// they had it. A directory of another user's is an error: it cannot be
// made private, and whoever owns it can change what is in it.
func Make(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if err := ownDir(dir, fi); err != nil {
		return err
	}
	if writableByOthers(fi) {
		if err := os.Chmod(dir, fi.Mode().Perm()&^0o022); err != nil {
			return fmt.Errorf("%s: writable by group or others (%v), and it could not be made private: %w", dir, fi.Mode().Perm(), err)
		}
	}
	return nil
}

// CheckTree returns an error naming the first entry of the tree at root,
// root included, that is a symbolic link, is not the current user's, or is
// writable by group or others: a tree someone else could change.
func CheckTree(root string) error {
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			return fmt.Errorf("%s: a symbolic link", p)
		}
		if uid, ok := owner(fi); ok && uid != os.Getuid() {
			return fmt.Errorf("%s: owned by uid %d, not by the current user (uid %d)", p, uid, os.Getuid())
		}
		if writableByOthers(fi) {
			return fmt.Errorf("%s: writable by group or others (%v)", p, fi.Mode().Perm())
		}
		return nil
	})
}

// UserName is a name for the current user's own directory in a directory
// all users share, such as the temporary one: "referee-<uid>" where users
// have numeric IDs, else "referee".
func UserName(prefix string) string {
	if uid := os.Getuid(); uid >= 0 {
		return fmt.Sprintf("%s-%d", prefix, uid)
	}
	return prefix
}

// ownDir checks that fi, dir's Lstat, is a directory of the current user's.
func ownDir(dir string, fi fs.FileInfo) error {
	if !fi.IsDir() {
		return fmt.Errorf("%s: not a directory (%v)", dir, fi.Mode().Type())
	}
	if uid, ok := owner(fi); ok && uid != os.Getuid() {
		return fmt.Errorf("%s: owned by uid %d, not by the current user (uid %d)", dir, uid, os.Getuid())
	}
	return nil
}
