package policy

import (
	"context"
	"encoding/json"

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
	// View is the tool's own view of its calls ([tool.Tool].View): how
	// a prompt shows the arguments to the person asked.
	View tool.View
	// Suggest are the allow rules that, added to the policy together, let
	// this call through without asking ([Policy.Suggest]): one per command
	// of its command line, per path or per host; each is needed. It is
	// for messages that tell a person, or a model, how to stop being asked.
	Suggest []string
	// NoSuggest says why no allow rule would pass the call, when Suggest
	// is empty: a protected path, an ask rule, a word of the line known
	// only when it runs.
	NoSuggest string
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
