//go:build unix

package child

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// runChildOS runs the child modes that need process groups.
func runChildOS(what string) int {
	switch what {
	case "grandchild", "grandchild-setsid":
		// A grandchild holding stdout and stderr, in this group or in a
		// session of its own.
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), envChild+"=sleeper")
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
		if what == "grandchild-setsid" {
			cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		}
		if err := cmd.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		fmt.Println(cmd.Process.Pid)
		if what == "grandchild-setsid" {
			return 0
		}
		ignoreTerm()
		io.Copy(io.Discard, os.Stdin)
		time.Sleep(time.Hour)
	}
	return 2
}

// TestGrandchildren: a grandchild in the group is killed with it, so stdout
// ends; one that left the group is abandoned a short while after the exit,
// and no reader is left running.
func TestGrandchildren(t *testing.T) {
	t.Parallel()
	tests := []struct {
		what string
		end  error // how stdout ended
	}{
		{"grandchild", io.EOF},
		{"grandchild-setsid", os.ErrClosed},
	}
	for _, tt := range tests {
		t.Run(tt.what, func(t *testing.T) {
			t.Parallel()
			var l lines
			var live strings.Builder
			first := make(chan string, 1) // the grandchild's pid, or "" if stdout ended first
			cfg := child(tt.what)
			cfg.Stderr = &live
			cfg.Stdout = func(line []byte, err error) {
				l.stdout(line, err)
				select {
				case first <- string(line):
				default:
				}
			}
			p := start(t, cfg)
			n, _ := strconv.Atoi(<-first)
			if n <= 0 {
				t.Fatalf("no grandchild pid (stdout %q, %v; stderr %q)", l.got, l.last, live.String())
			}
			t.Cleanup(func() { syscall.Kill(n, syscall.SIGKILL) })
			begin := time.Now()
			if _, err := p.Stop(context.Background(), 100*time.Millisecond); err != nil {
				t.Fatal(err)
			}
			if d := time.Since(begin); d > 5*time.Second {
				t.Errorf("Stop took %s", d)
			}
			if !errors.Is(l.last, tt.end) {
				t.Errorf("stdout ended with %v, want %v", l.last, tt.end)
			}
			_ = live.String() // no writer may still be running (-race)
		})
	}
}
