package approve

import (
	"testing"

	"github.com/quiverkit/quiver/internal/shell"
	"github.com/quiverkit/quiver/policy"
	"github.com/quiverkit/quiver/tool"
)

// FuzzSessionRules probes "always allow exec_command(git status)" with any
// command line: a call it lets through must consist of nothing but that
// command, however the line is spelled (pipes, &&, ;, subshells, $(...),
// backticks, quoting, newlines).
func FuzzSessionRules(f *testing.F) {
	for _, seed := range []string{
		"git status", "git status && rm -rf x", "git status; rm -rf x", "git status | sh", "(git status)",
		"git status $(rm -rf x)", "git status `rm -rf x`", "git status\nrm -rf x", "'git' 'status'", "git  status",
		"GIT_DIR=/tmp git status", "git status > /etc/passwd", "git status -s", "eval git status", "git status &",
		"git status >> .git/config", "git status 2>&1", "git status &> quiver.toml", "for PATH in .; do git status; done",
		"exec 3>x; git status >&3", "{ git status; } > x",
	} {
		f.Add(seed)
	}
	s := &SessionRules{}
	s.allow("exec_command(git status)")
	f.Fuzz(func(t *testing.T, line string) {
		req := policy.Request{Tool: "exec_command", Suggest: []string{"exec_command(git status)"},
			Subjects: []tool.Subject{{Kind: tool.SubjectCommand, Value: line}}}
		if !s.allows(req) {
			return
		}
		if err := shell.PlainLine(line); err != nil {
			t.Fatalf("allowed %q, which does more than run its commands: %v", line, err)
		}
		cmds, err := policy.SimpleCommands(line)
		if err != nil {
			t.Fatalf("allowed a line that does not parse: %q (%v)", line, err)
		}
		for _, c := range cmds {
			if c.String() != "git status" {
				t.Fatalf("allowed %q, which runs %q", line, c.String())
			}
		}
	})
}

// TestSessionRulesCoverWholeLines: "always allow exec_command(make -s test)"
// lets through only lines that do nothing but run that command.
func TestSessionRulesCoverWholeLines(t *testing.T) {
	s := &SessionRules{}
	s.allow("exec_command(make -s test)")
	for _, c := range []struct {
		line    string
		allowed bool
	}{
		{"make -s test", true},
		{"make -s test 2>&1", true},
		{"make -s test >/dev/null", true},
		{"make -s test && make -s test", true},
		{"make -s test >> .git/config", false},
		{"make -s test > .quiver/tools/x", false},
		{"make -s test &> quiver.toml", false},
		{"make -s test >| .git/hooks/pre-commit", false},
		{"make -s test <> .git/config", false},
		{"make -s test >& .git/config", false},
		{"exec 3>> .git/config; make -s test >&3", false},
		{"{ make -s test; } >> .git/config", false},
		{"PATH=. make -s test", false},
		{"LD_PRELOAD=./x.so make -s test", false},
		{"for PATH in .; do make -s test; done", false},
		{"make() { rm -rf x; }; make -s test", false},
		{"make -s test &", false},
		{"make -s test; rm -rf x", false},
	} {
		req := policy.Request{Tool: "exec_command", Suggest: []string{"exec_command(make -s test)"},
			Subjects: []tool.Subject{{Kind: tool.SubjectCommand, Value: c.line}}}
		if got := s.allows(req); got != c.allowed {
			t.Errorf("remembered exec_command(make -s test) on %q: allowed = %v, want %v", c.line, got, c.allowed)
		}
	}
}

// TestAlwaysOfferedWhereItHolds: the prompt offers "always allow" only for
// a call the remembered rules would cover next time: one with rules to
// remember, whose command lines are plain. A redirection to a file is not
// (see SessionRules), so offering it would be a promise the next call breaks.
func TestAlwaysOfferedWhereItHolds(t *testing.T) {
	for _, c := range []struct {
		line    string
		suggest []string
		want    bool
	}{
		{"cat a | tee b", []string{"exec_command(cat a)", "exec_command(tee b)"}, true},
		{"make -s test > out", []string{"exec_command(make -s test)"}, false},
		{"echo $(date)", nil, false},
	} {
		req := policy.Request{Tool: "exec_command", Suggest: c.suggest,
			Subjects: []tool.Subject{{Kind: tool.SubjectCommand, Value: c.line}}}
		if got := rememberable(req); got != c.want {
			t.Errorf("%q: offered = %v, want %v", c.line, got, c.want)
		}
		if c.want {
			s := &SessionRules{}
			s.allow(c.suggest...)
			if !s.allows(req) {
				t.Errorf("%q: offered, but its rules once remembered do not cover it", c.line)
			}
		}
	}
}
