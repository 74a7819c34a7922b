package policy

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/quiverkit/quiver/internal/shell"
	"github.com/quiverkit/quiver/sandbox"
	"github.com/quiverkit/quiver/tool"
)

// customTool is a command-template tool as provider/custom makes it: high
// risk, its command line the shell.Join of the argv it runs without a shell.
var customTool = &tool.Tool{Name: "echo_it", Risk: tool.RiskHigh, ArgvCommands: true}

func argvSubject(argv ...string) []tool.Subject {
	return []tool.Subject{{Kind: tool.SubjectCommand, Value: shell.Join(argv)}}
}

// passesWith reports whether p, with rules added to its allow list as a
// person would add them to quiver.toml, allows the call.
func passesWith(t testing.TB, cfg Config, tl *tool.Tool, subjects []tool.Subject, rules []string) Decision {
	t.Helper()
	cfg.Allow = append(append([]string(nil), cfg.Allow...), rules...)
	p, err := New(cfg, sandbox.WorkspaceWrite)
	if err != nil {
		t.Fatalf("the suggested rules %q do not load: %v", rules, err)
	}
	return p.Decide(tl, subjects, tool.RiskHigh).Decision
}

// TestSuggestCoversTheWholeCall: what an approval request suggests, added
// to the allow list, passes the very call it was suggested for (issue 33:
// for `cat a | tee b` exec_command(cat a) alone was suggested, and the same
// refusal came back after adding it). A line of several commands gets a
// rule per command; a call no allow rule can pass gets none, and why.
func TestSuggestCoversTheWholeCall(t *testing.T) {
	base := Config{Default: Ask}
	withAsk := Config{Default: Ask, Ask: []string{"exec_command(git push *)"}, Tools: map[string]Decision{"web_fetch": Ask}}
	for _, c := range []struct {
		name     string
		cfg      Config
		tool     *tool.Tool
		subjects []tool.Subject
		want     []string
		why      string // for want == nil
	}{
		{"pipe", base, execTool, cmd("cat a | tee b"), []string{"exec_command(cat a)", "exec_command(tee b)"}, ""},
		{"and", base, execTool, cmd("npm test && ls"), []string{"exec_command(npm test)", "exec_command(ls)"}, ""},
		{"or and semicolon", base, execTool, cmd("make || make clean; make"), []string{"exec_command(make)", "exec_command(make clean)"}, ""},
		{"redirections", base, execTool, cmd("sort < in.txt > out.txt 2>&1"), []string{"exec_command(sort)"}, ""},
		{"append and pipe", base, execTool, cmd("grep -n x a.go | head -5 >> notes"), []string{"exec_command(grep -n x a.go)", "exec_command(head -5)"}, ""},
		{"subshell", base, execTool, cmd("(cd sub && go test ./...)"), []string{"exec_command(cd sub)", "exec_command(go test ./...)"}, ""},
		{"block", base, execTool, cmd("{ echo a; echo b; } > both"), []string{"exec_command(echo a)", "exec_command(echo b)"}, ""},
		{"sh -c", base, execTool, cmd("sh -c 'echo hi'"), []string{"exec_command(sh -c echo hi)", "exec_command(echo hi)"}, ""},
		{"quoted word", base, execTool, cmd("git commit -m 'fix it'"), []string{"exec_command(git commit -m fix it)"}, ""},
		{"command substitution", base, execTool, cmd("echo $(date)"), nil, `"echo $(date)" has a word known only when the line runs`},
		{"variable", base, execTool, cmd("cat $HOME/x | wc -l"), nil, "known only when the line runs"},
		{"glob", base, execTool, cmd("ls *.go"), nil, "known only when the line runs"},
		{"program from standard input", base, execTool, cmd("printf 'rm x' | sh"), nil, "read from standard input"},
		{"does not parse", base, execTool, cmd("echo 'open"), nil, "does not parse"},
		{"assignment only", base, execTool, cmd("X=1"), nil, "only the bare rule exec_command"},
		{"an ask rule comes first", withAsk, execTool, cmd("git add . && git push origin main"), nil, `the rule "exec_command(git push *)" asks about it`},
		{"tools map ask", withAsk, webFetch, link("https://docs.example/a"), nil, "tools.web_fetch = ask asks about every call"},
		{"a path as written and as resolved", base, editTool, append(file("./src/a.go"), file("lib/a.go")...), []string{"edit(src/a.go)", "edit(lib/a.go)"}, ""},
		{"no subjects", base, mcpTool, nil, []string{"github__create_issue"}, ""},
		{"one host", base, webFetch, link("https://user@Attacker.Example./c?x=1"), []string{"web_fetch(domain:attacker.example)"}, ""},
		{"hosts sharing a domain", base, webFetch, append(link("https://html.duckduckgo.com/html/?q=x"), link("https://api.duckduckgo.com/?q=x")...), []string{"web_fetch(domain:duckduckgo.com)"}, ""},
		{"hosts sharing none", base, webFetch, append(link("https://a.example/"), link("https://b.test/")...), []string{"web_fetch(domain:a.example)", "web_fetch(domain:b.test)"}, ""},
		{"custom: plain values kept", base, customTool, argvSubject("git", "log", "-n", "5", "--", "src/a.go"), []string{"echo_it(git log -n 5 -- src/a.go)"}, ""},
		{"custom: a value with a space becomes *", base, customTool, argvSubject("echo", "hello world"), []string{"echo_it(echo *)"}, ""},
		{"custom: an empty value becomes *", base, customTool, argvSubject("printf", "%s", ""), []string{"echo_it(printf %s *)"}, ""},
		{"custom: options with = are plain", base, customTool, argvSubject("fmt", "--width=80"), []string{"echo_it(fmt --width=80)"}, ""},
		{"custom: shell syntax in a value", base, customTool, argvSubject("echo", "--title", "a; touch x $(id) y"), nil,
			"the rule echo_it(echo --title *) would pass the calls like it whose values are plain"},
		{"custom: a glob in a value", base, customTool, argvSubject("ls", "src/*.go"), nil, "echo_it(ls *)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, err := New(c.cfg, sandbox.WorkspaceWrite)
			if err != nil {
				t.Fatal(err)
			}
			if d := p.Decide(c.tool, c.subjects, tool.RiskHigh).Decision; d != Ask {
				t.Fatalf("the call is %s before any rule is added, want ask", d)
			}
			got, why := p.Suggest(c.tool, c.subjects, tool.RiskHigh)
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("rules (-want +got):\n%s", diff)
			}
			if got == nil {
				if why == "" || !strings.Contains(why, c.why) {
					t.Errorf("why = %q, want it to say %q", why, c.why)
				}
				return
			}
			if why != "" {
				t.Errorf("rules %q and a why: %q", got, why)
			}
			if d := passesWith(t, c.cfg, c.tool, c.subjects, got); d != Allow {
				t.Errorf("with %q added the call is %s, want allow", got, d)
			}
		})
	}
}

// TestSuggestProtectedPath: a write to a protected path asks whatever the
// rules say, so nothing is suggested, and the why names the path.
func TestSuggestProtectedPath(t *testing.T) {
	p, err := New(Config{Default: Ask, Allow: []string{"edit"}}, sandbox.WorkspaceWrite)
	if err != nil {
		t.Fatal(err)
	}
	rules, why := p.Suggest(editTool, file(".git/config"), tool.RiskHigh)
	if rules != nil || !strings.Contains(why, "protected path .git") {
		t.Errorf("Suggest = %q, %q; want none, naming .git", rules, why)
	}
}

// FuzzSuggest: whatever the command line, the suggestion is rules that,
// added, allow the call, or none with a reason.
func FuzzSuggest(f *testing.F) {
	for _, seed := range []string{"cat a | tee b", "npm test && ls; echo $(date)", "(cd x && make) > log 2>&1",
		"sh -c 'rm -rf x'", "find . -name '*.go' -exec gofmt -l {} +", "echo ')'", "a=1 b", "git push --force"} {
		f.Add(seed)
	}
	cfg := Config{Default: Ask, Ask: []string{"exec_command(git push *)"}, Deny: []string{"exec_command(rm *)"}}
	p, err := New(cfg, sandbox.WorkspaceWrite)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, line string) {
		subjects := cmd(line)
		if p.Decide(execTool, subjects, tool.RiskHigh).Decision != Ask {
			return
		}
		rules, why := p.Suggest(execTool, subjects, tool.RiskHigh)
		if len(rules) == 0 {
			if why == "" {
				t.Fatalf("no rule for %q and no reason", line)
			}
			return
		}
		if d := passesWith(t, cfg, execTool, subjects, rules); d != Allow {
			t.Fatalf("with %q added, %q is %s", rules, line, d)
		}
	})
}

// FuzzSuggestArgv: whatever a custom tool's values, each suggested rule
// holds nothing a shell would read as syntax, and together they allow the
// call they were made for; when there are none, a reason says why.
func FuzzSuggestArgv(f *testing.F) {
	f.Add("--title", "a; touch x $(id) y")
	f.Add("-n", "5")
	f.Add("x", "hello world")
	f.Add("", "")
	f.Add("--out=*", "`id`")
	cfg := Config{Default: Ask}
	p, err := New(cfg, sandbox.WorkspaceWrite)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		if strings.ContainsRune(a+b, 0) {
			return // an argv word cannot hold NUL
		}
		subjects := argvSubject("prog", a, b)
		rules, why := p.Suggest(customTool, subjects, tool.RiskHigh)
		if len(rules) == 0 {
			if why == "" {
				t.Fatalf("no rule for %q and no reason", subjects[0].Value)
			}
			return
		}
		for _, r := range rules {
			spec := strings.TrimSuffix(strings.TrimPrefix(r, customTool.Name+"("), ")")
			if strings.ContainsAny(spec, ";&|$`'\"()<>\\\n\t?[]{}") {
				t.Fatalf("suggestion %q holds shell syntax", r)
			}
		}
		if d := passesWith(t, cfg, customTool, subjects, rules); d != Allow {
			t.Fatalf("suggestion %q gives the call %q %s", rules, subjects[0].Value, d)
		}
	})
}
