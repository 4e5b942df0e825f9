// Package adapter is the boundary between referee and an implementation under
// test: the referee-adapter/1 protocol over a child's stdio or HTTP, and the
// same contract as a Go interface for in-process implementations.
//
// A connection ([Conn]) carries requests and replies; a [Client] owns one
// connection at a time, replays the hello after a fault, and gives up after
// repeated faults.
package adapter
