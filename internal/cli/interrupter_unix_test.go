//go:build unix

package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"syscall"
)

// interrupter is a jcs adapter that answers every input wrongly and, at
// its 30th request, sends its parent (referee) the signal its argument
// names (INT or TERM), as a user's ^C or a CI runner's timeout would. It
// goes on answering until its stdin closes.
func interrupter() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(nil, 1<<20)
	sig, ok := map[string]syscall.Signal{"INT": syscall.SIGINT, "TERM": syscall.SIGTERM}[os.Args[len(os.Args)-1]]
	if !ok {
		fmt.Fprintln(os.Stderr, "usage: interrupter INT|TERM")
		os.Exit(2)
	}
	for n := 1; in.Scan(); n++ {
		var req struct {
			ID int64  `json:"id"`
			Op string `json:"op"`
		}
		if json.Unmarshal(in.Bytes(), &req) != nil {
			continue
		}
		if req.Op == "hello" {
			fmt.Printf(`{"id":%d,"ok":{"name":"interrupter","version":"1","ops":["canonicalJson"]}}`+"\n", req.ID)
			continue
		}
		fmt.Printf(`{"id":%d,"ok":"wrong"}`+"\n", req.ID)
		if n == 30 {
			syscall.Kill(os.Getppid(), sig)
		}
	}
	os.Exit(0)
}
