package child

import (
	"os"
	"syscall"
	"time"
	"unsafe"
)

// stderrConn returns the raw connection of f, stderr's read end, when a
// read of it can wait in the runtime's poller (so it can be read with
// nothing held while it waits), or nil.
func stderrConn(f *os.File) syscall.RawConn {
	if f.SetReadDeadline(time.Time{}) != nil {
		return nil
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return nil
	}
	return rc
}

// readNow reads what fd holds into buf without waiting; errEmpty says it
// holds nothing yet.
func readNow(fd uintptr, buf []byte) (int, error) {
	for {
		n, err := syscall.Read(int(fd), buf)
		switch {
		case err == syscall.EINTR:
			continue
		case err == syscall.EAGAIN:
			return 0, errEmpty
		case err != nil:
			return 0, err
		}
		return n, nil
	}
}

// unread returns how many bytes the pipe fd holds that no one has read.
func unread(fd uintptr) (int, error) {
	var n int32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, fd, syscall.TIOCINQ, uintptr(unsafe.Pointer(&n))); e != 0 {
		return 0, e
	}
	return int(n), nil
}
