// Echoadapter is the trivial referee-adapter/1 adapter bench/adapter.sh
// drives: it answers hello (op echo, concurrency 8) and answers each echo
// request with its args, in the order the requests came. It reads referee's
// request lines as referee writes them (id, op, args, compactly) and parses
// nothing else; it flushes stdout when it has no more input buffered.
package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
)

func main() {
	if err := serve(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "echoadapter:", err)
		os.Exit(1)
	}
}

var (
	idKey   = []byte(`{"id":`)
	argsKey = []byte(`,"args":`)
	hello   = []byte(`"op":"hello"`)
)

func serve(r io.Reader, w io.Writer) error {
	in := bufio.NewReaderSize(r, 64<<10)
	out := bufio.NewWriterSize(w, 64<<10)
	for {
		line, err := in.ReadSlice('\n')
		if err == io.EOF && len(line) == 0 {
			return out.Flush()
		}
		if err != nil && err != io.EOF {
			return err
		}
		line = bytes.TrimRight(line, "\r\n")
		rest, ok := bytes.CutPrefix(line, idKey)
		end := bytes.IndexByte(rest, ',')
		args := bytes.Index(line, argsKey)
		if !ok || end < 0 || args < 0 {
			return fmt.Errorf("not a request line from referee: %q", line)
		}
		out.Write(line[:len(idKey)+end]) // {"id":N
		if bytes.Contains(line, hello) {
			out.WriteString(`,"ok":{"name":"echoadapter","version":"1","ops":["echo"],"concurrency":8}}` + "\n")
		} else {
			out.WriteString(`,"ok":`)
			out.Write(line[args+len(argsKey) : len(line)-1])
			out.WriteString("}\n")
		}
		if in.Buffered() == 0 {
			if err := out.Flush(); err != nil {
				return err
			}
		}
	}
}
