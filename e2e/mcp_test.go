package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/quiverkit/quiver/internal/markdown"
	"github.com/quiverkit/quiver/internal/mcppeers"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// project is the workspace the MCP tests serve: a file to read, one to
// find with grep, and a policy that denies write_file outright.
var project = map[string]string{
	"notes.txt":   "first line\nthe needle is here\nlast line\n",
	"src/main.go": "package main\n\n// needle in the code\nfunc main() {}\n",
	"quiver.toml": "[policy]\ndeny = [\"write_file\"]\n",
}

// inspectorResult runs the MCP Inspector's CLI with args against a server
// and decodes the JSON it prints. The inspector exits 0 on tool errors, so
// the JSON is what tells.
func inspectorResult(t *testing.T, dir string, args ...string) map[string]any {
	t.Helper()
	cli := inspector(t)
	stdout, stderr, code := run(t, dir, 90*time.Second, "node", append([]string{cli, "--cli"}, args...)...)
	if code != 0 {
		t.Fatalf("inspector %v: exit %d\nstdout: %s\nstderr: %s", args, code, stdout, stderr)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(stdout), &m); err != nil {
		t.Fatalf("inspector %v printed no JSON: %v\n%s\nstderr: %s", args, err, stdout, stderr)
	}
	return m
}

func TestInspector(t *testing.T) {
	t.Parallel()
	dir := workspace(t, project)
	transports := map[string][]string{
		"stdio": {quiverBin, "serve"},
		"http":  {serveHTTP(t, dir), "--transport", "http"},
	}
	for name, target := range transports {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tests := []struct {
				name  string
				args  []string
				check func(t *testing.T, res map[string]any)
			}{
				{"inspector: tools/list shows allowed tools and hides the denied one", []string{"--method", "tools/list"},
					func(t *testing.T, res map[string]any) {
						names := map[string]bool{}
						for _, tl := range res["tools"].([]any) {
							names[tl.(map[string]any)["name"].(string)] = true
						}
						if !names["read_file"] || names["write_file"] {
							t.Errorf("listing: read_file %v, write_file %v; want read_file listed, write_file hidden", names["read_file"], names["write_file"])
						}
					}},
				{"inspector: tools/call read_file", []string{"--method", "tools/call", "--tool-name", "read_file", "--tool-arg", "path=notes.txt"},
					func(t *testing.T, res map[string]any) {
						if res["isError"] == true || !strings.Contains(contentText(res), "the needle is here") {
							t.Errorf("read_file: %v", res)
						}
						if sc, _ := res["structuredContent"].(map[string]any); sc["total_lines"] != float64(3) {
							t.Errorf("read_file structured content %v, want total_lines 3", res["structuredContent"])
						}
					}},
				{"inspector: tools/call grep_search", []string{"--method", "tools/call", "--tool-name", "grep_search", "--tool-arg", "pattern=needle"},
					func(t *testing.T, res map[string]any) {
						text := contentText(res)
						if res["isError"] == true || !strings.Contains(text, "notes.txt") || !strings.Contains(text, "main.go") {
							t.Errorf("grep_search: %v", res)
						}
					}},
				{"inspector: tools/call of a denied tool is an error result with its code", []string{"--method", "tools/call", "--tool-name", "write_file", "--tool-arg", "path=x.txt", "--tool-arg", "content=hi"},
					func(t *testing.T, res map[string]any) {
						meta, _ := res["_meta"].(map[string]any)["quiver/error"].(map[string]any)
						if res["isError"] != true || meta["code"] != "TOOL_NOT_ALLOWED" || !strings.Contains(contentText(res), "TOOL_NOT_ALLOWED") {
							t.Errorf("denied write_file: %v", res)
						}
						if _, err := os.Stat(filepath.Join(dir, "x.txt")); err == nil {
							t.Error("the denied call wrote its file")
						}
					}},
			}
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					t.Parallel()
					tt.check(t, inspectorResult(t, dir, append(append([]string{}, target...), tt.args...)...))
				})
			}
		})
	}
}

func contentText(res map[string]any) string {
	var b strings.Builder
	content, _ := res["content"].([]any)
	for _, c := range content {
		if text, ok := c.(map[string]any)["text"].(string); ok {
			b.WriteString(text + "\n")
		}
	}
	return b.String()
}

func TestConformanceServer(t *testing.T) {
	t.Parallel()
	node, suite := conformance(t)
	dir := workspace(t, project)
	url := serveHTTP(t, dir)
	stdout, stderr, code := run(t, dir, 4*time.Minute, node, suite, "server", "--url", url,
		"--expected-failures", filepath.Join(repoRoot, "testdata", "conformance", "expected-failures.yml"),
		"-o", t.TempDir())
	out := stdout + stderr
	if code != 0 {
		t.Fatalf("conformance server scenarios: exit %d\n%s", code, out)
	}
	for _, must := range []string{"server-initialize", "ping", "tools-list", "dns-rebinding-protection", "logging-set-level"} {
		if !regexp.MustCompile(`✓ ` + regexp.QuoteMeta(must) + `: \d+ passed, 0 failed`).MatchString(out) {
			t.Errorf("scenario %s did not pass:\n%s", must, out)
		}
	}
}

func TestConformanceClient(t *testing.T) {
	t.Parallel()
	node, suite := conformance(t)
	dir := t.TempDir()
	// The suite appends the URL of its test server to the command.
	scenarios := map[string]string{
		"initialize": quiverBin + " mcp tools",
		"tools_call": `sh -c 'exec "$0" mcp call "$1" add_numbers "{\"a\":5,\"b\":3}"' ` + quiverBin,
	}
	for name, command := range scenarios {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			stdout, stderr, code := run(t, dir, 2*time.Minute, node, suite, "client", "--scenario", name, "--command", command, "-o", t.TempDir())
			if code != 0 || !strings.Contains(stdout+stderr, "OVERALL: PASSED") {
				t.Errorf("client scenario %s: exit %d\n%s\n%s", name, code, stdout, stderr)
			}
		})
	}
}

// claudeDesktopBlock returns the JSON configuration docs/mcp-clients.md
// gives for Claude Desktop.
func claudeDesktopBlock(t *testing.T) []byte {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join(repoRoot, "docs", "mcp-clients.md"))
	if err != nil {
		t.Fatal(err)
	}
	section, ok := markdown.Parse(string(doc)).Section("Claude Desktop")
	if !ok {
		t.Fatal("docs/mcp-clients.md has no Claude Desktop section")
	}
	block, ok := section.Block("json")
	if !ok {
		t.Fatal("the Claude Desktop section has no json block")
	}
	return []byte(block.Text)
}

func TestClaudeDesktopConfigServes(t *testing.T) {
	t.Parallel()
	var cfg struct {
		MCPServers map[string]struct {
			Command string   `json:"command"`
			Args    []string `json:"args"`
		} `json:"mcpServers"`
	}
	if err := json.Unmarshal(claudeDesktopBlock(t), &cfg); err != nil {
		t.Fatalf("the documented configuration is not JSON: %v", err)
	}
	server, ok := cfg.MCPServers["quiver"]
	if !ok || server.Command != "quiver" {
		t.Fatalf("the documented configuration does not run quiver: %+v", cfg)
	}
	dir := workspace(t, project)
	args := make([]string, len(server.Args))
	for i, a := range server.Args {
		args[i] = strings.ReplaceAll(a, "/absolute/path/to/your/project", dir)
	}
	// As Claude Desktop does: the command is looked up on PATH, started in
	// another directory than the project, with the arguments as written.
	cmd := exec.Command(server.Command, args...)
	cmd.Dir = t.TempDir()
	cmd.Env = append(env(cmd.Dir), "PATH="+filepath.Dir(quiverBin)+string(os.PathListSeparator)+os.Getenv("PATH"))
	if err := lookPathIn(cmd); err != nil {
		t.Fatal(err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "claude-desktop-like", Version: "1"}, nil)
	cs, err := client.Connect(t.Context(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("initialize with %s %v: %v", server.Command, args, err)
	}
	defer cs.Close()
	list, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Tools) == 0 {
		t.Fatal("tools/list is empty")
	}
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "read_file", Arguments: map[string]any{"path": "notes.txt"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "the needle is here") {
		t.Errorf("read_file through the documented configuration: %+v", res.Content)
	}
}

// lookPathIn resolves cmd's program on the PATH of its own environment,
// as the client would.
func lookPathIn(cmd *exec.Cmd) error {
	for _, kv := range cmd.Env {
		if p, ok := strings.CutPrefix(kv, "PATH="); ok {
			for _, d := range filepath.SplitList(p) {
				full := filepath.Join(d, cmd.Args[0])
				if fi, err := os.Stat(full); err == nil && !fi.IsDir() {
					cmd.Path, cmd.Err = full, nil
					return nil
				}
			}
		}
	}
	return exec.ErrNotFound
}

func TestQuiverUsesMCPServersFromConfig(t *testing.T) {
	t.Parallel()
	everything := mcppeers.Server(t, "server-everything")
	inner := workspace(t, project)
	outer := workspace(t, map[string]string{"quiver.toml": `
[policy]
default = "allow"

[[tools.mcp.servers]]
name = "inner"
command = "` + quiverBin + `"
args = ["serve", "--root", "` + inner + `", "--config", "` + filepath.Join(inner, "quiver.toml") + `"]

[[tools.mcp.servers]]
name = "everything"
command = "node"
args = ["` + everything + `"]
disabled_tools = ["toggle-*"]

[[tools.mcp.servers]]
name = "broken"
command = "/nonexistent/mcp-server"
`})
	stdout, stderr, code := run(t, outer, time.Minute, quiverBin, "tools")
	if code != 0 {
		t.Fatalf("quiver tools: exit %d\n%s", code, stderr)
	}
	for _, want := range []string{"inner__read_file", "everything__echo", "provider mcp:broken unavailable:", "/nonexistent/mcp-server"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("quiver tools does not show %q:\n%s", want, stdout)
		}
	}
	for _, hidden := range []string{"inner__write_file", "everything__toggle-simulated-logging"} {
		if strings.Contains(stdout, hidden) {
			t.Errorf("quiver tools shows %s, which is denied or disabled", hidden)
		}
	}
	tests := []struct {
		name, tool, args string
		code             int
		want             string
	}{
		{"through MCP: a Quiver server's tool", "inner__read_file", `{"path":"notes.txt"}`, 0, "the needle is here"},
		{"through MCP: the inner server's error code comes through", "inner__read_file", `{"path":"../outside.txt"}`, 1, "SANDBOX_VIOLATION"},
		{"through MCP: a reference server's tool", "everything__echo", `{"message":"hello"}`, 0, "Echo: hello"},
		{"through MCP: arguments are checked against the server's schema", "everything__echo", `{"message":7}`, 1, "INVALID_ARGUMENTS"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			stdout, stderr, code := run(t, outer, time.Minute, quiverBin, "call", tt.tool, tt.args)
			if code != tt.code || !strings.Contains(stdout+stderr, tt.want) {
				t.Errorf("quiver call %s %s: exit %d, want %d and %q\nstdout: %s\nstderr: %s", tt.tool, tt.args, code, tt.code, tt.want, stdout, stderr)
			}
		})
	}
}

// TestCallStartsOnlyTheServerItCalls: a call starts the MCP servers that
// could serve its name, and no other: reading a file in a workspace that
// configures servers costs no server start (each leaves a line in
// started.txt when it starts), while a call of a server's tool starts that
// server alone.
func TestCallStartsOnlyTheServerItCalls(t *testing.T) {
	t.Parallel()
	inner := workspace(t, project)
	server := func(name string) string {
		return `
[[tools.mcp.servers]]
name = "` + name + `"
command = "sh"
args = ["-c", "echo ` + name + ` >> started.txt && exec \"$0\" serve --root \"$1\" --config \"$2\"", "` +
			quiverBin + `", "` + inner + `", "` + filepath.Join(inner, "quiver.toml") + `"]
`
	}
	outer := workspace(t, map[string]string{"notes.txt": "outer notes\n", "quiver.toml": "[policy]\ndefault = \"allow\"\n" +
		server("first") + server("second")})
	started := func() string {
		b, err := os.ReadFile(filepath.Join(outer, "started.txt"))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			t.Fatal(err)
		}
		return string(b)
	}
	steps := []struct {
		tool, args, want, started string
	}{
		{"read_file", `{"path":"notes.txt"}`, "outer notes", ""},
		{"grep_search", `{"pattern":"outer"}`, "notes.txt", ""},
		{"first__read_file", `{"path":"notes.txt"}`, "the needle is here", "first\n"},
		{"no_such_tool", `{}`, "TOOL_NOT_FOUND", "first\n"},
		{"second__nope", `{}`, "TOOL_NOT_FOUND", "first\nsecond\n"}, // a name the server may have: asked, and it has not
	}
	for _, s := range steps {
		stdout, stderr, code := run(t, outer, time.Minute, quiverBin, "call", s.tool, s.args)
		if !strings.Contains(stdout+stderr, s.want) {
			t.Errorf("quiver call %s: exit %d, want %q\nstdout: %s\nstderr: %s", s.tool, code, s.want, stdout, stderr)
		}
		if got := started(); got != s.started {
			t.Errorf("after quiver call %s, the servers started so far: %q, want %q", s.tool, got, s.started)
		}
	}
}

func TestServeAsksTheClientsUserThroughElicitation(t *testing.T) {
	t.Parallel()
	dir := workspace(t, map[string]string{"quiver.toml": "[policy]\nask = [\"write_file\"]\n"})
	for _, action := range []string{"accept", "decline"} {
		t.Run(action, func(t *testing.T) {
			var question string
			client := mcp.NewClient(&mcp.Implementation{Name: "asking-client", Version: "1"}, &mcp.ClientOptions{
				ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					question = req.Params.Message
					return &mcp.ElicitResult{Action: action}, nil
				}})
			cmd := exec.Command(quiverBin, "serve")
			cmd.Dir, cmd.Env = dir, env(dir)
			cs, err := client.Connect(t.Context(), &mcp.CommandTransport{Command: cmd}, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			file := action + ".txt"
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "write_file", Arguments: map[string]any{"path": file, "content": "asked first\n"}})
			if err != nil {
				t.Fatal(err)
			}
			_, statErr := os.Stat(filepath.Join(dir, file))
			written := statErr == nil
			if !strings.Contains(question, "write_file") || !strings.Contains(question, file) {
				t.Errorf("the user was asked %q, want the tool and its arguments", question)
			}
			if written != (action == "accept") || res.IsError == (action == "accept") {
				t.Errorf("%s: written %v, isError %v (%v)", action, written, res.IsError, res.Content)
			}
		})
	}
}

// TestInspectorDeferral: the MCP Inspector's CLI sees the core tools marked
// _meta["anthropic/alwaysLoad"] and the deferred ones unmarked; with
// --tool-search the deferred ones are not listed, tool_search is, and a
// deferred tool is called all the same.
func TestInspectorDeferral(t *testing.T) {
	t.Parallel()
	dir := workspace(t, project)
	list := func(args ...string) map[string]map[string]any {
		res := inspectorResult(t, dir, append([]string{quiverBin, "serve"}, append(args, "--method", "tools/list")...)...)
		out := map[string]map[string]any{}
		for _, tl := range res["tools"].([]any) {
			m := tl.(map[string]any)
			out[m["name"].(string)] = m
		}
		return out
	}
	tools := list()
	if meta, _ := tools["read_file"]["_meta"].(map[string]any); meta["anthropic/alwaysLoad"] != true {
		t.Errorf("read_file's _meta: %v", tools["read_file"]["_meta"])
	}
	if tools["list_dirs"] == nil || tools["list_dirs"]["_meta"] != nil {
		t.Errorf("list_dirs, deferred, listed unmarked: %v", tools["list_dirs"])
	}
	searching := list("--tool-search")
	if searching["list_dirs"] != nil || searching["tool_search"] == nil || searching["read_file"] == nil {
		t.Errorf("with --tool-search: list_dirs %v, tool_search %v, read_file %v", searching["list_dirs"] != nil, searching["tool_search"] != nil, searching["read_file"] != nil)
	}
	res := inspectorResult(t, dir, quiverBin, "serve", "--tool-search", "--method", "tools/call", "--tool-name", "list_dirs")
	if res["isError"] == true || !strings.Contains(contentText(res), "src") {
		t.Errorf("calling the deferred list_dirs: %v", res)
	}
}
