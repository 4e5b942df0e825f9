//go:build unix

// Adapterbench times round trips to a referee-adapter/1 adapter over a
// pipe, either by a raw ping-pong (write a request line, read a reply line,
// nothing checked) or through referee's adapter client (adapter.Dial and
// Client.Call: ids, timeouts, strict reply parsing, fault handling), one call
// at a time or with several in flight. bench/adapter.sh runs it.
//
// Usage: adapterbench -mode raw|client [-inflight N] [-calls N] [-cpuprofile FILE] [-memprofile FILE] -- ADAPTER [ARGS...]
//
// It prints one line: "MODE inflight=N calls=N seconds=S cpu/call=C allocs/call=A
// calls/s=R", where C and A are the driver's own CPU time and heap
// allocations per call (the adapter's are not counted).
package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"runtime/pprof"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/refereehq/referee/adapter"
)

// args is what every echo request carries: the crosslink suite's small
// canonicalJson value, as in suites/crosslink's BenchmarkRoundTrip.
var args = []byte(`{"value":{"v":"1.0","t":"ping","ts":1}}`)

func main() {
	mode := flag.String("mode", "client", "raw: a ping-pong over the pipe; client: referee's adapter client")
	inflight := flag.Int("inflight", 1, "calls in flight at once")
	calls := flag.Int("calls", 100000, "calls to time, after a warm-up of a tenth as many")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the timed calls to `FILE`")
	memprofile := flag.String("memprofile", "", "write a profile of every allocation of the timed calls to `FILE`")
	flag.Parse()
	argv := flag.Args()
	if len(argv) == 0 || *inflight < 1 || *calls < 1 || (*mode != "raw" && *mode != "client") {
		fmt.Fprintln(os.Stderr, "usage: adapterbench -mode raw|client [-inflight N] [-calls N] [-cpuprofile FILE] [-memprofile FILE] -- ADAPTER [ARGS...]")
		os.Exit(2)
	}
	run := runClient
	if *mode == "raw" {
		run = runRaw
	}
	if *memprofile != "" {
		runtime.MemProfileRate = 1
	}
	elapsed, err := run(argv, *inflight, *calls, *cpuprofile)
	if err == nil && *memprofile != "" {
		err = writeHeapProfile(*memprofile)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "adapterbench: %s, %d in flight: %v\n", *mode, *inflight, err)
		os.Exit(1)
	}
	fmt.Printf("%s inflight=%d calls=%d seconds=%.3f cpu/call=%.1fus allocs/call=%.1f calls/s=%.0f\n", *mode, *inflight, *calls, elapsed.Seconds(), float64(cpuPerCall.Nanoseconds())/1000, allocsPerCall, float64(*calls)/elapsed.Seconds())
}

func writeHeapProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// timed runs do(n) once as a warm-up with n/10 and then for n, profiled
// when cpuprofile is set, and returns the time of the second.
func timed(n int, cpuprofile string, do func(n int) error) (time.Duration, error) {
	if err := do(max(1, n/10)); err != nil {
		return 0, err
	}
	if cpuprofile != "" {
		f, err := os.Create(cpuprofile)
		if err != nil {
			return 0, err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return 0, err
		}
		defer pprof.StopCPUProfile()
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	cpu0 := cpuTime()
	start := time.Now()
	err := do(n)
	elapsed := time.Since(start)
	cpuPerCall = (cpuTime() - cpu0) / time.Duration(n)
	runtime.ReadMemStats(&after)
	allocsPerCall = float64(after.Mallocs-before.Mallocs) / float64(n)
	return elapsed, err
}

// allocsPerCall and cpuPerCall are the heap allocations and the CPU time
// (user and system, every thread) of this process per timed call: the
// driver's own cost, without the adapter's.
var (
	allocsPerCall float64
	cpuPerCall    time.Duration
)

// cpuTime is the CPU time this process has used.
func cpuTime() time.Duration {
	var u syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &u) != nil {
		return 0
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}

// runClient drives the adapter through referee's client.
func runClient(argv []string, inflight, calls int, cpuprofile string) (time.Duration, error) {
	ctx := context.Background()
	cfg := adapter.ProcessConfig{Argv: argv, Stderr: os.Stderr}
	start := func(ctx context.Context) (adapter.Conn, error) { return adapter.StartProcess(cfg) }
	c, err := adapter.Dial(ctx, start, "bench", adapter.Options{})
	if err != nil {
		return 0, err
	}
	defer c.Close()
	return timed(calls, cpuprofile, func(n int) error {
		var (
			next     atomic.Int64
			wg       sync.WaitGroup
			errOnce  sync.Once
			firstErr error
		)
		for range inflight {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for next.Add(1) <= int64(n) {
					r, _, err := c.Call(ctx, "echo", args)
					if err == nil && r.OK == nil {
						err = errors.New("an err reply to echo")
					}
					if err != nil {
						errOnce.Do(func() { firstErr = err })
						return
					}
				}
			}()
		}
		wg.Wait()
		return firstErr
	})
}

// runRaw drives the adapter by writing request lines and reading reply
// lines, with at most inflight requests unanswered; each request is one
// write, as the client's are.
func runRaw(argv []string, inflight, calls int, cpuprofile string) (time.Duration, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return 0, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return 0, err
	}
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	defer cmd.Wait()
	defer stdin.Close()
	replies := bufio.NewReaderSize(stdout, 64<<10)
	id := int64(0)
	request := func() []byte {
		line := []byte(`{"id":` + strconv.FormatInt(id, 10) + `,"op":"echo","args":`)
		line = append(append(line, args...), "}\n"...)
		id++
		return line
	}
	if _, err := stdin.Write(adapter.HelloRequest("bench", nil)); err != nil {
		return 0, err
	}
	if _, err := stdin.Write([]byte("\n")); err != nil {
		return 0, err
	}
	if _, err := replies.ReadSlice('\n'); err != nil {
		return 0, fmt.Errorf("hello: %w", err)
	}
	id = 1
	read := func() error {
		line, err := replies.ReadSlice('\n')
		if err != nil {
			return fmt.Errorf("reading a reply: %w", err)
		}
		if !bytes.HasPrefix(line, []byte(`{"id":`)) {
			return fmt.Errorf("not a reply: %q", line)
		}
		return nil
	}
	if inflight == 1 {
		// A ping-pong in one goroutine: write, then read.
		return timed(calls, cpuprofile, func(n int) error {
			for range n {
				if _, err := stdin.Write(request()); err != nil {
					return err
				}
				if err := read(); err != nil {
					return err
				}
			}
			return nil
		})
	}
	return timed(calls, cpuprofile, func(n int) error {
		tokens := make(chan struct{}, inflight)
		written := make(chan error, 1)
		go func() {
			for range n {
				tokens <- struct{}{}
				if _, err := stdin.Write(request()); err != nil {
					written <- err
					return
				}
			}
			written <- nil
		}()
		for range n {
			if err := read(); err != nil {
				return err
			}
			<-tokens
		}
		if err := <-written; err != nil && !errors.Is(err, io.ErrClosedPipe) {
			return err
		}
		return nil
	})
}
