package cgpvectors

//go:generate go run ./gen
