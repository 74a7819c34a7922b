package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/pelletier/go-toml/v2"

	"github.com/quiverkit/quiver/config"
	"github.com/quiverkit/quiver/internal/githubtest"
	"github.com/quiverkit/quiver/internal/markdown"
	"github.com/quiverkit/quiver/mcpserver"
)

// readmeGitHubSection is the README's section that serves a GitHub
// repository over MCP.
const readmeGitHubSection = "A GitHub repository, read-only, over MCP"

// readmeServeCommand is the command the section runs, in a code span.
var readmeServeCommand = regexp.MustCompile("`quiver (serve[^`]*)`")

// githubSetup is the README's set-up of a GitHub repository served over
// MCP, as written there.
type githubSetup struct {
	args     []string       // quiver's arguments: serve --config FILE
	file     string         // the configuration file the command names
	config   map[string]any // the configuration the README shows
	repo     string         // its [workspace] repo
	tokenEnv string         // the variable the token is read from
}

// readmeGitHubSetup reads the set-up from the README's section: the command
// from its prose, the configuration from its toml block.
func readmeGitHubSetup(t *testing.T) githubSetup {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	section, ok := markdown.Parse(string(data)).Section(readmeGitHubSection)
	if !ok {
		t.Fatalf("README.md has no section %q", readmeGitHubSection)
	}
	prose := strings.Join(section.Prose, "\n")
	m := readmeServeCommand.FindStringSubmatch(prose)
	if m == nil {
		t.Fatalf("README.md:%d: the section shows no `quiver serve ...` command", section.Start)
	}
	s := githubSetup{args: strings.Fields(m[1])}
	if i := slices.Index(s.args, "--config"); i >= 0 && i+1 < len(s.args) {
		s.file = s.args[i+1]
	} else {
		t.Fatalf("README.md:%d: %q names no --config file", section.Start, m[0])
	}
	block, ok := section.Block("toml")
	if !ok {
		t.Fatalf("README.md:%d: the section has no toml block", section.Start)
	}
	if err := toml.Unmarshal([]byte(block.Text), &s.config); err != nil {
		t.Fatalf("README.md:%d: the toml block: %v", block.Line, err)
	}
	ws, _ := s.config["workspace"].(map[string]any)
	if ws["backend"] != config.BackendGitHub {
		t.Fatalf("README.md:%d: the block's [workspace] backend is %v, want %q", block.Line, ws["backend"], config.BackendGitHub)
	}
	s.repo, _ = ws["repo"].(string)
	tokenEnv, _ := ws["token_env"].(string)
	s.tokenEnv = cmp.Or(tokenEnv, config.DefaultTokenEnv)
	if !strings.Contains(prose, "`"+s.tokenEnv+"`") {
		t.Errorf("README.md:%d: the section does not say the token goes in `%s`", section.Start, s.tokenEnv)
	}
	return s
}

// serveOverMCP starts the README's command in dir as an MCP client starts
// a server (command, arguments, environment) and connects the go-sdk
// client to it. token is the token variable's value; "" leaves it unset.
// What the server writes to standard error is in the returned buffer.
func serveOverMCP(ctx context.Context, t *testing.T, dir string, s githubSetup, token string) (*mcp.ClientSession, *syncBuffer) {
	t.Helper()
	cmd := exec.Command(quiverBin, s.args...)
	cmd.Dir = dir
	cmd.Env = slices.DeleteFunc(cliEnv(dir), func(kv string) bool { return strings.HasPrefix(kv, s.tokenEnv+"=") })
	if token != "" {
		cmd.Env = append(cmd.Env, s.tokenEnv+"="+token)
	}
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "readme-github", Version: "1"}, nil).
		Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("quiver %v: initialize: %v\n%s", s.args, err, stderr)
	}
	t.Cleanup(func() { cs.Close() })
	return cs, stderr
}

// syncBuffer is a bytes.Buffer the server's standard error is copied into
// while the test reads it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// callMCP calls tool with input (a JSON object) and returns the result and
// its output as JSON decodes it: the structured content, or the text of a
// tool with no output schema (search_code's list).
func callMCP(ctx context.Context, t *testing.T, cs *mcp.ClientSession, tool, input string) (*mcp.CallToolResult, any) {
	t.Helper()
	var args map[string]any
	if err := json.Unmarshal([]byte(input), &args); err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("tools/call %s: %v", tool, err)
	}
	if res.IsError || res.StructuredContent != nil {
		return res, res.StructuredContent
	}
	var output any
	if len(res.Content) != 1 {
		t.Fatalf("%s: %d content parts, want the output's JSON", tool, len(res.Content))
	}
	text, _ := res.Content[0].(*mcp.TextContent)
	if text == nil || json.Unmarshal([]byte(text.Text), &output) != nil {
		t.Fatalf("%s: content %+v is not the output's JSON", tool, res.Content[0])
	}
	return res, output
}

// hangGuard bounds a subtest's talk with the server: a server that never
// answers (one serving HTTP when the client speaks on its standard input)
// fails the test instead of hanging it.
func hangGuard(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// callError is the error a failed call carries under _meta.
func callError(res *mcp.CallToolResult) mcpserver.ErrorInfo {
	var info mcpserver.ErrorInfo
	raw, _ := json.Marshal(res.Meta[mcpserver.MetaError])
	json.Unmarshal(raw, &info)
	return info
}

// TestReadmeGitHubServe runs the README's GitHub set-up as written, its
// API pointed at the fake of GitHub: an MCP client is offered only the read
// tools, is refused the others naming the backend, gets 004's examples in
// 004's shapes, and, with the token variable unset, 004's error.
func TestReadmeGitHubServe(t *testing.T) {
	setup := readmeGitHubSetup(t)
	srv := spec004Repo(t, setup.repo)
	dir := t.TempDir()
	// The one line the README leaves out: where GitHub's API is.
	setup.config["workspace"].(map[string]any)["api_url"] = srv.URL
	data, err := toml.Marshal(setup.config)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, setup.file), data, 0o644); err != nil {
		t.Fatal(err)
	}

	t.Run("with a token", func(t *testing.T) {
		ctx := hangGuard(t)
		cs, stderr := serveOverMCP(ctx, t, dir, setup, githubtest.Token)
		list, err := cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tl := range list.Tools {
			names = append(names, tl.Name)
			if tl.Annotations == nil || !tl.Annotations.ReadOnlyHint {
				t.Errorf("%s is offered and is not read-only", tl.Name)
			}
		}
		for _, name := range githubReadTools {
			if !slices.Contains(names, name) {
				t.Errorf("%s is not offered; offered: %v", name, names)
			}
		}
		for _, name := range githubRefusedTools {
			if slices.Contains(names, name) {
				t.Errorf("%s is offered on a read-only workspace", name)
			}
		}
		for _, call := range githubRefusedCalls {
			res, _ := callMCP(ctx, t, cs, call[0], call[1])
			if e := callError(res); !res.IsError || e.Code != "TOOL_NOT_ALLOWED" || !strings.Contains(e.Message, "github "+setup.repo) {
				t.Errorf("%s: %+v, want TOOL_NOT_ALLOWED naming github %s", call[0], e, setup.repo)
			}
		}
		for _, ex := range spec004Examples {
			res, output := callMCP(ctx, t, cs, ex.tool, ex.input)
			if wrong := ex.check(output); wrong != "" || res.IsError {
				t.Errorf("%s %s: %s\n%+v", ex.tool, ex.input, wrong, callError(res))
			}
		}
		if !strings.Contains(stderr.String(), "root=\"github "+setup.repo) {
			t.Errorf("the start-up line does not name the repository it serves:\n%s", stderr)
		}
	})

	t.Run("with the token variable unset", func(t *testing.T) {
		ctx := hangGuard(t)
		cs, _ := serveOverMCP(ctx, t, dir, setup, "")
		for _, ex := range spec004Examples {
			res, _ := callMCP(ctx, t, cs, ex.tool, ex.input)
			if e := callError(res); !res.IsError || e.Code != noConnectionCode || e.Message != noConnection {
				t.Errorf("%s: %+v, want %s %q", ex.tool, e, noConnectionCode, noConnection)
			}
		}
	})
}
