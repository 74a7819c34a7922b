package sandbox

import (
	"context"
	"fmt"
	"os"
	"syscall"
)

// bridge makes the socket pair a launcher passes the proxy's connections
// over (see package launch, bridge_linux.go), serves Quiver's end, and
// returns the launcher's, which the caller closes once the launcher has
// started: the serving ends when the launcher exits.
func (p *Profile) bridge() (*os.File, error) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_SEQPACKET|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("sandbox: the proxy's bridge: %w", err)
	}
	ours := os.NewFile(uintptr(fds[0]), "proxy bridge")
	go p.proxy.ServeBridge(context.Background(), ours, p.contacts.Record)
	return os.NewFile(uintptr(fds[1]), "proxy bridge (the launcher's end)"), nil
}
