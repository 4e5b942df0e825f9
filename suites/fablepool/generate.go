package fablepool

//go:generate go run ./gen
