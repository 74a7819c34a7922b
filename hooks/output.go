package hooks

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Output is what a hook may print on standard output when it exits 0: one
// JSON object, Claude Code's. Standard output that does not start with '{'
// is a message for a person, as in Claude Code, and decides nothing; output
// that starts like JSON and is not is the hook's failure.
type Output struct {
	// Continue false stops the call: a PreToolUse hook refuses it, a
	// PostToolUse hook marks its result an error, with StopReason.
	Continue   *bool  `json:"continue"`
	StopReason string `json:"stopReason"`
	// SystemMessage is for the person; it is logged.
	SystemMessage  string `json:"systemMessage"`
	SuppressOutput bool   `json:"suppressOutput"`
	// Decision is PostToolUse's "block" (the result becomes an error with
	// Reason), or PreToolUse's older "approve" and "block", read as
	// permissionDecision allow and deny.
	Decision string    `json:"decision"`
	Reason   string    `json:"reason"`
	Specific *Specific `json:"hookSpecificOutput"`
}

// Specific is hookSpecificOutput.
type Specific struct {
	HookEventName string `json:"hookEventName"`
	// PermissionDecision is PreToolUse's allow, ask or deny (defer, which
	// Claude Code honours only in its non-interactive mode, is read as
	// ask: a person decides).
	PermissionDecision       string `json:"permissionDecision"`
	PermissionDecisionReason string `json:"permissionDecisionReason"`
	// UpdatedInput replaces the call's whole input (PreToolUse).
	UpdatedInput map[string]any `json:"updatedInput"`
	// AdditionalContext is shown to the model with the call's result.
	AdditionalContext string `json:"additionalContext"`
}

// Decision is what a PreToolUse hook says about its call.
type Decision string

// The decisions, weakest first; "" is none.
const (
	Allow Decision = "allow"
	Ask   Decision = "ask"
	Deny  Decision = "deny"
)

// rank orders decisions by strictness.
func (d Decision) rank() int {
	switch d {
	case Allow:
		return 1
	case Ask:
		return 2
	case Deny:
		return 3
	}
	return 0
}

// ParseOutput reads a hook's standard output for event e. It returns nil
// for output that is empty or not JSON, and an error for JSON that is
// malformed, of the wrong shape, or a decision the event does not take.
func ParseOutput(e Event, stdout []byte) (*Output, error) {
	b := bytes.TrimSpace(bytes.TrimPrefix(stdout, []byte("\xef\xbb\xbf")))
	if len(b) == 0 || b[0] != '{' {
		return nil, nil
	}
	var o Output
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&o); err != nil {
		return nil, fmt.Errorf("standard output is not the JSON Claude Code hooks print: %w", err)
	}
	if dec.More() {
		return nil, fmt.Errorf("standard output holds more than one JSON value")
	}
	if err := o.check(e); err != nil {
		return nil, err
	}
	return &o, nil
}

// check refuses what event e does not take.
func (o *Output) check(e Event) error {
	switch {
	case e == PreToolUse && o.Decision != "" && o.Decision != "approve" && o.Decision != "block":
		return fmt.Errorf("decision: %q, want approve or block (or hookSpecificOutput.permissionDecision)", o.Decision)
	case e != PreToolUse && o.Decision != "" && o.Decision != "block":
		return fmt.Errorf("decision: %q, want block or none", o.Decision)
	}
	s := o.Specific
	if s == nil {
		return nil
	}
	switch {
	case s.HookEventName != "" && s.HookEventName != string(e):
		return fmt.Errorf("hookSpecificOutput.hookEventName: %q in a %s hook", s.HookEventName, e)
	case e != PreToolUse && (s.PermissionDecision != "" || s.UpdatedInput != nil):
		return fmt.Errorf("hookSpecificOutput: permissionDecision and updatedInput are PreToolUse's, not %s's", e)
	}
	switch s.PermissionDecision {
	case "", "allow", "ask", "deny", "defer":
		return nil
	}
	return fmt.Errorf("hookSpecificOutput.permissionDecision: %q, want allow, ask or deny", s.PermissionDecision)
}

// decision is the PreToolUse decision the output makes, and its reason.
func (o *Output) decision() (Decision, string) {
	if o.Continue != nil && !*o.Continue {
		return Deny, o.StopReason
	}
	if s := o.Specific; s != nil && s.PermissionDecision != "" {
		switch s.PermissionDecision {
		case "allow":
			return Allow, s.PermissionDecisionReason
		case "deny":
			return Deny, s.PermissionDecisionReason
		}
		return Ask, s.PermissionDecisionReason
	}
	switch o.Decision {
	case "approve":
		return Allow, o.Reason
	case "block":
		return Deny, o.Reason
	}
	return "", ""
}

// context is the additional context the output gives the model.
func (o *Output) context() string {
	if o.Specific == nil {
		return ""
	}
	return o.Specific.AdditionalContext
}
