package script_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quiverkit/quiver"
	"github.com/quiverkit/quiver/policy"
	"github.com/quiverkit/quiver/policy/approve"
	"github.com/quiverkit/quiver/provider/builtin"
	"github.com/quiverkit/quiver/provider/script"
	"github.com/quiverkit/quiver/sandbox"
	"github.com/quiverkit/quiver/tool"
)

// touch is a script that leaves a mark in the workspace when it runs, so a
// test sees whether it ran; its header says what the test row says.
func touch(risk string) string {
	s := "#!/bin/sh\n# quiver: description Leaves a mark.\n"
	if risk != "" {
		s += "# quiver: risk " + risk + "\n"
	}
	return s + "touch ran.mark\necho ran\n"
}

// TestAScriptCannotLowerItsOwnRisk is breach 7 of issue 18: a script that
// said "# quiver: risk low" ran with no approval, under read-only too. Only
// the operator's low_risk list lowers a script; a script may raise itself.
func TestAScriptCannotLowerItsOwnRisk(t *testing.T) {
	tests := []struct {
		name    string
		header  string // the script's own risk line
		link    bool   // the script is a symbolic link to a file elsewhere in the workspace
		lowRisk []string
		scope   sandbox.WriteScope
		want    tool.Risk
		code    tool.Code // "" when the call runs
	}{
		{"risk low in its header asks all the same", "low", false, nil, sandbox.WorkspaceWrite, tool.RiskHigh, tool.CodeApprovalDenied},
		{"and under read-only it is refused outright", "low", false, nil, sandbox.ReadOnly, tool.RiskHigh, tool.CodeToolNotAllowed},
		{"no risk line is high risk", "", false, nil, sandbox.WorkspaceWrite, tool.RiskHigh, tool.CodeApprovalDenied},
		{"the operator's low_risk lowers it", "", false, []string{"mark"}, sandbox.WorkspaceWrite, tool.RiskLow, ""},
		{"with its own risk low too", "low", false, []string{"mark"}, sandbox.WorkspaceWrite, tool.RiskLow, ""},
		{"an operator-lowered script runs under read-only (in the read-only sandbox)", "", false, []string{"mark"}, sandbox.ReadOnly, tool.RiskLow, ""},
		{"its own risk high wins over low_risk", "high", false, []string{"mark"}, sandbox.WorkspaceWrite, tool.RiskHigh, tool.CodeApprovalDenied},
		{"low_risk names tools, not other scripts", "", false, []string{"other"}, sandbox.WorkspaceWrite, tool.RiskHigh, tool.CodeApprovalDenied},
		{"a symbolic link stays high risk: its content is elsewhere", "", true, []string{"mark"}, sandbox.WorkspaceWrite, tool.RiskHigh, tool.CodeApprovalDenied},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			dir := filepath.Join(root, script.DefaultDir)
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			file := filepath.Join(dir, "mark.sh")
			if tt.link {
				file = filepath.Join(root, "mark.sh")
				if err := os.Symlink("../../mark.sh", filepath.Join(dir, "mark.sh")); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.WriteFile(file, []byte(touch(tt.header)), 0o755); err != nil {
				t.Fatal(err)
			}
			p := script.New(script.Options{Dir: dir, LowRisk: tt.lowRisk})
			pol, err := policy.New(policy.Config{}, tt.scope) // the defaults: low-risk calls run, others ask
			if err != nil {
				t.Fatal(err)
			}
			tk, err := quiver.New(quiver.WithRoot(root), builtin.Standard(), quiver.WithPolicy(pol), quiver.WithApprover(approve.Deny), quiver.WithProvider(p))
			if err != nil {
				t.Fatal(err)
			}
			defer tk.Close()

			tools, err := p.Tools(context.Background())
			if err != nil || len(tools) != 1 {
				t.Fatalf("tools: %d, %v", len(tools), err)
			}
			if got := tools[0].Risk; got != tt.want {
				t.Errorf("risk %s, want %s", got, tt.want)
			}
			out, err := tk.Invoke(context.Background(), "mark", map[string]any{})
			if got := tool.CodeOf(err); got != tt.code {
				t.Fatalf("call: %v, want code %q", err, tt.code)
			}
			// Under read-only the sandbox keeps the mark from being written;
			// the script's output still says it ran.
			ran := strings.Contains(out.Content.String(), "ran\n")
			if _, err := os.Stat(filepath.Join(root, "ran.mark")); err == nil {
				ran = true
			}
			if ran != (tt.code == "") {
				t.Errorf("the script ran: %v; want %v (output %q)", ran, tt.code == "", out.Content.String())
			}
		})
	}
}
