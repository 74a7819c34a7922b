package tools_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/quiverkit/quiver"
	"github.com/quiverkit/quiver/policy"
	"github.com/quiverkit/quiver/provider/builtin"
	"github.com/quiverkit/quiver/provider/cli"
	"github.com/quiverkit/quiver/tool"
	"github.com/quiverkit/quiver/tools"
)

var updateSearchGolden = flag.Bool("update-search-golden", false, "rewrite testdata/search/*.golden from the builtin backend's output")

// searchFixture is a small project: code, docs, ignored and hidden files, a
// binary file, a symlink, a name that is not UTF-8. Every regular file gets
// its own modification time, in the order listed, so that glob_search's
// newest-first order is known.
var searchFixture = []struct{ name, content string }{
	{".gitignore", "*.log\ndist/\n"},
	{".quiverignore", "secrets/\n"},
	{"go.mod", "module example.com/app\n"},
	{"cmd/app/main.go", "package main\n\nimport \"example.com/app/server\"\n\nfunc main() {\n\ts := server.New(\":8080\")\n\ts.Run()\n}\n"},
	{"server/server.go", "package server\n\n// Server serves requests.\ntype Server struct{ addr string }\n\n// New returns a server listening on addr.\nfunc New(addr string) *Server {\n\treturn &Server{addr: addr}\n}\n\n// NewTLS is New with TLS.\nfunc NewTLS(addr string) *Server { return New(addr) }\n\nfunc (s *Server) Run() {}\n"},
	{"server/server_test.go", "package server\n\nimport \"testing\"\n\nfunc TestNew(t *testing.T) {\n\tif New(\"x\") == nil {\n\t\tt.Fatal(\"nil\")\n\t}\n}\n"},
	{"docs/README.md", "# App\r\n\r\nCall `server.New` to start. TODO: document TLS.\r\n-v prints more.\r\n"},
	{"docs/long.md", strings.Repeat("word ", 150) + "func New at the end\n"},
	{"docs/caf\xe9.txt", "func New \xff in latin-1\n"},
	{"app.log", "func New in a log\n"},
	{"dist/bundle.js", "function New() {}\n"},
	{"secrets/key.go", "func New secret\n"},
	{".env", "TOKEN=func New\n"},
	{"assets/logo.bin", "\x89PNG\r\n\x1a\n\x00\x00func New\n"},
}

func writeSearchFixture(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	base := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	for i, f := range searchFixture {
		p := filepath.Join(dir, filepath.FromSlash(f.name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(f.content), 0o644); err != nil {
			t.Fatal(err)
		}
		ts := base.Add(time.Duration(i) * time.Minute)
		if err := os.Chtimes(p, ts, ts); err != nil {
			t.Fatal(err)
		}
	}
	// The symlink is made now, so it is the newest entry.
	if err := os.Symlink("server/server.go", filepath.Join(dir, "link.go")); err != nil {
		t.Fatal(err)
	}
	return dir
}

// searchBackends are the toolkits to run every search test on: the builtin
// tools alone, and with the CLI provider (rg and fd) over them.
func searchBackends(t *testing.T, dir string) map[string]*quiver.Toolkit {
	t.Helper()
	out := map[string]*quiver.Toolkit{}
	for _, name := range []string{"builtin", "cli"} {
		opts := []quiver.Option{quiver.WithRoot(dir), builtin.Standard(), quiver.WithPolicy(policy.AllowAll())}
		if name == "cli" {
			p := cli.New(cli.Options{})
			if list, err := p.Tools(context.Background()); err != nil || len(list) < 3 {
				if os.Getenv("CI") != "" {
					t.Fatalf("rg and fd are needed (the README's test set-up installs them): %v", err)
				}
				continue
			}
			opts = append(opts, quiver.WithProvider(p))
		}
		tk, err := quiver.New(opts...)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { tk.Close() })
		out[name] = tk
	}
	return out
}

// checkGolden compares got with testdata/search/name.golden.
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "search", name+".golden")
	if *updateSearchGolden {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update-search-golden to create it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s (-golden +got):\n%s", path, diff)
	}
}

// searchCases are calls whose model view is kept as a golden file; each
// runs on every backend and must give the same view.
var searchCases = []struct{ golden, tool, args string }{
	{"grep_content", "grep_search", `{"pattern":"func New"}`},
	{"grep_regexp", "grep_search", `{"pattern":"func\\s+New\\w*\\("}`},
	{"grep_context", "grep_search", `{"pattern":"New\\(","context_lines":1,"path":"server"}`},
	{"grep_files", "grep_search", `{"pattern":"New","output_mode":"files"}`},
	{"grep_count", "grep_search", `{"pattern":"New","output_mode":"count"}`},
	{"grep_capped", "grep_search", `{"pattern":"New","max_results":2}`},
	{"grep_case_insensitive", "grep_search", `{"pattern":"todo","case_insensitive":true}`},
	{"grep_fixed_dash", "grep_search", `{"pattern":"-v","fixed_strings":true}`},
	{"grep_file_pattern", "grep_search", `{"pattern":"New","file_pattern":"*_test.go"}`},
	{"grep_hidden_asked", "grep_search", `{"pattern":"func New","file_pattern":".env"}`},
	{"grep_explicit_ignored_dir", "grep_search", `{"pattern":"New","path":"dist"}`},
	{"grep_single_file", "grep_search", `{"pattern":"New","path":"server/server.go"}`},
	{"grep_no_match", "grep_search", `{"pattern":"no such text"}`},
	{"glob_go", "glob_search", `{"pattern":"**/*.go"}`},
	{"glob_capped", "glob_search", `{"pattern":"**/*","max_results":3}`},
	{"glob_top_level", "glob_search", `{"pattern":"./*"}`},
	{"glob_name_at_any_depth", "glob_search", `{"pattern":"*"}`},
	{"glob_base_dir", "glob_search", `{"pattern":"*.go","base_dir":"server"}`},
	{"glob_hidden_asked", "glob_search", `{"pattern":"**/.env"}`},
	{"glob_no_match", "glob_search", `{"pattern":"**/*.rs"}`},
	{"search_code", "search_code", `{"query":"new(","filePattern":"*.go","limit":4}`},
}

func TestSearchToolsGolden(t *testing.T) {
	dir := writeSearchFixture(t)
	backends := searchBackends(t, dir)
	for _, c := range searchCases {
		t.Run(c.golden, func(t *testing.T) {
			views := map[string]string{}
			for name, tk := range backends {
				out, err := tk.Invoke(context.Background(), c.tool, json.RawMessage(c.args))
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if out.Provider != name {
					t.Errorf("served by %q, want %q", out.Provider, name)
				}
				views[name] = out.Content.String()
			}
			checkGolden(t, c.golden, views["builtin"])
			if v, ok := views["cli"]; ok && v != views["builtin"] {
				t.Errorf("the cli backend's view differs from the builtin one:\n%s", v)
			}
		})
	}
}

func TestGrepSearchTypedOutput(t *testing.T) {
	dir := writeSearchFixture(t)
	for name, tk := range searchBackends(t, dir) {
		t.Run(name, func(t *testing.T) {
			out, err := quiver.Call(context.Background(), tk, tools.GrepSearch, tools.GrepSearchInput{Pattern: "New", MaxResults: 2})
			if err != nil {
				t.Fatal(err)
			}
			want := &tools.GrepSearchOutput{
				Mode: "content",
				Matches: []tools.GrepLine{
					{Path: "cmd/app/main.go", Line: 6, Text: "\ts := server.New(\":8080\")"},
					{Path: "docs/README.md", Line: 3, Text: "Call `server.New` to start. TODO: document TLS."},
				},
				TotalMatches: 10, TotalFiles: 6, Truncated: true,
			}
			if diff := cmp.Diff(want, out); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestGrepSearchRefusesBadInput(t *testing.T) {
	dir := writeSearchFixture(t)
	tests := []struct {
		name string
		args string
		code tool.Code
		hint string
	}{
		{"invalid regexp gives the parser's message", `{"pattern":"func (New"}`, tool.CodeInvalidArguments, "missing closing )"},
		{"empty pattern", `{"pattern":""}`, tool.CodeInvalidArguments, "pattern"},
		{"literal line break", `{"pattern":"a\\nb"}`, tool.CodeInvalidArguments, "line break"},
		{"path outside the workspace", `{"pattern":"x","path":"../.."}`, tool.CodeSandboxViolation, "outside the workspace"},
		{"absolute path outside", `{"pattern":"x","path":"/etc"}`, tool.CodeSandboxViolation, "outside the workspace"},
		{"missing path", `{"pattern":"x","path":"nowhere"}`, tool.CodeNotFound, "no such file"},
		{"bad file pattern", `{"pattern":"x","file_pattern":"[a-"}`, tool.CodeInvalidArguments, "file_pattern"},
		{"unknown output mode", `{"pattern":"x","output_mode":"json"}`, tool.CodeInvalidArguments, "output_mode"},
		{"negative context", `{"pattern":"x","context_lines":-1}`, tool.CodeInvalidArguments, "context_lines"},
		{"zero max_results", `{"pattern":"x","max_results":0}`, tool.CodeInvalidArguments, "max_results"},
		{"unknown field", `{"pattern":"x","regex":true}`, tool.CodeInvalidArguments, "regex"},
	}
	for name, tk := range searchBackends(t, dir) {
		for _, tt := range tests {
			t.Run(name+" "+tt.name, func(t *testing.T) {
				_, err := tk.Invoke(context.Background(), "grep_search", json.RawMessage(tt.args))
				wantCode(t, err, tt.code, tt.hint)
			})
		}
	}
}

func TestGrepSearchCatastrophicPatternsRunInLinearTime(t *testing.T) {
	// (a+)+$ takes exponential time in backtracking engines; RE2 has none.
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte(strings.Repeat("a", 100_000)+"!\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, tk := range searchBackends(t, dir) {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		out, err := tk.Invoke(ctx, "grep_search", json.RawMessage(`{"pattern":"(a+)+$"}`))
		cancel()
		if err != nil || !strings.Contains(out.Content.String(), "No matches") {
			t.Errorf("%s: %v %s", name, err, out.Content.String())
		}
	}
}

// TestSearchToolsThroughCLI runs `quiver call` with each provider and
// requires the golden views.
func TestSearchToolsThroughCLI(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the quiver binary")
	}
	dir := writeSearchFixture(t)
	for _, prov := range []string{"builtin", "cli"} {
		for _, c := range []struct{ golden, tool, args string }{searchCases[0], searchCases[4], searchCases[13], searchCases[19]} {
			out, err := quiverCLI(t, dir, "--root", dir, "--yes", "call", "--provider", prov, c.tool, c.args)
			if err != nil {
				if prov == "cli" && os.Getenv("CI") == "" && strings.Contains(err.Error(), "TOOL_NOT_FOUND") {
					continue // rg or fd missing here
				}
				t.Fatalf("%s %s: %v", prov, c.golden, err)
			}
			want, _ := os.ReadFile(filepath.Join("testdata", "search", c.golden+".golden"))
			if strings.TrimSuffix(out, "\n") != string(want) {
				t.Errorf("quiver call --provider %s %s %s:\n%s\nwant:\n%s", prov, c.tool, c.args, out, want)
			}
		}
	}
}

// quiverCLI runs the quiver binary built once for this package's tests.
func quiverCLI(t *testing.T, dir string, args ...string) (string, error) {
	t.Helper()
	quiverBinOnce.Do(buildQuiverBin)
	if quiverBinErr != nil {
		t.Fatalf("go build ./cmd/quiver: %v", quiverBinErr)
	}
	cmd := exec.Command(quiverBin, args...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), errors.New(stderr.String())
	}
	return stdout.String(), nil
}

func buildQuiverBin() {
	dir, err := os.MkdirTemp("", "quiver-bin-")
	if err != nil {
		quiverBinErr = err
		return
	}
	quiverBin = filepath.Join(dir, "quiver")
	if out, err := exec.Command("go", "build", "-o", quiverBin, "github.com/quiverkit/quiver/cmd/quiver").CombinedOutput(); err != nil {
		quiverBinErr = errors.New(string(out))
	}
}
