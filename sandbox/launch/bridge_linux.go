package launch

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
)

// The bridge to the network proxy ([sandbox] network as a list of hosts).
// The program keeps its network namespace, loopback only; the launcher
// listens on a port of that loopback and hands every connection it accepts
// to Quiver as a descriptor, over the bridge: its end of a socket pair
// that Quiver made, inherited as the descriptor after the program's extra
// files, close-on-exec from here on. The program never holds the bridge,
// cannot take it from the launcher (which is non-dumpable: no ptrace, no
// pidfd_getfd, no /proc/1/fd), and cannot make a Unix socket of its own
// (seccomp): what it reaches is the proxy's one conversation, on a port
// its own loopback already had.

// proxyVars are the variables that point a program at the proxy; every
// spelling of each, as programs read one or the other.
var proxyVars = []string{"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"}

// noProxyVars are set to the loopback's names, so that a program's own
// test server on 127.0.0.1 is reached directly, as it always was.
var noProxyVars = []string{"NO_PROXY", "no_proxy"}

// startBridge listens on the loopback of the namespace, passes each
// connection over the bridge (descriptor fd) from a goroutine, and points
// the program's environment at the port.
func (s *Spec) startBridge(fd int) error {
	syscall.CloseOnExec(fd)
	l, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("proxy bridge: %w", err)
	}
	if err := syscall.Bind(l, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		return fmt.Errorf("proxy bridge: bind: %w", err)
	}
	if err := syscall.Listen(l, 128); err != nil {
		return fmt.Errorf("proxy bridge: listen: %w", err)
	}
	sa, err := syscall.Getsockname(l)
	if err != nil {
		return fmt.Errorf("proxy bridge: %w", err)
	}
	port := strconv.Itoa(sa.(*syscall.SockaddrInet4).Port)
	s.Env = slices.DeleteFunc(s.Env, func(kv string) bool {
		name, _, _ := strings.Cut(kv, "=")
		return slices.Contains(proxyVars, name) || slices.Contains(noProxyVars, name)
	})
	for _, v := range proxyVars {
		s.Env = append(s.Env, v+"=http://127.0.0.1:"+port)
	}
	for _, v := range noProxyVars {
		s.Env = append(s.Env, v+"=localhost,127.0.0.1,::1")
	}
	go passConnections(l, fd)
	return nil
}

// passConnections accepts on l and sends each connection over the bridge,
// until the bridge fails (Quiver closed its end).
func passConnections(l, bridge int) {
	defer syscall.Close(l)
	for {
		c, _, err := syscall.Accept4(l, syscall.SOCK_CLOEXEC)
		if err == syscall.EINTR || err == syscall.ECONNABORTED {
			continue
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "quiver-sandbox: proxy bridge: %v\n", err)
			return
		}
		err = syscall.Sendmsg(bridge, []byte{0}, syscall.UnixRights(c), nil, 0)
		syscall.Close(c)
		if err != nil {
			return
		}
	}
}
