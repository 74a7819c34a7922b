package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/quiverkit/quiver/internal/githubtest"
)

// spec004Repo is a repository, named fullName on a fake of GitHub, holding
// the paths specification 004's examples name.
func spec004Repo(t *testing.T, fullName string) *githubtest.Server {
	t.Helper()
	owner, name, _ := strings.Cut(fullName, "/")
	srv := githubtest.New(t, githubtest.Options{})
	_, err := srv.AddRepo(githubtest.Repo{Owner: owner, Name: name, Private: true, Files: githubtest.Files(
		"apps/webapp/src/main.tsx", strings.Repeat("// main\n", 127)+"ok\n",
		"apps/webapp/src/app.ts", "export const app = 1\n",
		"apps/webapp/src/domains/billing/index.ts", "export {}\n",
		"apps/webapp/src/routes/home.tsx", "export default function Home() {}\n",
		"src/components/button.tsx", "export function Button() { return null }\n",
		"src/auth/login.tsx", "export function LoginForm() {\n  return auth()\n}\n",
		"src/auth/session.ts", "import { auth } from './client'\nexport const session = auth.session\n",
	)})
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

// githubConfig writes a configuration serving srv's acme/product and
// returns its path.
func githubConfig(t *testing.T, dir, apiURL string) string {
	t.Helper()
	cfg := filepath.Join(dir, "github.toml")
	body := fmt.Sprintf("[workspace]\nbackend = \"github\"\nrepo = \"acme/product\"\ntoken_env = \"QUIVER_TEST_GH_TOKEN\"\napi_url = %q\n", apiURL)
	if err := os.WriteFile(cfg, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return cfg
}

// noConnection is 004's answer to a call with no GitHub connection, and
// the code Quiver gives it.
const (
	noConnection     = "No active GitHub connection found"
	noConnectionCode = "NO_CONNECTION"
)

// spec004Example is one of 004's examples, its input verbatim, against
// spec004Repo.
type spec004Example struct {
	tool, input string
	// check says what is wrong with the call's output (decoded JSON) for
	// 004's shape, or "".
	check func(output any) string
}

// spec004Examples are 004's examples, which every way of calling the tools
// on a GitHub workspace (quiver call, quiver serve) answers alike.
var spec004Examples = []spec004Example{
	{"list_dirs", `{"path":"apps/webapp/src","depth":2,"limit":50}`, outputIs(map[string]any{"path": "apps/webapp/src", "dirs": []any{
		map[string]any{"path": "apps/webapp/src/domains", "depth": 1.0},
		map[string]any{"path": "apps/webapp/src/domains/billing", "depth": 2.0},
		map[string]any{"path": "apps/webapp/src/routes", "depth": 1.0}}, "truncated": false})},
	{"list_files", `{"path":"apps/webapp/src","pattern":"*.tsx","limit":50}`, outputIs(map[string]any{"path": "apps/webapp/src", "files": []any{
		map[string]any{"path": "apps/webapp/src/main.tsx", "name": "main.tsx", "size": 1019.0}}, "truncated": false})},
	{"search_code", `{"query":"auth","filePattern":"*.ts","limit":20}`, outputIs([]any{
		map[string]any{"path": "src/auth/session.ts", "line": 1.0, "snippet": "import { auth } from './client'"},
		map[string]any{"path": "src/auth/session.ts", "line": 2.0, "snippet": "export const session = auth.session"}})},
	{"read_file", `{"path":"src/components/button.tsx"}`, func(output any) string {
		got, _ := output.(map[string]any)
		if got["path"] != "src/components/button.tsx" || !strings.Contains(fmt.Sprint(got["content"]), "export function Button()") || got["size"] != 41.0 {
			return fmt.Sprintf("want path, content and size 41 of src/components/button.tsx, got %v", output)
		}
		return ""
	}},
}

// outputIs checks an output against want, as JSON decodes it.
func outputIs(want any) func(any) string {
	return func(got any) string {
		if d := cmp.Diff(want, got); d != "" {
			return "(-want +got):\n" + d
		}
		return ""
	}
}

// TestSpec004OverGitHub: 004's examples, verbatim, against the GitHub
// backend answer in 004's shapes; against a workspace with no connection
// (no token, a token GitHub refuses) each returns 004's error.
func TestSpec004OverGitHub(t *testing.T) {
	srv := spec004Repo(t, "acme/product")
	dir := t.TempDir()
	cfg := githubConfig(t, dir, srv.URL)
	run := func(token, tool, input string) callJSON {
		t.Helper()
		t.Setenv("QUIVER_TEST_GH_TOKEN", token)
		r := runCLI(t, dir, "", "--config", cfg, "--json", "call", tool, input)
		var out callJSON
		if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
			t.Fatalf("%s %s: %v\n%s%s", tool, input, err, r.stdout, r.stderr)
		}
		return out
	}
	for _, ex := range spec004Examples {
		out := run(githubtest.Token, ex.tool, ex.input)
		if wrong := ex.check(out.Output); wrong != "" || out.IsError {
			t.Errorf("%s %s: %s\n%s", ex.tool, ex.input, wrong, out.Content)
		}
	}
	for _, token := range []string{"", "ghp_revoked"} {
		for _, ex := range spec004Examples {
			out := run(token, ex.tool, ex.input)
			if !out.IsError || out.Error == nil || out.Error.Message != noConnection || out.Error.Code != noConnectionCode {
				t.Errorf("token %q, %s: %+v", token, ex.tool, out)
			}
		}
	}
}

// githubReadTools are the tools a GitHub workspace offers; the tools of
// githubRefusedTools it does not, and githubRefusedCalls are calls to them
// (tool, arguments), each refused naming the backend.
var (
	githubReadTools    = []string{"read_file", "list_dirs", "list_files", "tree", "glob_search", "grep_search", "search_code"}
	githubRefusedTools = []string{"write_file", "edit", "multi_edit", "apply_patch", "exec_command", "write_stdin", "git_status_summary"}
	githubRefusedCalls = [][2]string{
		{"write_file", `{"path":"x.txt","content":"x"}`},
		{"edit", `{"path":"src/auth/login.tsx","old_string":"auth","new_string":"x"}`},
		{"apply_patch", `{"patch":"*** Begin Patch\n*** Add File: y\n+y\n*** End Patch"}`},
		{"exec_command", `{"command":"ls"}`},
		{"git_status_summary", `{}`},
	}
)

// TestGitHubWorkspaceIsReadOnly: on a GitHub workspace the tools that write
// or start processes are not offered, and a call to one is refused naming
// the repository.
func TestGitHubWorkspaceIsReadOnly(t *testing.T) {
	srv := spec004Repo(t, "acme/product")
	dir := t.TempDir()
	cfg := githubConfig(t, dir, srv.URL)
	t.Setenv("QUIVER_TEST_GH_TOKEN", githubtest.Token)
	var listed struct {
		Tools []struct {
			Name    string `json:"name"`
			Allowed bool   `json:"allowed"`
		} `json:"tools"`
	}
	r := runCLI(t, dir, "", "--config", cfg, "--json", "tools")
	if err := json.Unmarshal([]byte(r.stdout), &listed); err != nil {
		t.Fatalf("quiver tools --json: %v\n%s", err, r.stderr)
	}
	allowed := map[string]bool{}
	for _, tl := range listed.Tools {
		allowed[tl.Name] = tl.Allowed
	}
	for _, name := range githubReadTools {
		if !allowed[name] {
			t.Errorf("%s is not offered", name)
		}
	}
	for _, name := range githubRefusedTools {
		if a, listed := allowed[name]; !listed || a {
			t.Errorf("%s: listed %v, allowed %v; want listed and not allowed", name, listed, a)
		}
	}
	for _, call := range githubRefusedCalls {
		r := runCLI(t, dir, "", "--config", cfg, "--yes", "call", call[0], call[1])
		if r.code != 1 || !strings.Contains(r.stderr, "TOOL_NOT_ALLOWED") || !strings.Contains(r.stderr, "github acme/product") {
			t.Errorf("%s: exit %d, %q", call[0], r.code, r.stderr)
		}
	}
}
