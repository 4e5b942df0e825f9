// Package atomicfile writes files through a temporary file renamed into
// place, so that a failed write never leaves half a file nor the previous
// run's file in its stead.
package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
)

// Write writes data to path through a temporary file in the same directory.
func Write(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, werr := f.Write(data)
	if err := errors.Join(werr, f.Close(), os.Chmod(tmp, 0o644)); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}
