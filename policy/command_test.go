package policy

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/quiverkit/quiver/internal/shell"
	"github.com/quiverkit/quiver/sandbox"
	"github.com/quiverkit/quiver/tool"
	"github.com/quiverkit/quiver/workspace"
)

func TestSimpleCommands(t *testing.T) {
	cases := []struct {
		line string
		want []string
	}{
		{"git status && rm -rf x", []string{"git status", "rm -rf x"}},
		{"a | b || c; d &", []string{"a", "b", "c", "d"}},
		{"git status; $(echo rm) -rf x", []string{"git status", "$(echo rm) -rf x", "echo rm"}},
		{`eval "rm -rf x"`, []string{"eval rm -rf x", "rm -rf x"}},
		{"X=rm; $X -rf x", []string{"$X -rf x"}},
		{"echo `id` 'a b' \"c\"", []string{"echo $(id) a b c", "id"}},
		{"(cd a; ls) > out", []string{"cd a", "ls"}},
		{"{ a; b; }", []string{"a", "b"}},
		{"export A=$(whoami)", []string{"export A=$(whoami)", "whoami"}},
		{"for f in x; do cat $f; done", []string{"cat $f"}},
		{"if test -f x; then rm x; fi", []string{"test -f x", "rm x"}},
		{"ls <(rm x)", []string{"ls <(rm x)", "rm x"}},
		{`r\m -rf x`, []string{"rm -rf x"}},
		{"f() { rm x; }; f", []string{"rm x", "f"}},
		{"sh -c 'rm x' && env A=1 ls", []string{"sh -c rm x", "rm x", "env A=1 ls", "ls"}},
	}
	for _, c := range cases {
		cmds, err := SimpleCommands(c.line)
		if err != nil {
			t.Errorf("%q: %v", c.line, err)
			continue
		}
		var got []string
		for _, x := range cmds {
			got = append(got, x.String())
		}
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("%q (-want +got):\n%s", c.line, diff)
		}
	}
	if _, err := SimpleCommands("echo 'unterminated"); err == nil {
		t.Error("a syntax error was accepted")
	}
}

func TestLiteral(t *testing.T) {
	for line, want := range map[string]bool{"git status": true, "ls *.go": false, "echo $HOME": false, `echo "a b"`: true} {
		cmds, err := SimpleCommands(line)
		if err != nil || cmds[0].Literal != want {
			t.Errorf("%q: literal = %v, want %v (%v)", line, cmds[0].Literal, want, err)
		}
	}
}

func FuzzSimpleCommands(f *testing.F) {
	for _, s := range []string{"git status && rm -rf x", "a | b", "$(x) `y`", "f() { g; }", "case x in a) b;; esac", "echo 'x", "<<EOF\nx\nEOF"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		cmds, err := SimpleCommands(line)
		if err != nil {
			return
		}
		for _, c := range cmds {
			if len(c.Words) == 0 {
				t.Fatalf("%q: empty command", line)
			}
		}
	})
}

func TestGlobMatch(t *testing.T) {
	for _, c := range []struct {
		pattern, s string
		want       bool
	}{
		{"git status", "git status", true},
		{"git status", "git status -s", false},
		{"go test *", "go test ./... -v", true},
		{"*", "", true},
		{"a*b*c", "axxbyyc", true},
		{"a*b*c", "axxbyy", false},
		{"?s", "ls", true},
		{"rm *", "rm", false},
	} {
		if got := globMatch(c.pattern, c.s); got != c.want {
			t.Errorf("globMatch(%q, %q) = %v", c.pattern, c.s, got)
		}
	}
}

// TestStdinProgramIsUnknownCode is issue 18 item 9: an interpreter that
// reads its program from standard input runs code no rule can see, so it
// is handled as sh -c with a word that is not literal.
func TestStdinProgramIsUnknownCode(t *testing.T) {
	unknown := []string{
		"sh <<< 'rm x'",
		"printf 'rm x' | sh",
		"bash -s < script",
		"sh < file",
		"echo 'rm x' | bash -",
		"python3 <<EOF\nimport os\nEOF",
		"perl < f",
		"node < f",
		"ruby < f",
		"awk -f - f <<< '{print}'",
		"sed -f /dev/stdin f",
		"make -f - <<< 'all:'",
		"echo 'rm x' | xargs sh -c",
		"echo f | xargs sh",
		"env sh < f",
		"timeout 5 bash < f",
		"sh /dev/fd/0",
		"dc <<< '!rm x'",
	}
	known := []string{"sh -c 'rm x'", "sh script.sh", "python3 -c 'print(1)'", "perl -ne print f", "awk '{print}' f", "node app.js"}
	p, err := New(Config{Default: Allow, Deny: []string{"exec_command(rm *)"}}, sandbox.WorkspaceWrite)
	if err != nil {
		t.Fatal(err)
	}
	exec := &tool.Tool{Name: "exec_command"}
	for _, line := range unknown {
		cmds, err := SimpleCommands(line)
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		found := false
		for _, c := range cmds {
			if c.runsUnknownCode() {
				found = true
				if c.Literal {
					t.Errorf("%q: %q is literal", line, c)
				}
			}
		}
		if !found {
			t.Errorf("%q: no command stands for the program read from standard input: %q", line, cmds)
		}
		if v := p.Decide(exec, []tool.Subject{{Kind: tool.SubjectCommand, Value: line}}, tool.RiskHigh); v.Decision != Deny {
			t.Errorf("%q under deny exec_command(rm *): %s (%s), want deny", line, v.Decision, v.Rule)
		}
	}
	for _, line := range known {
		cmds, err := SimpleCommands(line)
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		for _, c := range cmds {
			if c.runsUnknownCode() {
				t.Errorf("%q: %q counted as a program read from standard input", line, c)
			}
		}
	}
}

// TestStdinProgramRefusedAtRunTime runs the red-team reproducers of item 9
// through the real runner under deny exec_command(rm *), approved as a
// person would approve them: rm never runs.
func TestStdinProgramRefusedAtRunTime(t *testing.T) {
	dir := t.TempDir()
	ws, err := workspace.Open(dir, workspace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	p, err := New(Config{Default: Allow, Deny: []string{"exec_command(rm *)"}}, sandbox.WorkspaceWrite)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{"sh <<< 'rm victim'", "printf 'rm victim' | sh", "bash -s <<< 'rm victim'", "env sh <<< 'rm victim'",
		"sh <(echo rm victim)"} { // a word not literal before running; /dev/fd/N when it runs
		t.Run(line, func(t *testing.T) {
			victim := filepath.Join(ws.Dir(), "victim")
			if err := os.WriteFile(victim, []byte("x"), 0o644); err != nil {
				t.Fatal(err)
			}
			gate := p.CommandGate(nil, "exec_command", Verdict{Decision: Ask}, true, nil, nil)
			env := sandbox.HostEnv(nil)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			var out strings.Builder
			o, err := shell.Run(ctx, shell.Spec{Command: line, Dir: ws.Dir(), Env: env, BaseEnv: env, Workspace: ws, Gate: gate, Output: &out})
			if err != nil {
				t.Fatal(err)
			}
			if o.Stop != shell.Refused {
				t.Errorf("stop = %q, want refused; output %q", o.Stop, out.String())
			}
			if _, err := os.Stat(victim); err != nil {
				t.Errorf("victim: %v", err)
			}
		})
	}
}
