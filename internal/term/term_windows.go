package term

import (
	"os"
	"syscall"
)

// Console output modes, from the Windows SDK's consoleapi.h.
const (
	enableProcessedOutput           = 0x0001
	enableVirtualTerminalProcessing = 0x0004
)

var setConsoleMode = syscall.NewLazyDLL("kernel32.dll").NewProc("SetConsoleMode")

// isANSI reports whether f is a console, and turns on its
// virtual-terminal processing so that it interprets ANSI sequences.
func isANSI(f *os.File) bool {
	h := syscall.Handle(f.Fd())
	var mode uint32
	if err := syscall.GetConsoleMode(h, &mode); err != nil {
		return false
	}
	want := mode | enableProcessedOutput | enableVirtualTerminalProcessing
	if want == mode {
		return true
	}
	ok, _, _ := setConsoleMode.Call(uintptr(h), uintptr(want))
	return ok != 0
}
