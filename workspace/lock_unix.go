//go:build unix

package workspace

import (
	"os"
	"syscall"
)

// lock takes f's exclusive flock, which the kernel releases when its holder
// dies; without waiting, it fails while another holds it.
func lock(f *os.File, noWait bool) error {
	how := syscall.LOCK_EX
	if noWait {
		how |= syscall.LOCK_NB
	}
	return syscall.Flock(int(f.Fd()), how)
}

// openNoFollow opens a temporary file to test its lock without following a
// link or blocking on a FIFO someone put in its place.
const openNoFollow = syscall.O_NONBLOCK | syscall.O_NOFOLLOW
