//go:build !unix

package child

// runChildOS knows no other modes where process groups are not unix's.
func runChildOS(what string) int { return 2 }
