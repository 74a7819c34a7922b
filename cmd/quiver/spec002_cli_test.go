package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/quiverkit/quiver/internal/mcppeers"
)

// fakePrograms puts programs that print their arguments, one per line, on
// PATH: the spec's examples name gh, my-cli-command and
// external-cli-command, which this machine need not have.
func fakePrograms(t *testing.T, names ...string) {
	t.Helper()
	bin := t.TempDir()
	for _, n := range names {
		script := "#!/bin/sh\necho \"" + n + "\"\nfor a in \"$@\"; do echo \"[$a]\"; done\n"
		if err := os.WriteFile(filepath.Join(bin, n), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
}

// npxStandIn stands in for npx in the full example, which runs
// `npx -y @anthropic/mcp-server-filesystem /workspace`. That package name was
// never published (npm answers 404), and npx would fetch from the network;
// the server it means is published as @modelcontextprotocol/server-filesystem,
// which scripts/mcp-peers installs. The stand-in runs that one, with the
// spec's /workspace (its container's project folder) read as the folder the
// server is started in: Quiver starts servers in the workspace.
func npxStandIn(server string) string {
	return `#!/bin/sh
[ "$1" = -y ] && shift
if [ "$1" != "@anthropic/mcp-server-filesystem" ]; then
	echo "npx stand-in: only @anthropic/mcp-server-filesystem is known, not $1" >&2
	exit 1
fi
shift
dirs=
for a in "$@"; do
	[ "$a" = /workspace ] && a=$PWD
	dirs="$dirs $a"
done
exec node '` + server + `' $dirs
`
}

// The examples of the plugin tool system's specification (002), committed
// verbatim, work as quorum.toml: config check passes, quiver tools lists
// what each declares, and one tool of each kind it declares runs: builtin,
// CLI, custom and, for the full example, MCP.
func TestSpec002Examples(t *testing.T) {
	fakePrograms(t, "gh", "my-cli-command", "external-cli-command")
	bin := t.TempDir()
	standIn := npxStandIn(mcppeers.Server(t, "server-filesystem"))
	if err := os.WriteFile(filepath.Join(bin, "npx"), []byte(standIn), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	type call struct {
		args []string // after "quiver"
		want []string // each in stdout
	}
	cases := []struct {
		file      string
		tools     map[string]string // tool -> provider that serves it
		providers []string
		calls     []call
	}{
		{"quickstart.toml", map[string]string{"grep_search": "cli", "read_file": "builtin"}, []string{"builtin", "cli"},
			[]call{{[]string{"call", "grep_search", `{"pattern":"ripgrep","path":"."}`}, []string{"quorum.toml"}}}},
		{"custom-gh-create-issue.toml", map[string]string{"gh_create_issue": "custom"}, []string{"custom"},
			[]call{{[]string{"--yes", "call", "gh_create_issue", `{"title":"Bug; rm -rf x","body":"$(id)"}`},
				[]string{"exit_code: 0", "gh\n[issue]\n[create]\n[--title]\n[Bug; rm -rf x]\n[--body]\n[$(id)]"}}}},
		{"custom-list-branches.toml", map[string]string{"list_branches": "custom"}, []string{"custom"},
			[]call{{[]string{"call", "list_branches", `{}`}, []string{"exit_code: 0"}}}},
		{"quorum.toml", map[string]string{"gh_create_issue": "custom", "grep_search": "builtin", "glob_search": "builtin", "write_file": "builtin",
			"filesystem__read_text_file": "mcp:filesystem"},
			[]string{"builtin", "cli", "custom", "mcp:filesystem"},
			[]call{
				{[]string{"call", "grep_search", `{"pattern":"gh_create_issue","path":"."}`}, []string{"quorum.toml"}},
				{[]string{"--yes", "call", "gh_create_issue", `{"title":"t","body":"b"}`}, []string{"gh\n[issue]\n[create]\n[--title]\n[t]\n[--body]\n[b]"}},
				{[]string{"--yes", "call", "filesystem__read_text_file", `{"path":"quorum.toml"}`}, []string{"[tools.mcp]\nenabled = true"}},
			}},
		{"option1-custom-tool.toml", map[string]string{"my_tool": "custom"}, []string{"custom"},
			[]call{{[]string{"--yes", "call", "my_tool", `{"arg1":"one"}`}, []string{"my-cli-command\n[one]\n[--flag]\n"}}}},
		{"option2-cli-alias.toml", map[string]string{"my_tool": "cli"}, []string{"cli"},
			[]call{{[]string{"--yes", "call", "my_tool", `{"args":["list","--all","a b"]}`}, []string{"external-cli-command\n[list]\n[--all]\n[a b]"}}}},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("..", "..", "config", "testdata", "spec002", c.file))
			if err != nil {
				t.Fatal(err)
			}
			dir := workdir(t, map[string]string{"quorum.toml": string(data)})
			if out, err := exec.Command("git", "-C", dir, "init", "-q").CombinedOutput(); err != nil {
				t.Fatalf("git init: %v %s", err, out)
			}
			// quorum.toml is found in --root, with no quiver.toml anywhere.
			elsewhere := t.TempDir()
			if r := runCLI(t, elsewhere, "", "config", "check", "--root", dir); r.code != 0 || !strings.Contains(r.stdout, filepath.Join(dir, "quorum.toml")+": ok") {
				t.Fatalf("config check: %+v", r)
			}
			if r := runCLI(t, dir, "", "config", "check", "--config", "quorum.toml"); r.code != 0 || !strings.HasPrefix(r.stdout, "quorum.toml: ok") {
				t.Fatalf("config check --config: %+v", r)
			}
			listed := listTools(t, dir)
			for name, prov := range c.tools {
				if got, ok := listed.tools[name]; !ok || got != prov {
					t.Errorf("tool %s: provider %q (listed %v), want %q", name, got, ok, prov)
				}
			}
			for _, p := range c.providers {
				if !slices.Contains(listed.providers, p) {
					t.Errorf("provider %s not listed: %v", p, listed.providers)
				}
			}
			for _, cl := range c.calls {
				r := runCLI(t, dir, "", cl.args...)
				for _, w := range cl.want {
					if r.code != 0 || !strings.Contains(r.stdout, w) {
						t.Errorf("quiver %s: want %q in %+v", strings.Join(cl.args, " "), w, r)
					}
				}
			}
		})
	}
}

type listing struct {
	tools     map[string]string
	providers []string
}

func listTools(t *testing.T, dir string) listing {
	t.Helper()
	r := runCLI(t, dir, "", "--json", "tools")
	if r.code != 0 {
		t.Fatalf("tools: %+v", r)
	}
	var out struct {
		Tools     []toolJSON     `json:"tools"`
		Providers []providerJSON `json:"providers"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatal(err)
	}
	l := listing{tools: map[string]string{}}
	for _, tl := range out.Tools {
		l.tools[tl.Name] = tl.Provider
	}
	for _, p := range out.Providers {
		l.providers = append(l.providers, p.ID)
	}
	return l
}
