// Package approve holds the stock [policy.Approver]s: [Auto] says yes, [Deny]
// says no, [Prompt] asks the person at the terminal, [Elicit] asks the user
// of an MCP client through elicitation. None of them ever says yes for lack
// of an answer.
package approve

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/quiverkit/quiver/internal/shell"
	"github.com/quiverkit/quiver/internal/visible"
	"github.com/quiverkit/quiver/policy"
	"github.com/quiverkit/quiver/sandbox"
	"github.com/quiverkit/quiver/tool"
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
		"approval required (%s) and no approver is configured%s", req.Rule, allowHint("; ", req))}, nil
}

// allowHint is how a refusal names the allow rules that would pass the
// call, after prefix; or, when none would (a write to a protected path is
// asked about whatever the rules say), why, as a clause of its own.
func allowHint(prefix string, req policy.Request) string {
	if len(req.Suggest) == 0 {
		if req.NoSuggest == "" {
			return ""
		}
		return "; no allow rule would pass it: " + req.NoSuggest
	}
	return prefix + "allow it with " + RulesText(req.Suggest)
}

// RulesText names suggested allow rules in a sentence: `the rule "x"`, or
// `the rules "a" and "b" (add all of them: ...)`, since a line of several
// commands needs one rule for each and one alone passes nothing.
func RulesText(rules []string) string {
	q := make([]string, len(rules))
	for i, r := range rules {
		q[i] = strconv.Quote(r)
	}
	if len(q) == 1 {
		return "the rule " + q[0]
	}
	return "the rules " + strings.Join(q[:len(q)-1], ", ") + " and " + q[len(q)-1] +
		" (add all of them: each names one command, path or host of the call, and every one must be allowed)"
}

// Prompt asks a person at a terminal: it shows the tool, every argument of
// the call as [Show] does (control and invisible characters as escapes) and
// the rule that asked, and reads y/a/N. An argument longer than 200 lines or
// 8 KiB is cut, with how many bytes are hidden, and the answer s shows
// everything before asking again. When In is not a terminal nobody can
// answer, so it refuses with a message naming --yes and the allow rule that
// would pass the call, rather than block or guess.
//
// With Remember set, the answer "a" allows the call and remembers its rule
// (Request.Suggest) for the rest of the session: a later call with the same
// rule is approved without asking, as Claude Code's "don't ask again" does.
type Prompt struct {
	In       *os.File      // usually os.Stdin
	Out      io.Writer     // usually os.Stderr
	Remember *SessionRules // nil: every call is asked
}

// Approve implements policy.Approver.
func (p Prompt) Approve(ctx context.Context, req policy.Request) (policy.Approval, error) {
	if p.Remember.allows(req) {
		return policy.Approval{Approved: true, By: "prompt", Reason: "allowed for this session by " + RulesText(req.Suggest)}, nil
	}
	if !isTerminal(p.In) {
		return policy.Approval{By: "prompt", Reason: fmt.Sprintf(
			"approval required (%s) but standard input is not a terminal; rerun with --yes%s",
			req.Rule, allowHint(", or ", req))}, nil
	}
	choices := "[y/N]"
	always := p.Remember != nil && rememberable(req)
	if always {
		choices = fmt.Sprintf("[y]es, [a]lways allow %s this session, [N]o:", visible.String(strings.Join(req.Suggest, ", ")))
	}
	shown, cut := render(req, true)
	if cut {
		choices = "[s]how everything, " + choices
	}
	fmt.Fprintf(p.Out, "\nQuiver wants to run %s (risk %s; %s):\n%s\nAllow? %s ",
		visible.String(req.Tool), req.Risk, visible.String(req.Rule), shown, choices)
	in := bufio.NewReader(p.In)
	for {
		a, err := readAnswer(ctx, in)
		if err != nil {
			return policy.Approval{By: "prompt", Reason: "no answer before the call was cancelled"}, err
		}
		switch {
		case a == "y" || a == "yes":
			return policy.Approval{Approved: true, By: "prompt"}, nil
		case (a == "a" || a == "always") && always:
			p.Remember.allow(req.Suggest...)
			return policy.Approval{Approved: true, By: "prompt", Reason: "allowed for this session by " + RulesText(req.Suggest)}, nil
		case (a == "s" || a == "show") && cut:
			fmt.Fprintf(p.Out, "\n%s\nAllow? %s ", Show(req), strings.TrimPrefix(choices, "[s]how everything, "))
			cut = false
			continue
		}
		return policy.Approval{By: "prompt", Reason: "refused at the prompt"}, nil
	}
}

// readAnswer reads one line from in, lowered and trimmed, unless ctx ends
// first.
func readAnswer(ctx context.Context, in *bufio.Reader) (string, error) {
	answer := make(chan string, 1)
	go func() {
		line, _ := in.ReadString('\n')
		answer <- strings.ToLower(strings.TrimSpace(line))
	}()
	select {
	case <-ctx.Done():
		return "", ctx.Err()
	case a := <-answer:
		return a, nil
	}
}

// SessionRules holds the rules a person allowed at the prompt for the rest of
// a session (one `quiver run`). The zero value is ready; it is safe for
// concurrent use. A remembered rule allows a later call only when, as an
// allow rule of the policy, it covers the whole call: "always allow
// exec_command(git status)" never lets "git status && rm -rf x" through,
// though that call suggests the same rule (its first command's). A command
// line must moreover be plain ([shell.PlainLine]): the person approved the
// words they read, so "always allow exec_command(make -s test)" does not
// cover `make -s test >> .git/config`, `PATH=. make -s test` or
// `for PATH in .; do make -s test; done`, which are asked about again.
type SessionRules struct {
	mu     sync.Mutex
	rules  map[string]bool
	policy *policy.Policy // the rules as allow rules, default deny
}

func (s *SessionRules) allow(rules ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.rules == nil {
		s.rules = map[string]bool{}
	}
	for _, r := range rules {
		s.rules[r] = true
	}
	p, err := policy.New(policy.Config{Default: policy.Deny, Allow: slices.Sorted(maps.Keys(s.rules))}, sandbox.Unrestricted)
	if err != nil { // a rule the policy cannot read allows nothing
		for _, r := range rules {
			delete(s.rules, r)
		}
		return
	}
	s.policy = p
}

// allows decides req by the remembered rules alone, as a high-risk call:
// nothing passes by default.
func (s *SessionRules) allows(req policy.Request) bool {
	if s == nil {
		return false
	}
	s.mu.Lock()
	p := s.policy
	s.mu.Unlock()
	if p == nil {
		return false
	}
	for _, sub := range req.Subjects {
		if sub.Kind == tool.SubjectCommand && shell.PlainLine(sub.Value) != nil {
			return false
		}
	}
	return p.Decide(&tool.Tool{Name: req.Tool}, req.Subjects, tool.RiskHigh).Decision == policy.Allow
}

// rememberable reports whether "always allow" would cover req from now
// on: it has rules to remember, and its command lines are plain (see
// [SessionRules]), so that offering it is not a promise the next call
// breaks.
func rememberable(req policy.Request) bool {
	if len(req.Suggest) == 0 {
		return false
	}
	for _, sub := range req.Subjects {
		if sub.Kind == tool.SubjectCommand && shell.PlainLine(sub.Value) != nil {
			return false
		}
	}
	return true
}

// Rules returns the rules allowed so far, for a closing summary.
func (s *SessionRules) Rules() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Sorted(maps.Keys(s.rules))
}

// isTerminal asks the kernel (TCGETS), not the file mode: /dev/null is a
// character device too, and nobody answers a prompt there.
func isTerminal(f *os.File) bool {
	return f != nil && term.IsTerminal(int(f.Fd()))
}
