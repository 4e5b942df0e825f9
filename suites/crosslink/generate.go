package crosslink

//go:generate go run ./gen
