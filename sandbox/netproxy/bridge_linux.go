package netproxy

import (
	"context"
	"fmt"
	"net"
	"os"
	"syscall"
)

// ServeBridge serves the connections a sandbox launcher hands over the
// bridge, its end of a SOCK_SEQPACKET socket pair: each message carries
// one accepted TCP connection, as a descriptor (SCM_RIGHTS), which is
// served as [Proxy.Serve] serves one. It returns when the launcher's end
// is closed — when the launcher exits — and closes bridge.
func (p *Proxy) ServeBridge(ctx context.Context, bridge *os.File, record Recorder) error {
	c, err := net.FileConn(bridge)
	bridge.Close()
	if err != nil {
		return fmt.Errorf("netproxy: bridge: %w", err)
	}
	defer c.Close()
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return fmt.Errorf("netproxy: bridge: a %T, not a Unix socket", c)
	}
	buf, oob := make([]byte, 1), make([]byte, syscall.CmsgSpace(4))
	for {
		n, oobn, _, _, err := uc.ReadMsgUnix(buf, oob)
		if err != nil || n == 0 {
			return nil // the launcher is gone
		}
		msgs, err := syscall.ParseSocketControlMessage(oob[:oobn])
		if err != nil {
			continue
		}
		for _, m := range msgs {
			fds, err := syscall.ParseUnixRights(&m)
			if err != nil {
				continue
			}
			for _, fd := range fds {
				f := os.NewFile(uintptr(fd), "bridged connection")
				conn, err := net.FileConn(f)
				f.Close()
				if err != nil {
					continue
				}
				go p.Serve(ctx, conn, record)
			}
		}
	}
}
