//go:build unix

package sandboxtest

import (
	"syscall"
	"testing"
)

// queued reports whether a connection (listener) or data (otherwise)
// waits on c, without waiting for one: what an attempt sent is queued by
// the time it has exited. A connection found is closed, data is consumed.
func queued(t testing.TB, c syscall.Conn, listener bool) bool {
	t.Helper()
	rc, err := c.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	found := false
	err = rc.Control(func(fd uintptr) {
		if listener {
			nfd, _, err := syscall.Accept(int(fd))
			if err == nil {
				syscall.Close(nfd)
				found = true
			}
			return
		}
		n, _, err := syscall.Recvfrom(int(fd), make([]byte, 64), syscall.MSG_DONTWAIT)
		found = err == nil && n >= 0
	})
	if err != nil {
		t.Fatal(err)
	}
	return found
}
