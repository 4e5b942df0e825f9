package jcs

//go:generate go run ./gen
