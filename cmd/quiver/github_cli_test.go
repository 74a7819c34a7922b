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

// spec004Repo is a repository holding the paths specification 004's
// examples name.
func spec004Repo(t *testing.T) *githubtest.Server {
	t.Helper()
	srv := githubtest.New(t, githubtest.Options{})
	_, err := srv.AddRepo(githubtest.Repo{Owner: "acme", Name: "product", Private: true, Files: githubtest.Files(
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

// TestSpec004OverGitHub: 004's examples, verbatim, against the GitHub
// backend answer in 004's shapes; against a workspace with no connection
// (no token, a token GitHub refuses) each returns 004's error.
func TestSpec004OverGitHub(t *testing.T) {
	srv := spec004Repo(t)
	dir := t.TempDir()
	cfg := githubConfig(t, dir, srv.URL)
	examples := []struct {
		tool, input string
		want        any // the output, as JSON
	}{
		{"list_dirs", `{"path":"apps/webapp/src","depth":2,"limit":50}`, map[string]any{"path": "apps/webapp/src", "dirs": []any{
			map[string]any{"path": "apps/webapp/src/domains", "depth": 1.0},
			map[string]any{"path": "apps/webapp/src/domains/billing", "depth": 2.0},
			map[string]any{"path": "apps/webapp/src/routes", "depth": 1.0}}, "truncated": false}},
		{"list_files", `{"path":"apps/webapp/src","pattern":"*.tsx","limit":50}`, map[string]any{"path": "apps/webapp/src", "files": []any{
			map[string]any{"path": "apps/webapp/src/main.tsx", "name": "main.tsx", "size": 1019.0}}, "truncated": false}},
		{"search_code", `{"query":"auth","filePattern":"*.ts","limit":20}`, []any{
			map[string]any{"path": "src/auth/session.ts", "line": 1.0, "snippet": "import { auth } from './client'"},
			map[string]any{"path": "src/auth/session.ts", "line": 2.0, "snippet": "export const session = auth.session"}}},
	}
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
	for _, ex := range examples {
		out := run(githubtest.Token, ex.tool, ex.input)
		if d := cmp.Diff(ex.want, out.Output); d != "" || out.IsError {
			t.Errorf("%s %s (-want +got):\n%s\n%s", ex.tool, ex.input, d, out.Content)
		}
	}
	read := run(githubtest.Token, "read_file", `{"path":"src/components/button.tsx"}`)
	got, _ := read.Output.(map[string]any)
	if read.IsError || got["path"] != "src/components/button.tsx" || !strings.Contains(fmt.Sprint(got["content"]), "export function Button()") || got["size"] != 41.0 {
		t.Errorf("read_file: %+v", read)
	}

	for _, token := range []string{"", "ghp_revoked"} {
		for _, ex := range append(examples, struct {
			tool, input string
			want        any
		}{tool: "read_file", input: `{"path":"src/components/button.tsx"}`}) {
			out := run(token, ex.tool, ex.input)
			if !out.IsError || out.Error == nil || out.Error.Message != "No active GitHub connection found" || out.Error.Code != "NO_CONNECTION" {
				t.Errorf("token %q, %s: %+v", token, ex.tool, out)
			}
		}
	}
}

// TestGitHubWorkspaceIsReadOnly: on a GitHub workspace the tools that write
// or start processes are not offered, and a call to one is refused naming
// the repository.
func TestGitHubWorkspaceIsReadOnly(t *testing.T) {
	srv := spec004Repo(t)
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
	for _, name := range []string{"read_file", "list_dirs", "list_files", "tree", "glob_search", "grep_search", "search_code"} {
		if !allowed[name] {
			t.Errorf("%s is not offered", name)
		}
	}
	for _, name := range []string{"write_file", "edit", "multi_edit", "apply_patch", "exec_command", "write_stdin", "git_status_summary"} {
		if a, listed := allowed[name]; !listed || a {
			t.Errorf("%s: listed %v, allowed %v; want listed and not allowed", name, listed, a)
		}
	}
	for _, call := range [][2]string{
		{"write_file", `{"path":"x.txt","content":"x"}`},
		{"edit", `{"path":"src/auth/login.tsx","old_string":"auth","new_string":"x"}`},
		{"apply_patch", `{"patch":"*** Begin Patch\n*** Add File: y\n+y\n*** End Patch"}`},
		{"exec_command", `{"command":"ls"}`},
		{"git_status_summary", `{}`},
	} {
		r := runCLI(t, dir, "", "--config", cfg, "--yes", "call", call[0], call[1])
		if r.code != 1 || !strings.Contains(r.stderr, "TOOL_NOT_ALLOWED") || !strings.Contains(r.stderr, "github acme/product") {
			t.Errorf("%s: exit %d, %q", call[0], r.code, r.stderr)
		}
	}
}
