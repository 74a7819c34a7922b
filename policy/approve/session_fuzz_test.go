package approve

import (
	"testing"

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
	} {
		f.Add(seed)
	}
	s := &SessionRules{}
	s.allow("exec_command(git status)")
	f.Fuzz(func(t *testing.T, line string) {
		req := policy.Request{Tool: "exec_command", Suggest: "exec_command(git status)",
			Subjects: []tool.Subject{{Kind: tool.SubjectCommand, Value: line}}}
		if !s.allows(req) {
			return
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
