package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/refereehq/referee/check"
	"github.com/refereehq/referee/internal/atomicfile"
	"github.com/refereehq/referee/internal/termsafe"
)

// output is a path a command writes, and the flag that names it.
type output struct {
	flag, path string
	// report says referee writes a report there, through a temporary file
	// renamed into place; one this run does not write is removed, so that
	// no file claims a verdict the run did not reach.
	report bool
	// file says the path is a file referee writes itself (not a directory
	// a suite fills).
	file bool
	// stream says the file is written as the run goes, in place (the
	// trace), so a device such as /dev/null or a terminal takes it; any
	// other file is written to a temporary file renamed into place, which
	// would replace a device or a pipe.
	stream bool
}

// suiteOutputs lists the values of flags that name a path a suite writes.
func suiteOutputs(flags []check.Flag, values check.FlagValues) []output {
	var outs []output
	for _, f := range flags {
		if f.Output && values.String(f.Name) != "" {
			outs = append(outs, output{flag: f.Name, path: values.String(f.Name)})
		}
	}
	return outs
}

// checkOutputs refuses, before anything runs, an output that cannot be
// written: its directory does not exist or cannot be written in, or a file
// is to be written where a directory is.
func checkOutputs(outs []output) error {
	for _, out := range outs {
		if out.path == "" {
			continue
		}
		if err := checkOutput(out); err != nil {
			return usageError("--%s %s: %v", out.flag, out.path, err)
		}
	}
	return nil
}

func checkOutput(out output) error {
	if st, err := os.Stat(out.path); err == nil {
		mode := st.Mode()
		switch {
		case !out.file && (mode.IsDir() || mode.IsRegular()):
			// A suite's output: a directory it fills, or a file it replaces.
		case !out.file:
			return errors.New("not a regular file or a directory, which referee would replace")
		case mode.IsDir():
			return errors.New("is a directory")
		case mode.IsRegular():
		case out.stream && mode&fs.ModeCharDevice != 0:
			return nil // a device such as /dev/null or a terminal, written to as it is
		case out.stream:
			// A pipe nobody reads would block the run for good.
			return errors.New("not a regular file or a character device")
		case out.report:
			return errors.New("not a regular file; a report is written to a file, renamed into place, which would replace it (--format puts one on stdout)")
		default:
			return errors.New("not a regular file; it is written to a file renamed into place, which would replace it")
		}
	}
	dir := filepath.Dir(out.path)
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("the directory %s does not exist", dir)
	case err != nil:
		return err
	case !st.IsDir():
		return fmt.Errorf("%s is not a directory", dir)
	}
	// What is written goes through a temporary file in the same directory.
	f, err := os.CreateTemp(dir, ".referee-write-check-*")
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return fmt.Errorf("cannot write in %s: %w", dir, err)
	}
	f.Close()
	os.Remove(f.Name())
	return nil
}

// writeFile writes a report file; tests replace it to make a write fail.
var writeFile = atomicfile.Write

// removeStale removes the report files among outs, left by an earlier run,
// when this run writes none there, and says so on stderr.
func removeStale(e *env, outs []output) {
	for _, out := range outs {
		if !out.report || out.path == "" {
			continue
		}
		st, err := os.Lstat(out.path)
		if err != nil || !st.Mode().IsRegular() {
			continue
		}
		if err := os.Remove(out.path); err != nil {
			fmt.Fprintf(e.stderr, "referee: --%s: %s, an earlier run's report, could not be removed: %v\n", out.flag, termsafe.Line(out.path), err)
			continue
		}
		fmt.Fprintf(e.stderr, "referee: --%s: removed %s, an earlier run's report: this run wrote none there\n", out.flag, termsafe.Line(out.path))
	}
}
