package policy

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/quiverkit/quiver/tool"
)

// Request is what an [Approver] is asked about: one well-formed call that the
// policy referred to a person.
type Request struct {
	Tool      string
	CallID    string
	Arguments json.RawMessage // validated
	Risk      tool.Risk
	Rule      string         // the rule (or default) that said ask
	Subjects  []tool.Subject // what the call acts on
	// Suggest is an allow rule that would let this call through without
	// asking, for messages that tell a person how to stop being asked.
	Suggest string
}

// Approval is an approver's answer.
type Approval struct {
	Approved bool
	By       string // which approver answered: "auto", "deny", "prompt", "elicit", "quorum"
	Reason   string // why, when refused
}

// Approver decides calls the policy referred to a person. An error means no
// decision could be had; the pipeline treats it as a refusal (fail closed).
type Approver interface {
	Approve(ctx context.Context, req Request) (Approval, error)
}

// SuggestRule returns an allow rule that would pass a call of toolName with
// these subjects: the first command or path named, else the bare tool.
func SuggestRule(toolName string, subjects []tool.Subject) string {
	for _, s := range subjects {
		switch s.Kind {
		case tool.SubjectCommand:
			if cmds, err := SimpleCommands(s.Value); err == nil && len(cmds) > 0 {
				return toolName + "(" + strings.Join(cmds[0].Words, " ") + ")"
			}
		case tool.SubjectPath:
			return toolName + "(" + cleanSubjectPath(s.Value) + ")"
		case tool.SubjectURL:
			return toolName + "(domain:" + commonDomain(subjects) + ")"
		}
	}
	return toolName
}

// commonDomain is the domain every URL subject's host lies in, when they
// share one of two labels or more (html.duckduckgo.com and
// api.duckduckgo.com: duckduckgo.com), else the first host.
func commonDomain(subjects []tool.Subject) string {
	var common []string
	first := ""
	for _, s := range subjects {
		if s.Kind != tool.SubjectURL {
			continue
		}
		labels := strings.Split(urlHost(s.Value), ".")
		if first == "" {
			first, common = strings.Join(labels, "."), labels
			continue
		}
		n := 0
		for n < len(common) && n < len(labels) && common[len(common)-1-n] == labels[len(labels)-1-n] {
			n++
		}
		common = common[len(common)-n:]
	}
	if len(common) >= 2 {
		return strings.Join(common, ".")
	}
	return first
}

// SuggestArgvRule is [SuggestRule] for a tool that runs a command template
// without a shell (a custom tool): its arguments are words, never shell
// syntax. A word that a rule would show as shell — one holding spaces,
// quotes, ; & | $ ( ) or a glob character — becomes "*", so that the rule
// reads as the template's words with a wildcard where such a value went:
// echo_it(echo --title *), not echo_it(echo --title a; touch x $(id)).
// A call whose values hold $, a backtick or a glob character is asked about
// whatever the rules say (see [SimpleCommands]); the rule then covers the
// calls like it whose values are literal.
func SuggestArgvRule(toolName string, subjects []tool.Subject) string {
	for _, s := range subjects {
		if s.Kind != tool.SubjectCommand {
			continue
		}
		cmds, err := SimpleCommands(s.Value)
		if err != nil || len(cmds) == 0 {
			continue
		}
		words := make([]string, len(cmds[0].Words))
		for i, w := range cmds[0].Words {
			words[i] = w
			if !plainWord(w) {
				words[i] = "*"
			}
		}
		return toolName + "(" + strings.Join(words, " ") + ")"
	}
	return SuggestRule(toolName, subjects)
}

// plainWord reports whether w reads the same in a rule as in an argv: no
// character a shell or a rule's glob would give a meaning to.
func plainWord(w string) bool {
	if w == "" {
		return false
	}
	for _, r := range w {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		case strings.ContainsRune("-_./:=,@%+", r):
		default:
			return false
		}
	}
	return true
}
