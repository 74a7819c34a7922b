package netproxy

import (
	"context"
	"errors"
	"net"
)

// ServeListener serves every connection l accepts until l fails (is
// closed): for a proxy listening on a port of its own, as tests and
// benchmarks run it.
func (p *Proxy) ServeListener(ctx context.Context, l net.Listener, record Recorder) error {
	for {
		conn, err := l.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return nil
			}
			return err
		}
		go p.Serve(ctx, conn, record)
	}
}
