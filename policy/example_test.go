package policy_test

import (
	"context"
	"fmt"
	"log"

	"github.com/quiverkit/quiver/policy"
	"github.com/quiverkit/quiver/sandbox"
	"github.com/quiverkit/quiver/tool"
)

// Rules are "tool(specifier)" under allow, ask and deny; for a command tool
// the specifier matches each simple command of the line. A deny is final and
// an ask beats an allow, wherever each is written; what no rule decides
// falls to the default (ask).
func ExamplePolicy_Decide() {
	p, err := policy.New(policy.Config{
		Allow: []string{"exec_command(git *)", "exec_command(go test *)"},
		Ask:   []string{"exec_command(git push *)"},
		Deny:  []string{"exec_command(rm *)", "exec_command(git push --force *)"},
	}, sandbox.WorkspaceWrite)
	if err != nil {
		log.Fatal(err)
	}

	type execInput struct {
		Command string `json:"command"`
	}
	execCommand := tool.Func("exec_command", "Runs a shell command.",
		func(context.Context, tool.Context, execInput) (string, error) { return "", nil })

	for _, line := range []string{
		"git status",
		"git push origin main",
		"git push --force origin main",
		"go test ./... && rm -rf /",
		"$(echo git) status", // not known before running: no allow rule covers it
		"make",
	} {
		// A call's subjects are what its tool's Subjects gives: here, the line.
		v := p.Decide(execCommand, []tool.Subject{{Kind: tool.SubjectCommand, Value: line}}, tool.RiskHigh)
		fmt.Printf("%-30s %-5s %s\n", line, v.Decision, v.Rule)
	}
	// Output:
	// git status                     allow allow: exec_command(git *)
	// git push origin main           ask   ask: exec_command(git push *)
	// git push --force origin main   deny  deny: exec_command(git push --force *)
	// go test ./... && rm -rf /      deny  deny: exec_command(rm *)
	// $(echo git) status             ask   default = ask
	// make                           ask   default = ask
}
