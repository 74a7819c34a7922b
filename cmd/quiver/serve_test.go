package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

func TestServeUsageErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		config string
		args   []string
		want   string
	}{
		{"serve: --http that is not an address", "", []string{"serve", "--http", "a:b:c"}, "want PORT or HOST:PORT"},
		{"serve: listening beyond loopback needs a token", "", []string{"serve", "--http", "0.0.0.0:0"}, "set --token-env"},
		{"serve: --token-env naming an unset variable", "", []string{"serve", "--http", "0", "--token-env", "QUIVER_TEST_UNSET_TOKEN"}, "empty or unset"},
		{"serve: ask_fallback = ask is no fallback", "[serve]\nask_fallback = \"ask\"\n", []string{"serve"}, `want "deny" or "allow"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := map[string]string{}
			if tt.config != "" {
				files["quiver.toml"] = tt.config
			}
			r := runCLI(t, workdir(t, files), "", tt.args...)
			if r.code != exitUsage || !strings.Contains(r.stderr, tt.want) {
				t.Errorf("quiver %v: exit %d, stderr %q; want %d and %q", tt.args, r.code, r.stderr, exitUsage, tt.want)
			}
			if r.stdout != "" {
				t.Errorf("stdout %q, want nothing", r.stdout)
			}
		})
	}
}

func TestServeStdioWritesOnlyProtocolAndExitsWhenStdinCloses(t *testing.T) {
	t.Parallel()
	dir := workdir(t, map[string]string{"a.txt": "alpha\n", "quiver.toml": "[policy]\ndeny = [\"write_file\"]\n"})
	stdin := strings.Join([]string{
		`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`not json at all`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"a.txt"}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"write_file","arguments":{"path":"b.txt","content":"x"}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"read_file","arguments":[]}}`,
		`{"jsonrpc":"2.0","id":4,"method":"no/such/method"}`,
	}, "\n") + "\n"
	r := runCLI(t, dir, stdin, "serve")
	if r.code != 0 {
		t.Fatalf("quiver serve after stdin closed: exit %d\n%s", r.code, r.stderr)
	}
	got := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil || m["jsonrpc"] != "2.0" {
			t.Fatalf("stdout carried something other than a JSON-RPC message: %q", line)
		}
		got[fmt.Sprint(m["id"])] = line
	}
	want := map[string]string{
		"<nil>": `"code":-32700`,               // the line that is not JSON
		"1":     `alpha`,                       // read_file
		"2":     `TOOL_NOT_ALLOWED`,            // a tool denied outright
		"3":     `INVALID_TOOL_ARGUMENTS_TYPE`, // arguments that are not an object
		"4":     `"code":-32601`,               // an unknown method
	}
	for id, w := range want {
		if !strings.Contains(got[id], w) {
			t.Errorf("answer to id %s: %q, want it to contain %q", id, got[id], w)
		}
	}
}

// TestReserveStdout runs reserveStdout in a child process: what the child
// prints to "stdout" afterwards must reach its stderr, and only what it
// writes to the returned file its real stdout.
func TestReserveStdout(t *testing.T) {
	t.Parallel()
	if os.Getenv("QUIVER_TEST_RESERVE_STDOUT") == "1" {
		out, err := reserveStdout()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(3)
		}
		fmt.Println("stray line")
		fmt.Fprintln(out, "protocol line")
		os.Exit(0)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestReserveStdout$")
	cmd.Env = append(os.Environ(), "QUIVER_TEST_RESERVE_STDOUT=1")
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("child: %v\n%s", err, stderr.String())
	}
	if stdout.String() != "protocol line\n" || !strings.Contains(stderr.String(), "stray line") {
		t.Errorf("stdout %q, stderr %q; want only the protocol line on stdout and the stray one on stderr", stdout.String(), stderr.String())
	}
}

func TestMCPClientCommandErrors(t *testing.T) {
	t.Parallel()
	dir := workdir(t, nil)
	r := runCLI(t, dir, "", "mcp", "call", "http://127.0.0.1:1/mcp", "tool", "{not json")
	if r.code != exitUsage || !strings.Contains(r.stderr, "not valid JSON") {
		t.Errorf("bad ARGS_JSON: exit %d, %q", r.code, r.stderr)
	}
	r = runCLI(t, dir, "", "mcp", "tools", "http://127.0.0.1:1/mcp", "--timeout", "5s")
	if r.code != exitTool || !strings.Contains(r.stderr, "connect to http://127.0.0.1:1/mcp") {
		t.Errorf("nothing listening: exit %d, %q", r.code, r.stderr)
	}
}
