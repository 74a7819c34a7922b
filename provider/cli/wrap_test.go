package cli

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/quiverkit/quiver"
	"github.com/quiverkit/quiver/policy"
	"github.com/quiverkit/quiver/policy/approve"
	"github.com/quiverkit/quiver/provider/builtin"
	"github.com/quiverkit/quiver/tool"
)

// wrappedToolkit serves [tools.cli.aliases] say = "printf" over a temporary
// workspace, every call approved.
func wrappedToolkit(t *testing.T, approver policy.Approver) *quiver.Toolkit {
	t.Helper()
	p := New(Options{Aliases: map[string]string{"say": "printf"}})
	if err := p.Err(); err != nil {
		t.Fatal(err)
	}
	tk, err := quiver.New(quiver.WithRoot(t.TempDir()), builtin.Standard(), quiver.WithApprover(approver), quiver.WithProvider(p))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tk.Close() })
	return tk
}

// Each argument reaches the program as one word, whatever it holds: no
// shell reads them.
func TestWrappedArgsAreWords(t *testing.T) {
	tk := wrappedToolkit(t, approve.Auto)
	args := []string{"[%s]", "; rm -rf x", "$(id)", "`id`", "a  b | c > d", "--output=/etc/x", "*"}
	out, err := tk.Invoke(context.Background(), "say", map[string]any{"args": args})
	if err != nil {
		t.Fatal(err)
	}
	want := "exit_code: 0\n[; rm -rf x][$(id)][`id`][a  b | c > d][--output=/etc/x][*]"
	if got := out.Content.String(); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestWrappedToolIsHighRisk(t *testing.T) {
	tk := wrappedToolkit(t, approve.Deny)
	tools, err := tk.Tools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range tools {
		if tl.Name == "say" && tl.Risk != tool.RiskHigh {
			t.Errorf("say: risk %s, want high", tl.Risk)
		}
	}
	_, err = tk.Invoke(context.Background(), "say", map[string]any{"args": []string{"hi"}})
	var te *tool.Error
	if !errors.As(err, &te) || te.Code != tool.CodeApprovalDenied {
		t.Errorf("unapproved call: %v, want APPROVAL_DENIED", err)
	}
}

func TestWrappedBadInput(t *testing.T) {
	tk := wrappedToolkit(t, approve.Auto)
	cases := []struct {
		name string
		args map[string]any
		code tool.Code
	}{
		{"args is not an array", map[string]any{"args": "ls -la"}, tool.CodeInvalidArguments},
		{"an unknown field", map[string]any{"argv": []string{"x"}}, tool.CodeInvalidArguments},
		{"a NUL byte", map[string]any{"args": []string{"a\x00b"}}, tool.CodeInvalidArguments},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := tk.Invoke(context.Background(), "say", c.args)
			var te *tool.Error
			if !errors.As(err, &te) || te.Code != c.code {
				t.Errorf("err = %v, want %s", err, c.code)
			}
		})
	}
}

func TestWrappedMissingProgramFails(t *testing.T) {
	p := New(Options{Aliases: map[string]string{"my_tool": "external-cli-command-that-is-not-installed"}})
	tk, err := quiver.New(quiver.WithRoot(t.TempDir()), builtin.Standard(), quiver.WithApprover(approve.Auto), quiver.WithProvider(p))
	if err != nil {
		t.Fatal(err)
	}
	defer tk.Close()
	_, err = tk.Invoke(context.Background(), "my_tool", map[string]any{"args": []string{"x"}})
	var te *tool.Error
	if !errors.As(err, &te) || te.Code != tool.CodeExecutionFailed || !strings.Contains(te.Message, "external-cli-command-that-is-not-installed") {
		t.Errorf("err = %v, want EXECUTION_FAILED naming the program", err)
	}
}

// An alias that cannot define a tool is a configuration error, not a tool
// that is then not found.
func TestWrappedAliasErrors(t *testing.T) {
	cases := []struct {
		name, program, want string
	}{
		{"my tool", "x", `"my tool" is not a tool name`},
		{"ok_name", "gh issue list", "must name one program, without arguments"},
		{"ok_name", "", "must name one program"},
		{strings.Repeat("n", 65), "x", "is not a tool name"},
	}
	for _, c := range cases {
		t.Run(c.name+"="+c.program, func(t *testing.T) {
			p := New(Options{Aliases: map[string]string{c.name: c.program}, LookPath: fakeLook()})
			err := p.Err()
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Err = %v, want %q", err, c.want)
			}
			tools, _ := p.Tools(context.Background())
			if diff := cmp.Diff([]string(nil), toolNames(tools)); diff != "" {
				t.Errorf("tools (-want +got):\n%s", diff)
			}
		})
	}
}

func toolNames(ts []*tool.Tool) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Name)
	}
	return out
}
