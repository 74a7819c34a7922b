//go:build unix

package sandbox

import (
	"os"
	"syscall"
)

// lockFile takes f's exclusive flock, which the kernel releases when its
// holder dies; with noWait it fails at once while another holds it.
func lockFile(f *os.File, noWait bool) error {
	how := syscall.LOCK_EX
	if noWait {
		how |= syscall.LOCK_NB
	}
	return syscall.Flock(int(f.Fd()), how)
}

// openNoFollow opens a lock file to test it without following a link or
// blocking on a FIFO put in its place.
const openNoFollow = syscall.O_NONBLOCK | syscall.O_NOFOLLOW
