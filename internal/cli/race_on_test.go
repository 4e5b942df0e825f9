//go:build race

package cli

// raceEnabled says the tests run under the race detector, where a test
// that starts no goroutine of its own worth watching may leave its slowest
// work to the plain run.
const raceEnabled = true
