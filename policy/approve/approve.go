// Package approve holds the stock [policy.Approver]s: [Auto] says yes, [Deny]
// says no, [Prompt] asks the person at the terminal, [Elicit] asks the user
// of an MCP client through elicitation. None of them ever says yes for lack
// of an answer.
package approve

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/quiverkit/quiver/policy"
	"golang.org/x/term"
)

// Auto approves every call: the CLI's --yes.
var Auto policy.Approver = auto{}

type auto struct{}

func (auto) Approve(context.Context, policy.Request) (policy.Approval, error) {
	return policy.Approval{Approved: true, By: "auto"}, nil
}

// Deny refuses every call, saying which allow rule would pass it. It is the
// library's default approver: nothing high-risk runs unless the host says so.
var Deny policy.Approver = deny{}

type deny struct{}

func (deny) Approve(_ context.Context, req policy.Request) (policy.Approval, error) {
	return policy.Approval{By: "deny", Reason: fmt.Sprintf(
		"approval required (%s) and no approver is configured; allow it with the rule %q", req.Rule, req.Suggest)}, nil
}

// Prompt asks a person at a terminal: it shows the tool, its arguments and the
// rule that asked, and reads y/N. When In is not a terminal nobody can answer,
// so it refuses with a message naming --yes and the allow rule that would pass
// the call, rather than block or guess.
type Prompt struct {
	In  *os.File  // usually os.Stdin
	Out io.Writer // usually os.Stderr
}

// Approve implements policy.Approver.
func (p Prompt) Approve(ctx context.Context, req policy.Request) (policy.Approval, error) {
	if !isTerminal(p.In) {
		return policy.Approval{By: "prompt", Reason: fmt.Sprintf(
			"approval required (%s) but standard input is not a terminal; rerun with --yes, or allow it with the rule %q",
			req.Rule, req.Suggest)}, nil
	}
	fmt.Fprintf(p.Out, "\nQuiver wants to run %s (risk %s; %s):\n%s\nAllow? [y/N] ",
		req.Tool, req.Risk, req.Rule, indentJSON(req.Arguments))
	answer := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(p.In).ReadString('\n')
		answer <- strings.ToLower(strings.TrimSpace(line))
	}()
	select {
	case <-ctx.Done():
		return policy.Approval{By: "prompt", Reason: "no answer before the call was cancelled"}, ctx.Err()
	case a := <-answer:
		if a == "y" || a == "yes" {
			return policy.Approval{Approved: true, By: "prompt"}, nil
		}
		return policy.Approval{By: "prompt", Reason: "refused at the prompt"}, nil
	}
}

// isTerminal asks the kernel (TCGETS), not the file mode: /dev/null is a
// character device too, and nobody answers a prompt there.
func isTerminal(f *os.File) bool {
	return f != nil && term.IsTerminal(int(f.Fd()))
}

func indentJSON(raw json.RawMessage) string {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return string(raw)
	}
	b, err := json.MarshalIndent(v, "  ", "  ")
	if err != nil {
		return string(raw)
	}
	return "  " + string(b)
}
