//go:build unix

package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/quiverkit/quiver/sandbox/sandboxtest"
)

// A quiver serve --http process under test.
type httpServer struct {
	cmd  *exec.Cmd
	url  string
	done chan struct{} // closed when the process has exited
	err  error         // its exit, once done
}

// startServe runs `quiver serve --http 127.0.0.1:0` in dir and waits for
// the address it prints.
func startServe(t *testing.T, dir string, args ...string) *httpServer {
	t.Helper()
	return startServeEnv(t, dir, nil, args...)
}

// startServeEnv is startServe with variables added to the environment.
func startServeEnv(t *testing.T, dir string, env []string, args ...string) *httpServer {
	t.Helper()
	cmd := exec.Command(quiverBin, append([]string{"serve", "--http", "127.0.0.1:0", "--yes"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(cliEnv(dir), env...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &httpServer{cmd: cmd, done: make(chan struct{})}
	addr := make(chan string, 1)
	go func() {
		lines := bufio.NewScanner(stderr)
		for lines.Scan() {
			if _, u, ok := strings.Cut(lines.Text(), "(streamable HTTP) on "); ok {
				addr <- u
			}
		}
		io.Copy(io.Discard, stderr)
	}()
	go func() {
		s.err = cmd.Wait()
		close(s.done)
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-s.done
	})
	select {
	case s.url = <-addr:
	case <-s.done:
		t.Fatalf("quiver serve exited before listening: %v", s.err)
	case <-time.After(30 * time.Second):
		t.Fatal("quiver serve did not listen within 30s")
	}
	return s
}

// rss is the server's resident set size in kB.
func (s *httpServer) rss(t *testing.T) int {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid))
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			return kb
		}
	}
	t.Fatal("no VmRSS")
	return 0
}

// vanishing is an HTTP client whose connections can all be cut at once,
// as when the client's process is killed: the server sees them close and
// nothing more, no DELETE.
type vanishing struct {
	mu    sync.Mutex
	conns []net.Conn
	gone  bool
}

func (v *vanishing) client() *http.Client {
	tr := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		v.mu.Lock()
		defer v.mu.Unlock()
		if v.gone {
			return nil, errors.New("this client has vanished")
		}
		c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
		if err == nil {
			v.conns = append(v.conns, c)
		}
		return c, err
	}}
	return &http.Client{Transport: tr}
}

func (v *vanishing) vanish() {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.gone = true
	for _, c := range v.conns {
		c.Close()
	}
}

func connectSDK(t *testing.T, url string, hc *http.Client) *mcp.ClientSession {
	t.Helper()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "acceptance", Version: "1"}, nil).
		Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: hc, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	return cs
}

// sleeper is the exec_command call whose process writes its pid to file
// and sleeps 30 s.
func sleeper(file string) *mcp.CallToolParams {
	return &mcp.CallToolParams{Name: "exec_command", Arguments: map[string]any{
		"argv": []string{"sh", "-c", "echo $$ > " + file + "; exec sleep 30"}}}
}

// awaitPid waits for the pid a sleeper wrote; it returns when the file is
// whole, or fails the test when call ended first.
func awaitPid(t *testing.T, file string, call <-chan error) int {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(file); err == nil && strings.HasSuffix(string(b), "\n") {
			pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
			if err != nil {
				t.Fatalf("pid file %q", b)
			}
			return sandboxtest.HostPID(t, pid, filepath.Dir(file))
		}
		select {
		case err := <-call:
			t.Fatalf("the call ended before its process wrote its pid: %v", err)
		case <-time.After(10 * time.Millisecond):
		}
	}
	t.Fatal("the process did not write its pid within 30s")
	return 0
}

// alive reports whether process pid exists and is not a zombie (killed,
// waiting for a parent that may not reap it: in a container, PID 1 often
// does not).
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return syscall.Kill(pid, 0) == nil
	}
	_, rest, _ := strings.Cut(string(b), ") ")
	return !strings.HasPrefix(rest, "Z")
}

const serveConfig = `[sandbox]
disabled = true # this test is about the server; the sandbox has its own
`

// TestServeHTTPUnderChurn is issue 17's acceptance: quiver serve --http,
// driven by the official Go SDK client on loopback.
func TestServeHTTPUnderChurn(t *testing.T) {
	if testing.Short() {
		t.Skip("a thousand sessions")
	}
	dir := workdir(t, map[string]string{"quiver.toml": serveConfig, "a.txt": "alpha\n"})
	srv := startServe(t, dir, "--shutdown-grace", "1s")
	for _, path := range []string{"/healthz", "/readyz"} {
		resp, err := http.Get(strings.TrimSuffix(srv.url, "/mcp") + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s: %d, want 200", path, resp.StatusCode)
		}
	}

	t.Run("1,000 sessions vanish without DELETE, then a newcomer works at once, RSS bounded", func(t *testing.T) {
		var warm int
		for i := range 1000 {
			v := &vanishing{}
			cs := connectSDK(t, srv.url, v.client())
			if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "read_file", Arguments: map[string]any{"path": "a.txt"}}); err != nil {
				t.Fatalf("session %d: %v", i, err)
			}
			v.vanish()
			if i == 99 {
				warm = srv.rss(t)
			}
		}
		after := srv.rss(t)
		cs := connectSDK(t, srv.url, &http.Client{})
		defer cs.Close()
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "read_file", Arguments: map[string]any{"path": "a.txt"}})
		if err != nil || res.IsError {
			t.Fatalf("the newcomer's call: %v %+v", err, res)
		}
		// 900 sessions kept would cost about 18 MB (issue 17 measured 19.5
		// KB each); the bound leaves room for the allocator's slack. Under
		// the race detector the resident size grows with every goroutine
		// ever run, kept or not: there the bound is the in-process heap's,
		// TestHTTPMemoryIsFlatAcrossVanishedSessions in mcpserver.
		t.Logf("server RSS after 100 vanished sessions %d kB, after 1,000 %d kB (race detector: %v)", warm, after, raceDetector)
		if after > warm+8<<10 && !raceDetector {
			t.Errorf("server RSS grew from %d to %d kB across 900 vanished sessions", warm, after)
		}
	})

	t.Run("DELETE during sleep 30 kills the process and returns within 2 s", func(t *testing.T) {
		cs := connectSDK(t, srv.url, &http.Client{})
		defer cs.Close()
		call := make(chan error, 1)
		go func() {
			_, err := cs.CallTool(context.WithoutCancel(t.Context()), sleeper("delete.pid"))
			call <- err
		}()
		pid := awaitPid(t, filepath.Join(dir, "delete.pid"), call)
		// The SDK client's Close sends DELETE only once its calls have
		// returned, so the DELETE a client sends mid-call is sent here.
		req, err := http.NewRequestWithContext(t.Context(), http.MethodDelete, srv.url, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Mcp-Session-Id", cs.ID())
		start := time.Now()
		resp, err := http.DefaultClient.Do(req)
		took := time.Since(start)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNoContent {
			t.Errorf("DELETE: status %d, want 204", resp.StatusCode)
		}
		if alive(pid) {
			t.Errorf("sleep (pid %d) still runs after DELETE returned", pid)
		}
		if took > 2*time.Second {
			t.Errorf("DELETE took %s, want under 2 s", took)
		}
		t.Logf("DELETE returned in %s, the process gone", took)
	})

	t.Run("SIGTERM during a call: no process left, exit 0", func(t *testing.T) {
		cs := connectSDK(t, srv.url, &http.Client{})
		defer cs.Close()
		call := make(chan error, 1)
		go func() {
			_, err := cs.CallTool(context.WithoutCancel(t.Context()), sleeper("term.pid"))
			call <- err
		}()
		pid := awaitPid(t, filepath.Join(dir, "term.pid"), call)
		if err := srv.cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		select {
		case <-srv.done:
		case <-time.After(30 * time.Second):
			t.Fatal("quiver serve did not exit within 30s of SIGTERM")
		}
		if srv.err != nil {
			t.Errorf("quiver serve after SIGTERM: %v, want exit 0", srv.err)
		}
		if alive(pid) {
			t.Errorf("sleep (pid %d) outlived the server", pid)
		}
	})
}

func TestServeSessionFlagsUsageErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"serve: no session at all", []string{"serve", "--http", "0", "--max-sessions", "0"}, "--max-sessions 0: want at least 1"},
		{"serve: a session timeout of nothing", []string{"serve", "--http", "0", "--session-timeout", "0s"}, "--session-timeout 0s: want a positive duration"},
		{"serve: a negative grace", []string{"serve", "--http", "0", "--shutdown-grace", "-1s"}, "--shutdown-grace -1s: want a positive duration"},
		{"serve: a grace that is not a duration", []string{"serve", "--http", "0", "--shutdown-grace", "soon"}, "invalid argument"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runCLI(t, workdir(t, nil), "", tt.args...)
			if r.code != exitUsage || !strings.Contains(r.stderr, tt.want) {
				t.Errorf("quiver %v: exit %d, stderr %q; want %d and %q", tt.args, r.code, r.stderr, exitUsage, tt.want)
			}
		})
	}
}
