//go:build unix

package mcp

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/quiverkit/quiver/internal/mcppeers"
	"github.com/quiverkit/quiver/provider/providertest"
	"github.com/quiverkit/quiver/tool"
)

// These tests use the real reference servers from npm, run on the
// machine's Node, as installed by scripts/mcp-peers.

func everything(t *testing.T) Config {
	return Config{Name: "everything", Command: "node", Args: []string{mcppeers.Server(t, "server-everything")}}
}

func TestPeerEverythingOverStdio(t *testing.T) {
	t.Parallel()
	tk := toolkit(t, newProvider(t, everything(t)))
	tools, err := tk.Tools(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, tl := range tools {
		have[tl.Name] = true
	}
	for _, name := range []string{"everything__echo", "everything__get-sum", "everything__get-tiny-image", "everything__get-structured-content"} {
		if !have[name] {
			t.Errorf("listing lacks %s (has %v)", name, have)
		}
	}
	tests := []struct {
		name, tool, args string
		code             tool.Code
		want             string
	}{
		{"everything: echo", "everything__echo", `{"message":"hi there"}`, "", "Echo: hi there"},
		{"everything: get-sum", "everything__get-sum", `{"a":2,"b":40}`, "", "42"},
		{"everything: an image comes back as an image", "everything__get-tiny-image", `{}`, "", "[image image/png,"},
		{"everything: arguments of the wrong shape are refused by Quiver", "everything__get-sum", `{"a":"two","b":40}`, tool.CodeInvalidArguments, "a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := tk.Invoke(t.Context(), tt.tool, json.RawMessage(tt.args))
			if tool.CodeOf(err) != tt.code {
				t.Fatalf("code %q (%v), want %q", tool.CodeOf(err), err, tt.code)
			}
			if !strings.Contains(out.Content.String(), tt.want) {
				t.Errorf("result %q does not contain %q", out.Content.String(), tt.want)
			}
		})
	}
	out, err := tk.Invoke(t.Context(), "everything__get-structured-content", json.RawMessage(`{"location":"New York"}`))
	if err != nil {
		t.Fatal(err)
	}
	var weather map[string]any
	if raw, ok := out.Content.Output.(json.RawMessage); !ok || json.Unmarshal(raw, &weather) != nil || weather["temperature"] == nil {
		t.Errorf("structured content %v did not become the typed output", out.Content.Output)
	}
}

func TestPeerEverythingSurvivesBeingKilled(t *testing.T) {
	t.Parallel()
	p := newProvider(t, everything(t))
	tk := toolkit(t, p)
	echo := func() (string, error) {
		out, err := tk.Invoke(t.Context(), "everything__echo", json.RawMessage(`{"message":"still here"}`))
		return out.Content.String(), err
	}
	if _, err := echo(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(healthyAfter)
	pid := p.pid()
	// Kill the server in the middle of a long call: once the call is bound
	// to it (a kill before that is a restart the call waits for, and the
	// call then runs its 20 s on the new server).
	bound := make(chan struct{})
	var once sync.Once
	f := func(name string) {
		if name == "trigger-long-running-operation" {
			once.Do(func() { close(bound) })
		}
	}
	callBound.Store(&f)
	t.Cleanup(func() { callBound.Store(nil) })
	errc := make(chan error, 1)
	go func() {
		_, err := tk.Invoke(t.Context(), "everything__trigger-long-running-operation", json.RawMessage(`{"duration":20,"steps":2}`))
		errc <- err
	}()
	select {
	case <-bound:
	case err := <-errc:
		t.Fatalf("the long call ended before it was sent: %v", err)
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-errc:
		if tool.CodeOf(err) != tool.CodeExecutionFailed || !strings.Contains(err.Error(), "stopped during the call") {
			t.Errorf("the call in flight got %v, want EXECUTION_FAILED saying the server stopped", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("the call in flight did not end after its server was killed")
	}
	got, err := echo()
	if err != nil || got != "Echo: still here" {
		t.Fatalf("echo after the kill: %q, %v; want the restarted server's answer", got, err)
	}
	if p.pid() == pid {
		t.Error("the server was not restarted")
	}
}

func TestPeerEverythingOverStreamableHTTP(t *testing.T) {
	t.Parallel()
	port := freePort(t)
	cmd := everything(t)
	startProcess(t, "node", []string{cmd.Args[0], "streamableHttp"}, "PORT="+port)
	waitListening(t, "127.0.0.1:"+port)
	tk := toolkit(t, newProvider(t, Config{Name: "web", URL: "http://127.0.0.1:" + port + "/mcp"}))
	out, err := tk.Invoke(t.Context(), "web__get-sum", json.RawMessage(`{"a":1,"b":2}`))
	if err != nil || !strings.Contains(out.Content.String(), "3") {
		t.Fatalf("get-sum over HTTP: %q, %v", out.Content.String(), err)
	}
}

func TestPeerFilesystem(t *testing.T) {
	t.Parallel()
	fs := mcppeers.Server(t, "server-filesystem")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("line one\nline two\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tk := toolkit(t, newProvider(t, Config{Name: "fs", Command: "node",
		Args: []string{fs, dir}}))
	tools, err := tk.Tools(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var readTool string
	for _, tl := range tools {
		if tl.Name == "fs__read_text_file" || (readTool == "" && tl.Name == "fs__read_file") {
			readTool = tl.Name
		}
	}
	if readTool == "" {
		t.Fatalf("no read tool among %d tools", len(tools))
	}
	out, err := tk.Invoke(t.Context(), readTool, map[string]any{"path": filepath.Join(dir, "notes.txt")})
	if err != nil || !strings.Contains(out.Content.String(), "line two") {
		t.Fatalf("%s: %q, %v", readTool, out.Content.String(), err)
	}
	_, err = tk.Invoke(t.Context(), readTool, map[string]any{"path": "/etc/hostname"})
	if tool.CodeOf(err) != tool.CodeExecutionFailed || !strings.Contains(strings.ToLower(err.Error()), "denied") {
		t.Errorf("reading outside the allowed directory: %v, want the server's error result as EXECUTION_FAILED", err)
	}
}

// pid returns the running server's process id.
func (p *Provider) pid() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.conn == nil || p.conn.proc == nil {
		return 0
	}
	return p.conn.proc.Pid()
}

func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return fmt.Sprint(ln.Addr().(*net.TCPAddr).Port)
}

func waitListening(t *testing.T, addr string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("nothing listens on %s after 20s: %v", addr, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestPeerEverythingContract: the provider keeps the contract the registry
// relies on over the reference server's catalogue too (one server for
// every clause: it takes seconds to start).
func TestPeerEverythingContract(t *testing.T) {
	t.Parallel()
	p := newProvider(t, everything(t))
	t.Cleanup(func() { p.Close() })
	if err := providertest.TestProvider(t.Context(), p); err != nil {
		t.Error(err)
	}
}
