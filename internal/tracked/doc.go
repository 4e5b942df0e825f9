// Package tracked holds the tests of what the repository's tracked files
// (git ls-files) may contain, whatever their kind: source, documentation,
// corpora and lockfiles alike. It has no code of its own.
package tracked
