//go:build linux

package approve

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/quiverkit/quiver/policy"
	"github.com/quiverkit/quiver/tool"
)

func TestShowWhatWillRun(t *testing.T) {
	tests := []struct {
		name, tool, args string
		want             []string
	}{
		{"exec_command: the exact command line", "exec_command", `{"command":"git status && rm -rf build","workdir":"src"}`, []string{"workdir: src", "$ git status && rm -rf build"}},
		{"exec_command: every field", "exec_command", `{"command":"make","env":["LD_PRELOAD=./x.so"],"background":true,"timeout_secs":5}`,
			[]string{"$ make", `env: ["LD_PRELOAD=./x.so"]`, "background: true", "timeout_secs: 5"}},
		{"exec_command: argv", "exec_command", `{"argv":["go","test","./..."]}`, []string{`argv: ["go","test","./..."]`}},
		{"exec_command: a multi-line command keeps its lines", "exec_command", `{"command":"cat <<EOF\nhi\nEOF"}`, []string{"$ cat <<EOF\n    hi\n    EOF"}},
		{"apply_patch: the patch itself", "apply_patch", `{"patch":"*** Begin Patch\n*** Update File: a.go\n-old\n+new\n*** End Patch"}`, []string{"*** Update File: a.go", "  -old", "  +new"}},
		{"edit: removed and added lines", "edit", `{"path":"a.go","old_string":"x := 1\ny := 2","new_string":"x := 3"}`, []string{"  path: a.go", "  - x := 1", "  - y := 2", "  + x := 3"}},
		{"multi_edit: each edit", "multi_edit", `{"path":"a.go","edits":[{"old_string":"a","new_string":"b"},{"old_string":"c","new_string":"d"}]}`, []string{"@@ edit 2", "  - c", "  + d"}},
		{"write_file: the whole content", "write_file", `{"path":"n.txt","content":"one\ntwo\n"}`, []string{"n.txt (whole new content)", "  + one", "  + two"}},
		{"another tool: every argument by name", "web_fetch", `{"url":"https://example.com","max_bytes":10}`, []string{"url: https://example.com", "max_bytes: 10"}},
		{"edit: an argument the view does not know is shown too", "edit", `{"path":"a.go","old_string":"a","new_string":"b","replace_all":true}`, []string{"  - a", "  + b", "replace_all: true"}},
		{"multi_edit: an edit with an unknown field is shown whole", "multi_edit", `{"path":"a.go","edits":[{"old_string":"a","new_string":"b","x":1}]}`, []string{`edits: [{"new_string":"b","old_string":"a","x":1}]`}},
		{"not an object: shown whole", "web_fetch", `[1,2]`, []string{"arguments: [1,2]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Show(viewed(policy.Request{Tool: tt.tool, Arguments: []byte(tt.args)}))
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("Show = %q, lacks %q", got, w)
				}
			}
		})
	}
}

func TestShowNeverCuts(t *testing.T) {
	content := strings.Repeat("line\n", maxShownLines+50)
	req := viewed(policy.Request{Tool: "write_file", Arguments: []byte(`{"path":"big","content":` + quoteJSON(content) + `}`)})
	if n := strings.Count(Show(req), "+ line"); n != maxShownLines+50 {
		t.Errorf("Show shows %d lines of %d", n, maxShownLines+50)
	}
	cut, wasCut := render(req, true)
	if n := strings.Count(cut, "+ line"); n != maxShownLines || !wasCut || !strings.Contains(cut, "250 more bytes of this text not shown: answer s") {
		t.Errorf("the prompt's view shows %d lines, cut %v; tail %q", n, wasCut, cut[len(cut)-80:])
	}
}

func quoteJSON(s string) string {
	return `"` + strings.ReplaceAll(s, "\n", `\n`) + `"`
}

// "a" at the prompt allows the call and its rule for the session: the next
// call with that rule is not asked, one with another rule is.
func TestPromptAlwaysAllowsTheRuleForTheSession(t *testing.T) {
	master, slave := openPTY(t)
	var out bytes.Buffer
	p := Prompt{In: slave, Out: &out, Remember: &SessionRules{}}
	git := viewed(policy.Request{Tool: "exec_command", Arguments: []byte(`{"command":"git status"}`), Rule: "default = ask", Suggest: []string{"exec_command(git status)"},
		Subjects: []tool.Subject{{Kind: tool.SubjectCommand, Value: "git status"}}})
	if _, err := master.Write([]byte("a\n")); err != nil {
		t.Fatal(err)
	}
	if a, err := p.Approve(context.Background(), git); err != nil || !a.Approved {
		t.Fatalf("answer a: %+v, %v", a, err)
	}
	if !strings.Contains(out.String(), "[a]lways allow exec_command(git status) this session") || !strings.Contains(out.String(), "$ git status") {
		t.Errorf("prompt %q", out.String())
	}
	out.Reset()
	if a, err := p.Approve(context.Background(), git); err != nil || !a.Approved || out.Len() != 0 {
		t.Errorf("the same rule again: %+v, %v, prompted %q", a, err, out.String())
	}
	// The same suggested rule (the first command's), but a call it does not
	// cover: asked again.
	other := git
	other.Arguments = []byte(`{"command":"git status && rm -rf x"}`)
	other.Subjects = []tool.Subject{{Kind: tool.SubjectCommand, Value: "git status && rm -rf x"}}
	if _, err := master.Write([]byte("n\n")); err != nil {
		t.Fatal(err)
	}
	if a, err := p.Approve(context.Background(), other); err != nil || a.Approved || !strings.Contains(out.String(), "rm -rf x") {
		t.Errorf("another rule: %+v, %v, prompt %q", a, err, out.String())
	}
	if got := p.Remember.Rules(); len(got) != 1 || got[0] != "exec_command(git status)" {
		t.Errorf("rules %q", got)
	}
}
