// Bigreply is the jcs adapter bench/fuzzmem.sh drives: it answers hello
// (ops canonicalJson and canonicalJsonBytes, concurrency 8) and answers
// every other request with a string of -size bytes, a wrong canonical text
// for every input, so that each reply is a divergence whose evidence a
// run or a fuzz run must keep, or not.
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
)

func main() {
	size := flag.Int("size", 2<<20, "the length of each reply's string, in bytes")
	flag.Parse()
	if err := serve(os.Stdin, os.Stdout, *size); err != nil {
		fmt.Fprintln(os.Stderr, "bigreply:", err)
		os.Exit(1)
	}
}

var (
	idKey = []byte(`{"id":`)
	hello = []byte(`"op":"hello"`)
)

func serve(r io.Reader, w io.Writer, size int) error {
	in := bufio.NewReaderSize(r, 64<<10)
	out := bufio.NewWriterSize(w, 64<<10)
	big := bytes.Repeat([]byte("x"), size)
	for {
		line, err := in.ReadBytes('\n')
		if err == io.EOF && len(line) == 0 {
			return out.Flush()
		}
		if err != nil && err != io.EOF {
			return err
		}
		rest, ok := bytes.CutPrefix(line, idKey)
		end := bytes.IndexByte(rest, ',')
		if !ok || end < 0 {
			return fmt.Errorf("not a request line from referee: %.80q", line)
		}
		out.Write(line[:len(idKey)+end]) // {"id":N
		if bytes.Contains(line, hello) {
			out.WriteString(`,"ok":{"name":"bigreply","version":"1","ops":["canonicalJson","canonicalJsonBytes"],"concurrency":8}}` + "\n")
		} else {
			out.WriteString(`,"ok":"`)
			out.Write(big)
			out.WriteString("\"}\n")
		}
		if in.Buffered() == 0 {
			if err := out.Flush(); err != nil {
				return err
			}
		}
	}
}
