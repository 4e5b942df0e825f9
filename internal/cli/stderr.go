package cli

import (
	"io"
	"os"

	"github.com/spf13/pflag"

	"github.com/refereehq/referee/internal/termsafe"
)

// adapterStderr is --adapter-stderr: where an implementation's stderr goes
// besides the evidence, which keeps its tail whatever is chosen.
type adapterStderr struct {
	value string   // "live" (referee's stderr, each line prefixed), "quiet", or a file to append to
	file  *os.File // that file, while the run lasts
}

// add declares --adapter-stderr on f.
func (a *adapterStderr) add(f *pflag.FlagSet) {
	f.StringVar(&a.value, "adapter-stderr", "live", "where the adapter's stderr goes besides the evidence: `live` (copied to referee's stderr, each line prefixed), quiet (kept for evidence only), or a FILE it is appended to")
}

// path is the file it names, or "".
func (a *adapterStderr) path() string {
	switch a.value {
	case "", "live", "quiet":
		return ""
	}
	return a.value
}

// output is the file, as an output a run checks before it starts: a FIFO
// or a directory is refused, a device such as /dev/null taken.
func (a *adapterStderr) output() output {
	return output{flag: "adapter-stderr", path: a.path(), file: true, stream: true}
}

// open opens the file, if it names one; close it when the run ends.
func (a *adapterStderr) open() error {
	if a.path() == "" {
		return nil
	}
	f, err := os.OpenFile(a.path(), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return usageError("--adapter-stderr: %v", err)
	}
	a.file = f
	return nil
}

func (a *adapterStderr) close() {
	if a.file != nil {
		a.file.Close()
		a.file = nil
	}
}

// sink is what the implementations' stderr is copied to: referee's stderr
// (live) or the file, shared line by line so that no line of one can begin
// another's or pass for referee's (each writer prefixes its lines), or nil
// (quiet). live is the Shared referee's own lines go through too.
func (a *adapterStderr) sink(live *termsafe.Shared) *termsafe.Shared {
	switch {
	case a.value == "quiet":
		return nil
	case a.file != nil:
		return termsafe.NewShared(a.file)
	}
	return live
}

// writer is a prefixed writer of sink, or nil when there is none.
func writer(sink *termsafe.Shared, prefix string) io.Writer {
	if sink == nil {
		return nil
	}
	return sink.Writer(prefix)
}
