// Package lazy holds values computed on their first use, so that package
// initialisation does no work a command may not need.
package lazy

import "sync"

// Value is a value computed the first time it is asked for. A
// package-level &Value[T]{New: f}, f a function literal, is laid out by
// the compiler as data: it runs no code at initialisation (a generic
// constructor would).
type Value[T any] struct {
	New  func() T // computes the value, once
	once sync.Once
	v    T
}

// Get returns the value, computing it on the first call.
func (l *Value[T]) Get() T {
	l.once.Do(func() { l.v = l.New() })
	return l.v
}
