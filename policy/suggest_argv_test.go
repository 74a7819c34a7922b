package policy

import (
	"strings"
	"testing"

	"github.com/quiverkit/quiver/internal/shell"
	"github.com/quiverkit/quiver/tool"
)

// customTool is a command-template tool as provider/custom makes it: high
// risk, its command line the shell.Join of the argv it runs without a shell.
var customTool = &tool.Tool{Name: "echo_it", Risk: tool.RiskHigh}

func argvSubject(argv ...string) []tool.Subject {
	return []tool.Subject{{Kind: tool.SubjectCommand, Value: shell.Join(argv)}}
}

// TestSuggestArgvRule: the approval hint for a custom tool is a rule over its
// arguments — the template's words, "*" where a value could not be written
// plainly — never a line that reads like shell; and the rule it suggests
// allows the call it was suggested for whenever any specifier rule can.
func TestSuggestArgvRule(t *testing.T) {
	for _, c := range []struct {
		name      string
		argv      []string
		want      string
		allowsIt  bool // the suggested rule lets this very call through
		otherCall []string
	}{
		{"custom: shell syntax in a value becomes *, not a shell line", []string{"echo", "--title", "a; touch x $(id) y"},
			"echo_it(echo --title *)", false, []string{"echo", "--title", "a; touch x (id) y"}},
		{"custom: plain values are kept as they are", []string{"git", "log", "-n", "5", "--", "src/a.go"},
			"echo_it(git log -n 5 -- src/a.go)", true, nil},
		{"custom: a value with a space becomes *", []string{"echo", "hello world"}, "echo_it(echo *)", true, nil},
		{"custom: a glob in a value becomes *, never a wildcard of its own", []string{"ls", "src/*.go"}, "echo_it(ls *)", false, []string{"ls", "src/a.go"}},
		{"custom: an empty value becomes *", []string{"printf", "%s", ""}, "echo_it(printf %s *)", true, nil},
		{"custom: quotes and backticks become *", []string{"echo", `it's`, "`id`"}, "echo_it(echo * *)", false, []string{"echo", `it's`, "x"}},
		{"custom: options with = are plain", []string{"fmt", "--width=80"}, "echo_it(fmt --width=80)", true, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := SuggestArgvRule(customTool.Name, argvSubject(c.argv...))
			if got != c.want {
				t.Fatalf("SuggestArgvRule = %q, want %q", got, c.want)
			}
			p, err := New(Config{Default: Ask, Allow: []string{got}}, WorkspaceWrite)
			if err != nil {
				t.Fatalf("the suggested rule does not parse: %v", err)
			}
			if d := p.Decide(customTool, argvSubject(c.argv...), tool.RiskHigh).Decision; (d == Allow) != c.allowsIt {
				t.Errorf("the suggested rule gives the call %s", d)
			}
			if c.otherCall != nil {
				if d := p.Decide(customTool, argvSubject(c.otherCall...), tool.RiskHigh).Decision; d != Allow {
					t.Errorf("the suggested rule gives a like call with literal values %s, want allow", d)
				}
			}
		})
	}
}

// FuzzSuggestArgvRule: whatever the values, the suggestion parses as a rule,
// holds nothing a shell would read as syntax, and allows the call it was made
// for whenever the call's words are literal (only those can be allowed by a
// specifier).
func FuzzSuggestArgvRule(f *testing.F) {
	f.Add("--title", "a; touch x $(id) y")
	f.Add("-n", "5")
	f.Add("x", "hello world")
	f.Add("", "")
	f.Add("--out=*", "`id`")
	f.Fuzz(func(t *testing.T, a, b string) {
		if strings.ContainsRune(a+b, 0) {
			return // an argv word cannot hold NUL
		}
		subjects := argvSubject("prog", a, b)
		got := SuggestArgvRule(customTool.Name, subjects)
		spec := strings.TrimSuffix(strings.TrimPrefix(got, customTool.Name+"("), ")")
		if strings.ContainsAny(spec, ";&|$`'\"()<>\\\n\t?[]{}") {
			t.Fatalf("suggestion %q holds shell syntax", got)
		}
		p, err := New(Config{Default: Ask, Allow: []string{got}}, WorkspaceWrite)
		if err != nil {
			t.Fatalf("suggestion %q does not parse: %v", got, err)
		}
		cmds, err := SimpleCommands(subjects[0].Value)
		if err != nil || len(cmds) != 1 || !cmds[0].Literal {
			return
		}
		if d := p.Decide(customTool, subjects, tool.RiskHigh).Decision; d != Allow {
			t.Fatalf("suggestion %q gives the literal call %q %s", got, subjects[0].Value, d)
		}
	})
}
