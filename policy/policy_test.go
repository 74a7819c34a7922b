package policy

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/quiverkit/quiver/sandbox"
	"github.com/quiverkit/quiver/tool"
)

var (
	readFile = &tool.Tool{Name: "read_file", Risk: tool.RiskLow, Annotations: tool.Annotations{ReadOnly: true}}
	editTool = &tool.Tool{Name: "edit", Risk: tool.RiskHigh, WritesSubjectPaths: true}
	execTool = &tool.Tool{Name: "exec_command", Risk: tool.RiskHigh, ReadOnlyWhenLowRisk: true, CallRisk: func(context.Context, tool.Context, json.RawMessage) tool.Rating {
		return tool.Rating{Risk: tool.RiskHigh}
	}}
	webFetch = &tool.Tool{Name: "web_fetch", Risk: tool.RiskLow, Annotations: tool.Annotations{ReadOnly: true, OpenWorld: true}}
	mcpTool  = &tool.Tool{Name: "github__create_issue", Risk: tool.RiskHigh}
)

// catalogOf is the catalogue a [Policy.CommandGate] reads: the tools whose
// path deny rules may bind what a command writes.
func catalogOf(tools ...*tool.Tool) func(context.Context) ([]*tool.Tool, error) {
	return func(context.Context) ([]*tool.Tool, error) { return tools, nil }
}

func cmd(s string) []tool.Subject  { return []tool.Subject{{Kind: tool.SubjectCommand, Value: s}} }
func file(s string) []tool.Subject { return []tool.Subject{{Kind: tool.SubjectPath, Value: s}} }
func link(s string) []tool.Subject { return []tool.Subject{{Kind: tool.SubjectURL, Value: s}} }

func TestDecide(t *testing.T) {
	p, err := New(Config{
		Default: Ask,
		Allow:   []string{"read_file", "exec_command(git status)", "exec_command(go test *)", "exec_command(echo:*)", "edit(src/**)", "github__*"},
		Ask:     []string{"exec_command(git push *)", "edit(src/generated/**)"},
		Deny:    []string{"exec_command(rm *)", "read_file(.env)", "web_fetch(domain:internal.example)", "exec_command(git push --force*)"},
		Tools:   map[string]Decision{"web_fetch": Allow},
	}, sandbox.WorkspaceWrite)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name     string
		tool     *tool.Tool
		subjects []tool.Subject
		risk     tool.Risk
		want     Decision
	}{
		{"a bare allow rule allows", readFile, file("main.go"), tool.RiskLow, Allow},
		{"deny wins over a bare allow", readFile, file(".env"), tool.RiskLow, Deny},
		{"deny matches the path relative to the workspace", readFile, file("./.env"), tool.RiskLow, Deny},
		{"exec_command(git status) allows git status", execTool, cmd("git status"), tool.RiskHigh, Allow},
		{"git status && rm -rf x: rm is denied", execTool, cmd("git status && rm -rf x"), tool.RiskHigh, Deny},
		{"git status && touch x: touch is not allowed, so the default asks", execTool, cmd("git status && touch x"), tool.RiskHigh, Ask},
		{"git status; $(echo rm) -rf x: unknown words never satisfy allow", execTool, cmd("git status; $(echo rm) -rf x"), tool.RiskHigh, Ask},
		{"what eval runs is a command too", execTool, cmd(`git status; eval "rm -rf x"`), tool.RiskHigh, Deny},
		{"so is what sh -c runs", execTool, cmd(`git status | sh -c 'rm -rf x'`), tool.RiskHigh, Deny},
		{"and what a wrapper runs", execTool, cmd(`timeout 5 rm -rf x`), tool.RiskHigh, Deny},
		{"a path does not dodge a deny rule", execTool, cmd(`/bin/rm -rf x`), tool.RiskHigh, Deny},
		{"nor does a path satisfy an allow rule", execTool, cmd(`/tmp/evil/git status`), tool.RiskHigh, Ask},
		{"X=rm; $X -rf x is not allowed", execTool, cmd("X=rm; $X -rf x"), tool.RiskHigh, Ask},
		{"git status | sh: sh runs a program no rule sees, which deny rules match (issue 18 item 9)", execTool, cmd("git status | sh"), tool.RiskHigh, Deny},
		{"a subshell's commands count", execTool, cmd("(git status; rm -f y)"), tool.RiskHigh, Deny},
		{"backticks count", execTool, cmd("echo `rm -rf /`"), tool.RiskHigh, Deny},
		{"go test * allows go test with arguments", execTool, cmd("go test ./... -run X"), tool.RiskHigh, Allow},
		{"go test * allows go test alone", execTool, cmd("go test"), tool.RiskHigh, Allow},
		{"the legacy :* form is a prefix", execTool, cmd("echo hi there"), tool.RiskHigh, Allow},
		{"every command allowed: the whole line is", execTool, cmd("git status && go test ./..."), tool.RiskHigh, Allow},
		{"ask comes before allow", execTool, cmd("git status; git push origin main"), tool.RiskHigh, Ask},
		{"deny comes before ask", execTool, cmd("git push --force origin"), tool.RiskHigh, Deny},
		{"quotes are removed before matching", execTool, cmd(`"git" 'status'`), tool.RiskHigh, Allow},
		{"a syntax error never matches allow", execTool, cmd("git status &&"), tool.RiskHigh, Ask},
		{"edit(src/**) allows files below src", editTool, file("src/a/b.go"), tool.RiskHigh, Allow},
		{"ask rule below an allowed directory wins", editTool, file("src/generated/x.go"), tool.RiskHigh, Ask},
		{"edit outside src falls to the default", editTool, file("docs/x.md"), tool.RiskHigh, Ask},
		{"domain rules match the host and its subdomains", webFetch, link("https://api.internal.example/x"), tool.RiskLow, Deny},
		{"the tools map decides before the default", webFetch, link("https://example.com"), tool.RiskLow, Allow},
		{"tool name globs", mcpTool, nil, tool.RiskHigh, Allow},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := p.Decide(c.tool, c.subjects, c.risk)
			if v.Decision != c.want {
				t.Errorf("Decide = %s (%s), want %s", v.Decision, v.Rule, c.want)
			}
		})
	}
}

func TestDefaults(t *testing.T) {
	cases := []struct {
		name string
		def  Decision
		tool *tool.Tool
		risk tool.Risk
		want Decision
	}{
		{"unset default asks about high risk", "", editTool, tool.RiskHigh, Ask},
		{"low risk overrides the default to allow", Ask, readFile, tool.RiskLow, Allow},
		{"except when the default is deny", Deny, readFile, tool.RiskLow, Deny},
		{"an allow default allows high risk", Allow, editTool, tool.RiskHigh, Allow},
		{"call risk counts, not the tool's", Ask, execTool, tool.RiskLow, Allow},
	}
	for _, c := range cases {
		p, err := New(Config{Default: c.def}, sandbox.WorkspaceWrite)
		if err != nil {
			t.Fatal(err)
		}
		if v := p.Decide(c.tool, nil, c.risk); v.Decision != c.want {
			t.Errorf("%s: %s (%s), want %s", c.name, v.Decision, v.Rule, c.want)
		}
	}
}

func TestGateAndWriteScopes(t *testing.T) {
	p, _ := New(Config{Default: Allow, Deny: []string{"edit"}}, sandbox.ReadOnly)
	if err := p.Gate(editTool); tool.CodeOf(err) != tool.CodeToolNotAllowed {
		t.Errorf("bare deny: %v", err)
	}
	writer := &tool.Tool{Name: "write_file", Risk: tool.RiskHigh}
	if err := p.Gate(writer); tool.CodeOf(err) != tool.CodeToolNotAllowed || p.Visible(writer) {
		t.Errorf("read-only scope lets a writer through: %v", err)
	}
	if err := p.Gate(readFile); err != nil {
		t.Errorf("read-only scope refuses a reader: %v", err)
	}
	// exec_command classifies its calls, so it passes the gate and each call
	// is decided by its risk.
	if err := p.Gate(execTool); err != nil {
		t.Errorf("gate refused exec under read-only: %v", err)
	}
	if v := p.Decide(execTool, cmd("ls"), tool.RiskLow); v.Decision != Allow {
		t.Errorf("low-risk command under read-only: %v", v)
	}
	if v := p.Decide(execTool, cmd("touch x"), tool.RiskHigh); v.Decision != Deny {
		t.Errorf("high-risk command under read-only: %v", v)
	}
	ww, _ := New(Config{Default: Allow}, sandbox.WorkspaceWrite)
	if err := ww.Gate(writer); err != nil {
		t.Errorf("workspace-write refuses a writer: %v", err)
	}
}

func TestCommandGate(t *testing.T) {
	p, _ := New(Config{Allow: []string{"exec_command(git status)", "exec_command(ls *)"}, Ask: []string{"exec_command(git push *)"},
		Deny: []string{"exec_command(rm *)", "write_file(.env)"}}, sandbox.WorkspaceWrite)
	ctx := context.Background()
	catalog := catalogOf(execTool, writeFile)
	strict := p.CommandGate(nil, "exec_command", Verdict{Decision: Allow, BySpecifier: true}, false, nil, catalog)
	lenient := p.CommandGate(nil, "exec_command", Verdict{Decision: Allow}, false, nil, catalog)
	approved := p.CommandGate(nil, "exec_command", Verdict{Decision: Ask}, true, nil, catalog)
	cases := []struct {
		name string
		gate interface {
			CheckCommand(context.Context, []string) error
		}
		argv    []string
		allowed bool
	}{
		{"strict: a named command runs", strict, []string{"git", "status"}, true},
		{"strict: a command nobody named is refused", strict, []string{"sh", "-c", "x"}, false},
		{"strict: deny binds", strict, []string{"rm", "-rf", "x"}, false},
		{"lenient: other commands run", lenient, []string{"make"}, true},
		{"lenient: deny still binds", lenient, []string{"rm", "x"}, false},
		{"lenient: deny binds a program named by path", lenient, []string{"/usr/bin/rm", "x"}, false},
		{"lenient: ask rules refuse what nobody was asked about", lenient, []string{"git", "push", "origin"}, false},
		{"approved: ask rules were answered", approved, []string{"git", "push", "origin"}, true},
		{"approved: deny still binds", approved, []string{"rm", "x"}, false},
	}
	for _, c := range cases {
		err := c.gate.CheckCommand(ctx, c.argv)
		if (err == nil) != c.allowed {
			t.Errorf("%s: err = %v", c.name, err)
		}
		if err != nil && tool.CodeOf(err) != tool.CodeToolNotAllowed {
			t.Errorf("%s: code %s", c.name, tool.CodeOf(err))
		}
	}
	if err := lenient.CheckWrite(ctx, ".env"); err == nil {
		t.Error("a redirect into a denied path was allowed")
	}
	if err := lenient.CheckWrite(ctx, "out.txt"); err != nil {
		t.Errorf("a redirect into an ordinary file: %v", err)
	}
	ro, _ := New(Config{Default: Allow}, sandbox.ReadOnly)
	roGate := ro.CommandGate(nil, "exec_command", Verdict{Decision: Allow}, false, func(argv []string) (bool, string) { return argv[0] == "ls", "" }, nil)
	if roGate.CheckCommand(ctx, []string{"ls"}) != nil || roGate.CheckCommand(ctx, []string{"touch", "x"}) == nil || roGate.CheckWrite(ctx, "x") == nil {
		t.Error("read-only gate: ls must run, touch and writes must not")
	}
}

func TestBadConfig(t *testing.T) {
	for _, cfg := range []Config{
		{Default: "maybe"},
		{Allow: []string{"read_file("}},
		{Deny: []string{"(x)"}},
		{Ask: []string{"edit()"}},
		{Tools: map[string]Decision{"x": "sometimes"}},
	} {
		if _, err := New(cfg, sandbox.WorkspaceWrite); err == nil {
			t.Errorf("New(%+v) accepted", cfg)
		}
	}
	if _, err := New(Config{}, "everything"); err == nil {
		t.Error("a bad write scope was accepted")
	}
}
