// Package httpserve serves an http.Handler on an address until a context
// ends, with timeouts that a slow or hostile client cannot hold open.
package httpserve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"
)

// limits bound how long a client may take: to send its headers, its whole
// request, and between requests; tests shorten them.
var limits = struct{ readHeader, read, idle time.Duration }{10 * time.Second, time.Minute, time.Minute}

// Serve listens on addr, says where on announce ("serving NAME on
// http://ADDR/"), and serves h until ctx ends; it returns once the server
// has stopped.
func Serve(ctx context.Context, addr, name string, h http.Handler, announce io.Writer) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("--http %s: %w", addr, err)
	}
	fmt.Fprintf(announce, "referee: serving %s on http://%s/\n", name, ln.Addr())
	srv := &http.Server{Handler: h, ReadHeaderTimeout: limits.readHeader, ReadTimeout: limits.read, IdleTimeout: limits.idle}
	ctx, cancel := context.WithCancel(ctx)
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		<-ctx.Done()
		srv.Close()
	}()
	err = srv.Serve(ln)
	cancel()
	<-stopped
	if err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
