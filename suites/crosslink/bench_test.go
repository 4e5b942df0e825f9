package crosslink

import (
	"context"
	"os"
	"os/exec"
	"sync"
	"testing"

	"github.com/refereehq/referee/adapter"
	"github.com/refereehq/referee/check"
)

// serveVar makes the test binary serve the built-in adapter on stdio, so the
// benchmarks can run it as a child process.
const serveVar = "REFEREE_CROSSLINK_SERVE"

func TestMain(m *testing.M) {
	if os.Getenv(serveVar) != "" {
		h, _ := Reference("")
		if err := adapter.Serve(context.Background(), h, os.Stdin, os.Stdout); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func goChild(b testing.TB) adapter.Starter {
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	cfg := adapter.ProcessConfig{Argv: []string{exe}, Env: append(os.Environ(), serveVar+"=1")}
	return func(ctx context.Context) (adapter.Conn, error) { return adapter.StartProcess(cfg) }
}

func nodeChild(b testing.TB) adapter.Starter {
	if _, err := exec.LookPath("node"); err != nil {
		b.Skip("node not found")
	}
	cfg := adapter.ProcessConfig{Argv: []string{"node", "../../examples/adapters/node/crosslink.mjs"}}
	return func(ctx context.Context) (adapter.Conn, error) { return adapter.StartProcess(cfg) }
}

// BenchmarkSuite times one whole run of the embedded corpus (ns/op is the
// suite's wall time), start-up and hello included, against the in-process
// reference, the same reference as a child process, and the Node adapter.
func BenchmarkSuite(b *testing.B) {
	suite := loadDir(b, "").Suite
	h, _ := Reference("")
	for _, bc := range []struct {
		name  string
		start func(testing.TB) adapter.Starter
	}{
		{"in-process", func(testing.TB) adapter.Starter { return adapter.InProcess(h) }},
		{"go-child", goChild},
		{"node-child", nodeChild},
	} {
		b.Run(bc.name, func(b *testing.B) {
			start := bc.start(b)
			for b.Loop() {
				c, err := adapter.Dial(context.Background(), start, Name, adapter.Options{})
				if err != nil {
					b.Fatal(err)
				}
				run := check.Execute(context.Background(), c, suite.Checks, check.Options{})
				c.Close()
				if n := run.Counts(); n.Pass != len(suite.Checks) {
					b.Fatalf("%+v", n)
				}
			}
			b.ReportMetric(float64(len(suite.Checks)), "checks/op")
		})
	}
}

// BenchmarkRoundTrip measures one small canonicalJson call over the stdio
// protocol to the Go child, one at a time and with 8 in flight.
func BenchmarkRoundTrip(b *testing.B) {
	for _, inFlight := range []int{1, 8} {
		b.Run(map[int]string{1: "sequential", 8: "concurrency-8"}[inFlight], func(b *testing.B) {
			c, err := adapter.Dial(context.Background(), goChild(b), Name, adapter.Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			args := []byte(`{"value":{"v":"1.0","t":"ping","ts":1}}`)
			var wg sync.WaitGroup
			work := make(chan struct{})
			for range inFlight {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for range work {
						if _, _, err := c.Call(context.Background(), OpCanonical, args); err != nil {
							b.Error(err)
						}
					}
				}()
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				work <- struct{}{}
			}
			close(work)
			wg.Wait()
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "calls/s")
		})
	}
}
