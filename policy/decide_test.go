package policy

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/quiverkit/quiver/sandbox"
	"github.com/quiverkit/quiver/tool"
	"github.com/quiverkit/quiver/workspace"
)

var writeFile = &tool.Tool{Name: "write_file", Risk: tool.RiskHigh, WritesSubjectPaths: true}

// TestOrderOfDecision walks the table of the package documentation: each
// row is shown to beat the rows below it.
func TestOrderOfDecision(t *testing.T) {
	tools := func(d Decision) map[string]Decision { return map[string]Decision{"write_file": d} }
	cases := []struct {
		name  string
		cfg   Config
		scope sandbox.WriteScope
		path  string
		want  Decision
		rule  string
	}{
		{"1: a deny rule beats a tools allow", Config{Deny: []string{"write_file(src/**)"}, Tools: tools(Allow)}, sandbox.WorkspaceWrite, "src/a", Deny, "deny: write_file(src/**)"},
		{"1: a deny rule beats a bare allow", Config{Deny: []string{"write_file(src/**)"}, Allow: []string{"write_file"}}, sandbox.WorkspaceWrite, "src/a", Deny, "deny: write_file(src/**)"},
		{"2: a tools deny beats a bare allow", Config{Allow: []string{"write_file"}, Tools: tools(Deny)}, sandbox.WorkspaceWrite, "a", Deny, "tools.write_file = deny"},
		{"2: a tools deny beats an allow default", Config{Default: Allow, Tools: tools(Deny)}, sandbox.WorkspaceWrite, "a", Deny, "tools.write_file = deny"},
		{"3: the read-only scope beats a bare allow", Config{Allow: []string{"write_file"}}, sandbox.ReadOnly, "a", Deny, "write scope read-only (the call may change files)"},
		{"4: an ask rule beats a bare allow", Config{Ask: []string{"write_file(src/**)"}, Allow: []string{"write_file"}}, sandbox.WorkspaceWrite, "src/a", Ask, "ask: write_file(src/**)"},
		{"5: a tools ask beats an allow rule", Config{Allow: []string{"write_file(src/**)"}, Tools: tools(Ask)}, sandbox.WorkspaceWrite, "src/a", Ask, "tools.write_file = ask"},
		{"6: an allow rule beats a tools allow (and names itself)", Config{Allow: []string{"write_file(src/**)"}, Tools: tools(Allow)}, sandbox.WorkspaceWrite, "src/a", Allow, "allow: write_file(src/**)"},
		{"6: an allow rule beats the deny default", Config{Default: Deny, Allow: []string{"write_file(src/**)"}}, sandbox.WorkspaceWrite, "src/a", Allow, "allow: write_file(src/**)"},
		{"7: a tools allow beats the ask default", Config{Default: Ask, Tools: tools(Allow)}, sandbox.WorkspaceWrite, "a", Allow, "tools.write_file = allow"},
		{"9: the default decides the rest", Config{Default: Ask}, sandbox.WorkspaceWrite, "a", Ask, "default = ask"},
		{"protection turns an allow into an ask", Config{Default: Allow}, sandbox.WorkspaceWrite, ".git/config", Ask, "protected path .git (writing it always asks)"},
		{"protection names itself over an ask rule", Config{Ask: []string{"write_file"}}, sandbox.WorkspaceWrite, ".quiver/tools/x", Ask, "protected path .quiver (writing it always asks)"},
		{"protection never lowers a deny default", Config{Default: Deny}, sandbox.WorkspaceWrite, ".git/config", Deny, "default = deny"},
		{"protection never lowers a deny rule", Config{Default: Allow, Deny: []string{"write_file(.git/**)"}}, sandbox.WorkspaceWrite, ".git/hooks/x", Deny, "deny: write_file(.git/**)"},
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
	p, err := New(Config{Default: Allow, Protected: []string{"deploy/**", "*.pem", "ci/{a,b}.yml"}, ConfigFiles: []string{"conf/team.toml"}}, sandbox.WorkspaceWrite)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		path      string
		protected bool
	}{
		{".git/config", true}, {".git/hooks", true}, {".git/hooks/pre-commit", true}, {".quiver", true},
		{".quiver/tools/a/b", true}, {"quiver.toml", true}, {"quorum.toml", true}, {"conf/team.toml", true}, {"deploy", true},
		{"deploy/a/b.yml", true}, {"key.pem", true}, {"ci/a.yml", true},
		{".git/config.bak", true}, {".git/hooksx", true}, {".git/objects/ab", true}, {".git/commondir", true},
		{".git/objects/info/alternates", true}, {".git", true}, {"sub/.git", true}, {"a/b/.git/config", true},
		{".quiverx", false}, {"src/quiver.toml", false}, {"src/quorum.toml", false}, {"deployment/x", false}, {"ci/c.yml", false},
		{"sub/key.pem", false}, {".gitignore", false}, {".github/x", false}, {"a/.git-x/config", false},
		{".gitmodules", false}, {".", false},
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
	lowRiskExec := &tool.Tool{Name: "exec_command", Risk: tool.RiskHigh, ReadOnlyWhenLowRisk: true, CallRisk: func(context.Context, tool.Context, json.RawMessage) tool.Rating {
		return tool.Rating{Risk: tool.RiskLow}
	}}
	cases := []struct {
		name  string
		cfg   Config
		scope sandbox.WriteScope
		tool  *tool.Tool
		want  string
	}{
		{"the default for a high-risk tool", Config{}, sandbox.WorkspaceWrite, editTool, "ask"},
		{"the default for a low-risk tool", Config{}, sandbox.WorkspaceWrite, readFile, "allow"},
		{"a bare deny", Config{Deny: []string{"edit"}}, sandbox.WorkspaceWrite, editTool, "deny"},
		{"a bare deny is not lifted by an allow rule", Config{Deny: []string{"edit"}, Allow: []string{"edit(src/**)"}}, sandbox.WorkspaceWrite, editTool, "deny"},
		{"a tools deny beats a bare allow", Config{Allow: []string{"read_file"}, Tools: map[string]Decision{"read_file": Deny}}, sandbox.WorkspaceWrite, readFile, "deny"},
		{"a specifier deny", Config{Deny: []string{"read_file(.env)"}}, sandbox.WorkspaceWrite, readFile, "allow (some calls denied)"},
		{"specifier allow under a deny default", Config{Default: Deny, Allow: []string{"edit(src/**)"}}, sandbox.WorkspaceWrite, editTool, "deny (some calls allowed)"},
		{"specifier ask and deny", Config{Default: Allow, Ask: []string{"edit(a)"}, Deny: []string{"edit(b)"}}, sandbox.WorkspaceWrite, editTool, "allow (some calls asked, some denied)"},
		{"exec rates its calls", Config{}, sandbox.WorkspaceWrite, lowRiskExec, "ask (some calls allowed)"},
		{"exec under read-only", Config{}, sandbox.ReadOnly, lowRiskExec, "deny (some calls allowed)"},
		{"a writer under read-only", Config{Default: Allow}, sandbox.ReadOnly, editTool, "deny"},
		{"a tool no rule names under a deny default", Config{Default: Deny, Allow: []string{"read_file"}}, sandbox.WorkspaceWrite, editTool, "deny"},
		{"a tool glob names the tool", Config{Default: Deny, Allow: []string{"github__*"}}, sandbox.WorkspaceWrite, mcpTool, "allow"},
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
	p, err := New(Config{Default: Allow, ConfigFiles: []string{filepath.Join(dir, "cfg.toml"), "/elsewhere/q.toml"}}, sandbox.WorkspaceWrite)
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
	p, _ := New(Config{Default: Allow, Deny: []string{"write_file(secret/**)"}}, sandbox.WorkspaceWrite)
	ctx := context.Background()
	unasked := p.CommandGate(openWorkspace(t, dir), "exec_command", Verdict{Decision: Allow}, false, nil, catalogOf(writeFile))
	approved := p.CommandGate(openWorkspace(t, dir), "exec_command", Verdict{Decision: Ask}, true, nil, catalogOf(writeFile))
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
		{"approved: a person's yes does not open a protected path", approved, ".git/config", false},
		{"approved: nor through a link", approved, "gitlink/config", false},
		{"approved: an ordinary file", approved, "out.txt", true},
		{"approved: a deny rule still binds", approved, "secret/x", false},
	} {
		err := c.gate.CheckWrite(ctx, c.path)
		if (err == nil) != c.allowed || err != nil && tool.CodeOf(err) != tool.CodeToolNotAllowed {
			t.Errorf("%s: CheckWrite(%q) = %v", c.name, c.path, err)
		}
	}
}

// TestReadOnlyScopeAndCallRisk shows that rating a call low-risk is not
// enough to run under the read-only scope: the tool must also declare that
// such calls change nothing.
func TestReadOnlyScopeAndCallRisk(t *testing.T) {
	low := func(context.Context, tool.Context, json.RawMessage) tool.Rating {
		return tool.Rating{Risk: tool.RiskLow}
	}
	rated := &tool.Tool{Name: "rated", Risk: tool.RiskHigh, CallRisk: low}
	promised := &tool.Tool{Name: "promised", Risk: tool.RiskHigh, CallRisk: low, ReadOnlyWhenLowRisk: true}
	unrated := &tool.Tool{Name: "unrated", Risk: tool.RiskLow, ReadOnlyWhenLowRisk: true} // the promise needs a rating
	cases := []struct {
		name  string
		tool  *tool.Tool
		risk  tool.Risk
		want  Decision
		offer string
	}{
		{"rated low, no promise", rated, tool.RiskLow, Deny, "deny"},
		{"rated low, promised", promised, tool.RiskLow, Allow, "deny (some calls allowed)"},
		{"rated high, promised", promised, tool.RiskHigh, Deny, "deny (some calls allowed)"},
		{"a promise with no rating", unrated, tool.RiskLow, Deny, "deny"},
		{"annotated read-only", readFile, tool.RiskLow, Allow, "allow"},
	}
	p, err := New(Config{}, sandbox.ReadOnly)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		got := []string{string(p.Decide(c.tool, nil, c.risk).Decision), p.Offer(c.tool).String()}
		if diff := cmp.Diff([]string{string(c.want), c.offer}, got); diff != "" {
			t.Errorf("%s: decision, offer (-want +got):\n%s", c.name, diff)
		}
	}
}

// TestCheckWriteBindsWritersOnly shows whose path deny rules bind a file a
// command opens for writing: those of the tools that write the paths they
// name, found by name or by a tool glob; and that a catalogue that cannot be
// read refuses the write.
func TestCheckWriteBindsWritersOnly(t *testing.T) {
	ctx := context.Background()
	errCatalog := errors.New("catalogue unavailable")
	broken := func(context.Context) ([]*tool.Tool, error) { return nil, errCatalog }
	cases := []struct {
		name    string
		deny    string
		catalog func(context.Context) ([]*tool.Tool, error)
		allowed bool
	}{
		{"a writer's rule binds", "write_file(.env)", catalogOf(readFile, writeFile), false},
		{"a glob naming a writer binds", "*(.env)", catalogOf(readFile, writeFile), false},
		{"a reader's rule does not", "read_file(.env)", catalogOf(readFile, writeFile), true},
		{"a tool that does not declare it does not", "write_file(.env)", catalogOf(&tool.Tool{Name: "write_file", Risk: tool.RiskHigh}), true},
		{"no catalogue, no writers", "write_file(.env)", nil, true},
		{"a catalogue that fails refuses", "read_file(.env)", broken, false},
	}
	for _, c := range cases {
		p, err := New(Config{Default: Allow, Deny: []string{c.deny}}, sandbox.WorkspaceWrite)
		if err != nil {
			t.Fatal(err)
		}
		err = p.CommandGate(nil, "exec_command", Verdict{Decision: Allow}, false, nil, c.catalog).CheckWrite(ctx, ".env")
		if (err == nil) != c.allowed || err != nil && tool.CodeOf(err) != tool.CodeToolNotAllowed {
			t.Errorf("%s: CheckWrite(.env) = %v", c.name, err)
		}
	}
	p, err := New(Config{Default: Allow}, sandbox.WorkspaceWrite)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.CommandGate(nil, "exec_command", Verdict{Decision: Allow}, false, nil, broken).CheckWrite(ctx, "x"); !errors.Is(err, errCatalog) {
		t.Errorf("CheckWrite with a broken catalogue = %v, want its cause kept", err)
	}
}

// TestDecideRatedNamesWhatVouched: a call allowed only for being low-risk
// on an operator's entry's word records that entry as its rule; every
// other row of the table decides as before, the entry notwithstanding.
func TestDecideRatedNamesWhatVouched(t *testing.T) {
	const entry = `low_risk_commands entry "make -s test"`
	rated := tool.Rating{Risk: tool.RiskLow, By: entry}
	for _, c := range []struct {
		name string
		cfg  Config
		want Verdict
	}{
		{"the default", Config{}, Verdict{Decision: Allow, Rule: entry, ByLowRisk: true}},
		{"an ask rule", Config{Ask: []string{"exec_command(make *)"}}, Verdict{Decision: Ask, Rule: "ask: exec_command(make *)"}},
		{"a deny default", Config{Default: Deny}, Verdict{Decision: Deny, Rule: "default = deny", ByDefault: true}},
		{"an allow rule", Config{Allow: []string{"exec_command"}}, Verdict{Decision: Allow, Rule: "allow: exec_command"}},
	} {
		p, err := New(c.cfg, sandbox.WorkspaceWrite)
		if err != nil {
			t.Fatal(err)
		}
		if got := p.DecideRated(execTool, cmd("make -s test"), rated); !cmp.Equal(got, c.want) {
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
		if got, plain := p.DecideRated(execTool, cmd("make -s test"), tool.Rating{Risk: tool.RiskLow}), p.Decide(execTool, cmd("make -s test"), tool.RiskLow); !cmp.Equal(got, plain) {
			t.Errorf("%s: a rating with no By decides %+v, Decide %+v", c.name, got, plain)
		}
	}
}
