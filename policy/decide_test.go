package policy

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/quiverkit/quiver/tool"
	"github.com/quiverkit/quiver/workspace"
)

var writeFile = &tool.Tool{Name: "write_file", Risk: tool.RiskHigh}

// TestOrderOfDecision walks the table of the package documentation: each
// row is shown to beat the rows below it.
func TestOrderOfDecision(t *testing.T) {
	tools := func(d Decision) map[string]Decision { return map[string]Decision{"write_file": d} }
	cases := []struct {
		name  string
		cfg   Config
		scope WriteScope
		path  string
		want  Decision
		rule  string
	}{
		{"1: a deny rule beats a tools allow", Config{Deny: []string{"write_file(src/**)"}, Tools: tools(Allow)}, WorkspaceWrite, "src/a", Deny, "deny: write_file(src/**)"},
		{"1: a deny rule beats a bare allow", Config{Deny: []string{"write_file(src/**)"}, Allow: []string{"write_file"}}, WorkspaceWrite, "src/a", Deny, "deny: write_file(src/**)"},
		{"2: a tools deny beats a bare allow", Config{Allow: []string{"write_file"}, Tools: tools(Deny)}, WorkspaceWrite, "a", Deny, "tools.write_file = deny"},
		{"2: a tools deny beats an allow default", Config{Default: Allow, Tools: tools(Deny)}, WorkspaceWrite, "a", Deny, "tools.write_file = deny"},
		{"3: the read-only scope beats a bare allow", Config{Allow: []string{"write_file"}}, ReadOnly, "a", Deny, "write scope read-only (the call may change files)"},
		{"4: an ask rule beats a bare allow", Config{Ask: []string{"write_file(src/**)"}, Allow: []string{"write_file"}}, WorkspaceWrite, "src/a", Ask, "ask: write_file(src/**)"},
		{"5: a tools ask beats an allow rule", Config{Allow: []string{"write_file(src/**)"}, Tools: tools(Ask)}, WorkspaceWrite, "src/a", Ask, "tools.write_file = ask"},
		{"6: an allow rule beats a tools allow (and names itself)", Config{Allow: []string{"write_file(src/**)"}, Tools: tools(Allow)}, WorkspaceWrite, "src/a", Allow, "allow: write_file(src/**)"},
		{"6: an allow rule beats the deny default", Config{Default: Deny, Allow: []string{"write_file(src/**)"}}, WorkspaceWrite, "src/a", Allow, "allow: write_file(src/**)"},
		{"7: a tools allow beats the ask default", Config{Default: Ask, Tools: tools(Allow)}, WorkspaceWrite, "a", Allow, "tools.write_file = allow"},
		{"9: the default decides the rest", Config{Default: Ask}, WorkspaceWrite, "a", Ask, "default = ask"},
		{"protection turns an allow into an ask", Config{Default: Allow}, WorkspaceWrite, ".git/config", Ask, "protected path .git/config (writing it always asks)"},
		{"protection names itself over an ask rule", Config{Ask: []string{"write_file"}}, WorkspaceWrite, ".quiver/tools/x", Ask, "protected path .quiver (writing it always asks)"},
		{"protection never lowers a deny default", Config{Default: Deny}, WorkspaceWrite, ".git/config", Deny, "default = deny"},
		{"protection never lowers a deny rule", Config{Default: Allow, Deny: []string{"write_file(.git/**)"}}, WorkspaceWrite, ".git/hooks/x", Deny, "deny: write_file(.git/**)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := New(c.cfg, c.scope)
			if err != nil {
				t.Fatal(err)
			}
			v := p.Decide(writeFile, file(c.path), tool.RiskHigh)
			if diff := cmp.Diff(Verdict{Decision: c.want, Rule: c.rule}, Verdict{Decision: v.Decision, Rule: v.Rule}); diff != "" {
				t.Errorf("Decide (-want +got):\n%s", diff)
			}
		})
	}
}

func TestProtectedMatching(t *testing.T) {
	p, err := New(Config{Default: Allow, Protected: []string{"deploy/**", "*.pem", "ci/{a,b}.yml"}, ConfigFiles: []string{"conf/team.toml"}}, WorkspaceWrite)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		path      string
		protected bool
	}{
		{".git/config", true}, {".git/hooks", true}, {".git/hooks/pre-commit", true}, {".quiver", true},
		{".quiver/tools/a/b", true}, {"quiver.toml", true}, {"conf/team.toml", true}, {"deploy", true},
		{"deploy/a/b.yml", true}, {"key.pem", true}, {"ci/a.yml", true},
		{".git/config.bak", false}, {".git/hooksx", false}, {".git/objects/ab", false}, {".quiverx", false},
		{"src/quiver.toml", false}, {"deployment/x", false}, {"ci/c.yml", false}, {"sub/key.pem", false},
		{".git", false}, {".", false},
	}
	for _, c := range cases {
		_, got := p.protects(c.path)
		if got != c.protected {
			t.Errorf("protects(%q) = %v, want %v", c.path, got, c.protected)
		}
	}
	readOnlyTool := &tool.Tool{Name: "read_file", Risk: tool.RiskLow, Annotations: tool.Annotations{ReadOnly: true}}
	if v := p.Decide(readOnlyTool, file(".git/config"), tool.RiskLow); v.Decision != Allow {
		t.Errorf("reading a protected path: %v, want allow", v)
	}
}

func TestOffer(t *testing.T) {
	lowRiskExec := &tool.Tool{Name: "exec_command", Risk: tool.RiskHigh, CallRisk: func(json.RawMessage) tool.Risk { return tool.RiskLow }}
	cases := []struct {
		name  string
		cfg   Config
		scope WriteScope
		tool  *tool.Tool
		want  string
	}{
		{"the default for a high-risk tool", Config{}, WorkspaceWrite, editTool, "ask"},
		{"the default for a low-risk tool", Config{}, WorkspaceWrite, readFile, "allow"},
		{"a bare deny", Config{Deny: []string{"edit"}}, WorkspaceWrite, editTool, "deny"},
		{"a bare deny is not lifted by an allow rule", Config{Deny: []string{"edit"}, Allow: []string{"edit(src/**)"}}, WorkspaceWrite, editTool, "deny"},
		{"a tools deny beats a bare allow", Config{Allow: []string{"read_file"}, Tools: map[string]Decision{"read_file": Deny}}, WorkspaceWrite, readFile, "deny"},
		{"a specifier deny", Config{Deny: []string{"read_file(.env)"}}, WorkspaceWrite, readFile, "allow (some calls denied)"},
		{"specifier allow under a deny default", Config{Default: Deny, Allow: []string{"edit(src/**)"}}, WorkspaceWrite, editTool, "deny (some calls allowed)"},
		{"specifier ask and deny", Config{Default: Allow, Ask: []string{"edit(a)"}, Deny: []string{"edit(b)"}}, WorkspaceWrite, editTool, "allow (some calls asked, some denied)"},
		{"exec rates its calls", Config{}, WorkspaceWrite, lowRiskExec, "ask (some calls allowed)"},
		{"exec under read-only", Config{}, ReadOnly, lowRiskExec, "deny (some calls allowed)"},
		{"a writer under read-only", Config{Default: Allow}, ReadOnly, editTool, "deny"},
		{"a tool no rule names under a deny default", Config{Default: Deny, Allow: []string{"read_file"}}, WorkspaceWrite, editTool, "deny"},
		{"a tool glob names the tool", Config{Default: Deny, Allow: []string{"github__*"}}, WorkspaceWrite, mcpTool, "allow"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := New(c.cfg, c.scope)
			if err != nil {
				t.Fatal(err)
			}
			o := p.Offer(c.tool)
			if o.String() != c.want {
				t.Errorf("Offer = %q (%s), want %q", o, o.Rule, c.want)
			}
			if p.Visible(c.tool) != (c.want != "deny") || (p.Gate(c.tool) == nil) != (c.want != "deny") {
				t.Errorf("Visible = %v, Gate = %v for an offer of %q", p.Visible(c.tool), p.Gate(c.tool), c.want)
			}
		})
	}
}

// openWorkspace opens dir as the toolkit would: InWorkspace and CheckWrite
// are tested on a real workspace with real links.
func openWorkspace(t *testing.T, dir string) *workspace.Workspace {
	t.Helper()
	ws, err := workspace.Open(dir, workspace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	return ws
}

func TestInWorkspaceProtectsAnAbsoluteConfigInside(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "conf"), 0o755); err != nil {
		t.Fatal(err)
	}
	cfgFile := filepath.Join(dir, "conf", "team.toml")
	if err := os.WriteFile(cfgFile, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("conf/team.toml", filepath.Join(dir, "cfg.toml")); err != nil {
		t.Fatal(err)
	}
	p, err := New(Config{Default: Allow, ConfigFiles: []string{filepath.Join(dir, "cfg.toml"), "/elsewhere/q.toml"}}, WorkspaceWrite)
	if err != nil {
		t.Fatal(err)
	}
	bound := p.InWorkspace(openWorkspace(t, dir))
	for _, path := range []string{"cfg.toml", "conf/team.toml"} {
		if v := bound.Decide(writeFile, file(path), tool.RiskHigh); v.Decision != Ask {
			t.Errorf("write %s: %v, want ask", path, v)
		}
	}
	if v := p.Decide(writeFile, file("conf/team.toml"), tool.RiskHigh); v.Decision != Allow {
		t.Errorf("InWorkspace changed the policy it was called on: %v", v)
	}
	if got := bound.ProtectedPaths(); !cmp.Equal(got[len(got)-2:], []string{"cfg.toml", "conf/team.toml"}) {
		t.Errorf("ProtectedPaths = %v, want the relative forms last", got)
	}
}

func TestCheckWriteProtected(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".git", "config"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(".git", filepath.Join(dir, "gitlink")); err != nil {
		t.Fatal(err)
	}
	p, _ := New(Config{Default: Allow, Deny: []string{"write_file(secret/**)"}}, WorkspaceWrite)
	ctx := context.Background()
	unasked := p.CommandGate(openWorkspace(t, dir), "exec_command", Verdict{Decision: Allow}, false, nil)
	approved := p.CommandGate(openWorkspace(t, dir), "exec_command", Verdict{Decision: Ask}, true, nil)
	for _, c := range []struct {
		name string
		gate interface {
			CheckWrite(context.Context, string) error
		}
		path    string
		allowed bool
	}{
		{"unasked: an ordinary file", unasked, "out.txt", true},
		{"unasked: .git/config", unasked, ".git/config", false},
		{"unasked: .git/config spelled otherwise", unasked, "./.git//config", false},
		{"unasked: .git/config through a link", unasked, "gitlink/config", false},
		{"approved: a person saw the line", approved, ".git/config", true},
		{"approved: a deny rule still binds", approved, "secret/x", false},
	} {
		err := c.gate.CheckWrite(ctx, c.path)
		if (err == nil) != c.allowed || err != nil && tool.CodeOf(err) != tool.CodeToolNotAllowed {
			t.Errorf("%s: CheckWrite(%q) = %v", c.name, c.path, err)
		}
	}
}
