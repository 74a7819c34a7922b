//go:build unix

package e2e

import (
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/quiverkit/quiver/sandbox/sandboxtest"
)

// A call whose client goes away is cancelled, and the processes it started
// are killed: over HTTP when the client hangs up its request, over stdio
// when it closes standard input.

// sleeper is a project whose policy lets exec_command run, and the call
// that starts a long sleep, recording its process id.
var sleeper = map[string]string{"quiver.toml": "[policy]\nallow = [\"exec_command\"]\n"}

const sleepCall = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"exec_command","arguments":{"command":"sh -c 'echo $$ > sleeper.pid; exec sleep 300'"}}}`

// sleeperPID waits for the sleeping process to record its id.
func sleeperPID(t *testing.T, dir string) int {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		b, err := os.ReadFile(filepath.Join(dir, "sleeper.pid"))
		if pid, perr := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && perr == nil && pid > 0 {
			return sandboxtest.HostPID(t, pid, dir)
		}
		if time.Now().After(deadline) {
			t.Fatal("the command did not start within 30s")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// expectGone waits for pid to end.
func expectGone(t *testing.T, pid int, why string) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for syscall.Kill(pid, 0) == nil {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("process %d still runs 15s after %s", pid, why)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestHTTPHangUpKillsTheCallsProcesses(t *testing.T) {
	t.Parallel()
	dir := workspace(t, sleeper)
	url := serveHTTP(t, dir)
	post := func(ctx context.Context, session, body string) *http.Response {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
			req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return nil
		}
		return resp
	}
	resp := post(t.Context(), "", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"e2e","version":"1"}}}`)
	if resp == nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("initialize: %v", resp)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	session := resp.Header.Get("Mcp-Session-Id")
	if r := post(t.Context(), session, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); r != nil {
		r.Body.Close()
	}
	ctx, hangUp := context.WithCancel(t.Context())
	go func() {
		if r := post(ctx, session, sleepCall); r != nil {
			io.Copy(io.Discard, r.Body)
			r.Body.Close()
		}
	}()
	pid := sleeperPID(t, dir)
	hangUp()
	expectGone(t, pid, "the client hung up")
}

func TestStdioClosedInputKillsTheCallsProcesses(t *testing.T) {
	t.Parallel()
	dir := workspace(t, sleeper)
	cmd := exec.Command(quiverBin, "serve")
	cmd.Dir = dir
	cmd.Env = env(dir)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	io.WriteString(stdin, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"e2e","version":"1"}}}`+"\n")
	io.WriteString(stdin, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	io.WriteString(stdin, sleepCall+"\n")
	pid := sleeperPID(t, dir)
	stdin.Close()
	expectGone(t, pid, "the client closed standard input")
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("quiver serve after stdin closed: %v, want a clean exit", err)
		}
	case <-time.After(15 * time.Second):
		cmd.Process.Kill()
		t.Fatal("quiver serve did not exit after stdin closed")
	}
}
