package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quiverkit/quiver/internal/githubtest"
)

// TestInspectorGitHub: the MCP Inspector, configured as the README says a
// client is (the token in the client's env for the server), lists only the
// read tools of a GitHub repository served by quiver serve, and reads a
// file of it; GitHub is the loopback fake.
func TestInspectorGitHub(t *testing.T) {
	t.Parallel()
	srv := githubtest.New(t, githubtest.Options{})
	if _, err := srv.AddRepo(githubtest.Repo{Owner: "acme", Name: "webapp", Private: true,
		Files: githubtest.Files("src/components/button.tsx", "export function Button() { return null }\n")}); err != nil {
		t.Fatal(err)
	}
	dir := untrustedWorkspace(t, map[string]string{
		"github.toml": fmt.Sprintf("[workspace]\nbackend = \"github\"\nrepo = \"acme/webapp\"\napi_url = %q\n", srv.URL),
	})
	clientConfig, err := json.Marshal(map[string]any{"mcpServers": map[string]any{"webapp": map[string]any{
		"command": quiverBin,
		"args":    []string{"serve", "--config", "github.toml"},
		"env":     map[string]string{"GITHUB_TOKEN": githubtest.Token},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	configPath := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(configPath, clientConfig, 0o600); err != nil {
		t.Fatal(err)
	}
	server := []string{"--config", configPath, "--server", "webapp"}

	listed := inspectorResult(t, dir, append(server, "--method", "tools/list")...)
	names := map[string]bool{}
	for _, tl := range listed["tools"].([]any) {
		names[tl.(map[string]any)["name"].(string)] = true
	}
	if !names["read_file"] || !names["search_code"] || names["write_file"] || names["exec_command"] {
		t.Errorf("tools/list: %v; want read_file and search_code, not write_file nor exec_command", names)
	}

	res := inspectorResult(t, dir, append(server, "--method", "tools/call", "--tool-name", "read_file", "--tool-arg", "path=src/components/button.tsx")...)
	sc, _ := res["structuredContent"].(map[string]any)
	if res["isError"] == true || sc["path"] != "src/components/button.tsx" || sc["size"] != 41.0 ||
		!strings.Contains(fmt.Sprint(sc["content"]), "export function Button()") {
		t.Errorf("read_file: %v", res)
	}
}
