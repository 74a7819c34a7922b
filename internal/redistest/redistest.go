// Package redistest runs a real redis-server for a test: on a Unix socket
// in a temporary directory, or on a loopback port, stopped when the test
// ends. Without redis-server the test is skipped, saying so, except under
// CI=true, where scripts/test has installed it and its absence fails.
package redistest

import (
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Server is one redis-server process, which the test may kill and start
// again on the same address.
type Server struct {
	t    testing.TB
	dir  string
	port int // 0: the Unix socket
	cmd  *exec.Cmd
	done chan struct{}
}

// Start starts redis-server on a Unix socket (tcp false) or a loopback
// port, and stops it when the test ends.
func Start(t testing.TB, tcp bool) *Server {
	t.Helper()
	if _, err := exec.LookPath("redis-server"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("redis-server is not installed; scripts/test installs it (apt-get install redis-server)")
		}
		t.Skip("redis-server is not installed (apt-get install redis-server, or run scripts/test): the Redis store's tests need a real one")
	}
	// A socket path must fit in 108 bytes: a short directory of its own.
	dir, err := os.MkdirTemp("", "redis")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	s := &Server{t: t, dir: dir}
	if tcp {
		s.port = freePort(t)
	}
	s.Restart()
	t.Cleanup(s.Kill)
	return s
}

// URL is the server's address as the store takes it.
func (s *Server) URL() string {
	if s.port != 0 {
		return "redis://127.0.0.1:" + strconv.Itoa(s.port) + "/0"
	}
	return "unix://" + s.socket()
}

func (s *Server) socket() string { return filepath.Join(s.dir, "redis.sock") }

// Kill stops the server at once (SIGKILL), as a crash would. Killing a
// stopped server does nothing.
func (s *Server) Kill() {
	if s.cmd == nil {
		return
	}
	s.cmd.Process.Kill()
	<-s.done
	s.cmd = nil
}

// Restart starts the server again on the same address, empty (nothing is
// persisted), and waits until it answers.
func (s *Server) Restart() {
	s.t.Helper()
	s.Kill()
	os.Remove(s.socket())
	args := []string{"--save", "", "--appendonly", "no", "--dir", s.dir, "--maxmemory-policy", "noeviction"}
	if s.port != 0 {
		args = append(args, "--port", strconv.Itoa(s.port), "--bind", "127.0.0.1")
	} else {
		args = append(args, "--port", "0", "--unixsocket", s.socket(), "--unixsocketperm", "700")
	}
	cmd := exec.Command("redis-server", args...)
	log := &lockedLog{}
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		s.t.Fatalf("start redis-server: %v", err)
	}
	s.cmd, s.done = cmd, make(chan struct{})
	go func() {
		cmd.Wait()
		close(s.done)
	}()
	for deadline := time.Now().Add(time.Minute); !s.answers(); { // a hang guard, not a timing assumption
		select {
		case <-s.done:
			s.t.Fatalf("redis-server exited before it was ready:\n%s", log)
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("redis-server did not answer within a minute:\n%s", log)
		}
	}
}

// answers reports whether the server answers PING.
func (s *Server) answers() bool {
	network, addr := "unix", s.socket()
	if s.port != 0 {
		network, addr = "tcp", "127.0.0.1:"+strconv.Itoa(s.port)
	}
	c, err := net.DialTimeout(network, addr, time.Second)
	if err != nil {
		return false
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		return false
	}
	buf := make([]byte, 7)
	n, _ := io.ReadFull(c, buf)
	return string(buf[:n]) == "+PONG\r\n"
}

// lockedLog keeps redis-server's log, for messages.
type lockedLog struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// freePort returns a loopback port that was free a moment ago.
func freePort(t testing.TB) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// String names the server in messages.
func (s *Server) String() string { return fmt.Sprintf("redis-server at %s", s.URL()) }
