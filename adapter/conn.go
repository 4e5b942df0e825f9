package adapter

import (
	"context"
)

// Conn is one live connection to an implementation under test.
type Conn interface {
	// Call sends one request and waits for its reply. A protocol breach is a
	// *Fault; the returned Exchange holds whatever lines were seen.
	Call(ctx context.Context, id int64, op string, args []byte) (*Reply, *Exchange, error)
	// Stderr returns the tail of what the implementation logged, if anything.
	Stderr() string
	// Close ends the connection and releases the process, if any.
	Close() error
}

// Starter opens a new connection; a Client calls it again after a fault.
type Starter func(ctx context.Context) (Conn, error)
