// Package procgroup starts a child process in a process group of its own and
// kills the whole group, so a child's own children cannot outlive a run.
package procgroup
