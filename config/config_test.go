package config

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/quiverkit/quiver/policy"
	"github.com/quiverkit/quiver/sandbox"
)

func TestParseErrorsHavePositions(t *testing.T) {
	cases := []struct {
		name, doc, want string
	}{
		{"unknown key", "[workspace]\nroots = \".\"\n", `q.toml:2:1: unknown key "workspace.roots"`},
		{"unknown section", "[polcy]\nallow = []\n", `q.toml:1:2: unknown key "polcy"`},
		{"bad decision", "[policy]\ndefault = \"maybe\"\n", `q.toml:2:11: decision "maybe"`},
		{"bad per-tool decision", "[policy.tools]\nexec_command = \"often\"\n", `q.toml:2:16: decision "often"`},
		{"bad rule", "[policy]\nallow = [\"ok\", \"read_file(\"]\n", `q.toml:2:16: rule "read_file("`},
		{"bad write scope", "[workspace]\nwrite_scope = \"all\"\n", `q.toml:2:15: write scope "all"`},
		{"wrong type", "[exec]\nmax_timeout_secs = \"ten\"\n", "q.toml:2:"},
		{"not TOML", "[policy\n", "q.toml:1:"},
		{"bad mcp server network", "[[tools.mcp.servers]]\nname = \"a\"\ncommand = \"x\"\nnetwork = [\"https://x.example\"]\n", `q.toml: network[0]: host pattern "https://x.example"`},
		{"mcp server without a name", "[[tools.mcp.servers]]\ncommand = \"x\"\n", "tools.mcp.servers[0]: name is required"},
		{"mcp server with both command and url", "[[tools.mcp.servers]]\nname = \"a\"\ncommand = \"x\"\nurl = \"http://x\"\n", "exactly one of command and url"},
		{"output store", "[output]\nstore = \"cloud\"\n", `output.store: "cloud"`},
		{"bad sandbox read", "[sandbox]\nnetwork = false\nread = \"home\"\n", `q.toml:3:8: sandbox.read "home": want "all" or "workspace"`},
		{"sandbox read of another type", "[sandbox]\nread = true\n", `sandbox.read "true": want "all" or "workspace"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("q.toml", []byte(c.doc))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want %q", err, c.want)
			}
		})
	}
}

func TestParseGitHubWorkspace(t *testing.T) {
	c, err := Parse("q.toml", []byte("[workspace]\nbackend = \"github\"\nrepo = \"acme/webapp\"\nref = \"main\"\ntoken_env = \"GH_TOKEN\"\napi_url = \"https://ghe.example.com/api/v3\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := Workspace{Backend: "github", Repo: "acme/webapp", Ref: "main", TokenEnv: "GH_TOKEN", APIURL: "https://ghe.example.com/api/v3"}
	if d := cmp.Diff(want, c.Workspace); d != "" || !c.Workspace.GitHub() {
		t.Errorf("(-want +got):\n%s", d)
	}
}

func TestParseFull(t *testing.T) {
	doc := `
[workspace]
root = "src"
write_scope = "read-only"

[policy]
default = "deny"
allow = ["read_file", "exec_command(git status)"]
ask = ["write_file"]
deny = ["exec_command(rm *)"]

[policy.tools]
exec_command = "ask"

[tools.cli.aliases]
grep_search = "rg"

[[tools.mcp.servers]]
name = "fs"
command = "npx"
args = ["-y", "server"]

[outputs.report]
schema = "report.schema.json"

[serve]
ask_fallback = "deny"

[sandbox]
read = "workspace"
`
	c, err := Parse("/etc/quiver/q.toml", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	pc := c.PolicyConfig()
	if pc.Default != policy.Deny || len(pc.Allow) != 2 || pc.Allow[1] != "exec_command(git status)" || pc.Tools["exec_command"] != policy.Ask {
		t.Errorf("policy %+v", pc)
	}
	if _, err := policy.New(pc, c.Workspace.WriteScope.WriteScope); err != nil {
		t.Errorf("policy.New: %v", err)
	}
	if c.Workspace.WriteScope.WriteScope != sandbox.ReadOnly || c.Tools.CLI.Aliases["grep_search"] != "rg" || c.Tools.MCP.Servers[0].Args[1] != "server" ||
		c.Sandbox.Read.String() != "workspace" {
		t.Errorf("config %+v", c)
	}
	if got := c.Resolve(c.Outputs["report"].Schema); got != "/etc/quiver/report.schema.json" {
		t.Errorf("Resolve = %q", got)
	}
}

// TestMCPServerNetworkList: a stdio server's network is true, false or a
// list of host patterns, as [sandbox] network is.
func TestMCPServerNetworkList(t *testing.T) {
	cfg, err := Parse("q.toml", []byte("[[tools.mcp.servers]]\nname = \"a\"\ncommand = \"x\"\nnetwork = [\"registry.npmjs.org\", \"*.example.com\"]\n"+
		"[[tools.mcp.servers]]\nname = \"b\"\ncommand = \"x\"\nnetwork = true\n"))
	if err != nil {
		t.Fatal(err)
	}
	servers := cfg.Tools.MCP.Servers
	if got := []string{servers[0].Network.String(), servers[1].Network.String()}; !slices.Equal(got, []string{`["registry.npmjs.org", "*.example.com"]`, "true"}) {
		t.Errorf("networks %q", got)
	}
}
