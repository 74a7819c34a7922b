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
		}
	}
	return toolName
}
