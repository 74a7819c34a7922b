package quiver

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/quiverkit/quiver/audit"
	"github.com/quiverkit/quiver/hooks"
	"github.com/quiverkit/quiver/policy"
	"github.com/quiverkit/quiver/sandbox"
	"github.com/quiverkit/quiver/telemetry"
	"github.com/quiverkit/quiver/tool"
)

// WithHooks runs the operator's hooks around every call (package hooks):
// PreToolUse after the arguments are validated and before the policy
// decides, PostToolUse or PostToolUseFailure once the call has run. maps
// gives the hooks of a Claude Code settings file the names they expect
// (tools.ClaudeCode for the built-in catalogue); nil leaves every tool its
// own name. The hooks' working directory is the workspace root, and their
// processes run under the write scope's profile.
func WithHooks(cfg hooks.Config, maps *hooks.Mappings) Option {
	return func(tk *Toolkit) { tk.hookConfig, tk.hookMaps = &cfg, maps }
}

// Hooks returns the toolkit's hooks; nil when it has none.
func (tk *Toolkit) Hooks() *hooks.Set { return tk.hooks }

// newHooks makes the hooks ready once the workspace is open.
func (tk *Toolkit) newHooks() error {
	if tk.hookConfig == nil || tk.hookConfig.Empty() && !tk.hookConfig.HookAllow {
		return nil
	}
	session := make([]byte, 8)
	rand.Read(session)
	set, err := hooks.New(*tk.hookConfig, hooks.Options{Root: tk.ws.Dir(), Mappings: tk.hookMaps,
		SessionID: "quiver-" + hex.EncodeToString(session), Logger: tk.logger, Observe: tk.observeHook})
	if err != nil {
		return fmt.Errorf("quiver: %w", err)
	}
	tk.hooks = set
	return nil
}

// observeHook records each hook's run as a span under its call's
// execute_tool span, when the toolkit records telemetry.
func (tk *Toolkit) observeHook(ctx context.Context, e hooks.Event, name string) func(hooks.Ran) {
	if tk.tel == nil {
		return nil
	}
	run := tk.tel.StartHook(ctx, string(e), name)
	return func(r hooks.Ran) {
		o := telemetry.HookOutcome{Decision: r.Decision, Rewrote: r.Rewrote, Error: r.Error}
		if r.Exit != nil {
			o.Exit, o.Exited = *r.Exit, true
		}
		run.End(o)
	}
}

// hookCall is what the hooks are told about c.
func (tk *Toolkit) hookCall(ctx context.Context, c *call) hooks.Call {
	return hooks.Call{ID: c.ID, Tool: c.tool.Name, Input: c.parsed, Profile: tk.box, Session: tool.SessionOf(ctx)}
}

// preHooks is the PreToolUse step: between validate and decide. A hook's
// deny refuses the call here; its rewrite is validated again, as the
// model's arguments were; its ask and allow are kept for decide and approve.
func (tk *Toolkit) preHooks(ctx context.Context, c *call) error {
	if !tk.hooks.Has(hooks.PreToolUse, c.tool.Name) {
		return nil
	}
	pre := tk.hooks.Pre(ctx, tk.hookCall(ctx, c))
	c.hooksRan = append(c.hooksRan, pre.Ran...)
	c.hookNotes = append(c.hookNotes, notes(hooks.PreToolUse, pre.Context)...)
	c.hookDecision, c.hookBy, c.hookReason = pre.Decision, pre.Hook, pre.Reason
	if pre.Unavailable != nil {
		return sandbox.ToolError(fmt.Errorf("hook %s cannot run: %w", pre.Hook, pre.Unavailable))
	}
	if pre.Decision == hooks.Deny {
		c.verdict.Decision, c.verdict.Rule = policy.Deny, "hook: "+pre.Hook
		return tool.Errorf(tool.CodeToolNotAllowed, "call refused by hook %s: %s", pre.Hook, pre.Reason).
			WithDetail("hook", pre.Hook).WithDetail("reason", pre.Reason)
	}
	if pre.Input == nil {
		return nil
	}
	raw, err := json.Marshal(pre.Input)
	if err != nil {
		return tool.Errorf(tool.CodeInternal, "re-encode the input hook %s rewrote: %w", pre.Hook, err)
	}
	m, err := checkObject(raw)
	if err == nil {
		c.args = raw
		err = tk.validate(c, m)
	}
	if err != nil {
		te := tool.AsError(err)
		te.Message = "the input a PreToolUse hook rewrote the call to is refused: " + te.Message
		return te.WithDetail("hook", "PreToolUse")
	}
	c.parsed = m
	return nil
}

// hookTightens applies a hook's ask to the policy's allow: a person is
// asked about a call the hook wants asked about, however the policy would
// have let it through.
func (c *call) hookTightens() {
	if c.hookDecision == hooks.Ask && c.verdict.Decision == policy.Allow {
		c.verdict.Decision, c.verdict.Rule = policy.Ask, "hook: "+c.hookBy
		c.verdict.BySpecifier, c.verdict.ByLowRisk = false, false
	}
}

// hookApproves reports whether a hook's allow answers the ask the policy's
// default made, as an approver would: only when the operator's own
// configuration lets it ([hooks.Config].HookAllow), never past a rule.
func (tk *Toolkit) hookApproves(c *call) bool {
	if c.hookDecision != hooks.Allow || !tk.hooks.HookAllow() || !c.verdict.ByDefault {
		return false
	}
	c.approval.Approved, c.approval.By, c.approval.Reason = true, "hook: "+c.hookBy, c.hookReason
	return true
}

// postHooks runs the hooks after a call that reached its tool:
// PostToolUse after a success, PostToolUseFailure after a failure. Their
// context joins the result the model sees (after the cache's trimming, so
// a long output cannot hide it), and a PostToolUse block makes the result
// an error.
func (tk *Toolkit) postHooks(ctx context.Context, c *call, res tool.Result, err error) (tool.Result, error) {
	if tk.hooks == nil || !c.executed {
		return res, err
	}
	if err != nil {
		te := tool.AsError(err)
		if tk.hooks.Has(hooks.PostToolUseFailure, c.tool.Name) {
			post := tk.hooks.Failure(ctx, tk.hookCall(ctx, c), string(te.Code)+": "+te.Message, te.Code == tool.CodeCancelled)
			c.hooksRan = append(c.hooksRan, post.Ran...)
			c.hookNotes = append(c.hookNotes, notes(hooks.PostToolUseFailure, post.Context)...)
		}
		return res, err
	}
	if !tk.hooks.Has(hooks.PostToolUse, c.tool.Name) {
		return res, nil
	}
	post := tk.hooks.Post(ctx, tk.hookCall(ctx, c), response(res))
	c.hooksRan = append(c.hooksRan, post.Ran...)
	c.hookNotes = append(c.hookNotes, notes(hooks.PostToolUse, post.Context)...)
	if post.Block {
		c.blocked = tool.Errorf(tool.CodeExecutionFailed, "hook %s: %s", post.Hook, post.Reason).
			WithDetail("hook", post.Hook).WithDetail("reason", post.Reason)
		res.IsError = true
		res.Parts = append(res.Parts, tool.Text("PostToolUse hook "+post.Hook+" marked this result an error: "+post.Reason).Parts...)
	}
	return res, nil
}

// response is what PostToolUse hooks get as tool_response: the typed
// output when the tool has one and it is a JSON object, else the text the
// model sees, as {"text": ...}.
func response(res tool.Result) any {
	if res.Output != nil {
		if b, err := json.Marshal(res.Output); err == nil && len(b) > 0 && b[0] == '{' {
			return json.RawMessage(b)
		}
	}
	for _, p := range res.Parts {
		if p.Type == tool.PartJSON && len(p.JSON) > 0 && p.JSON[0] == '{' && len(res.Parts) == 1 {
			return p.JSON
		}
	}
	return map[string]any{"text": res.Text(), "is_error": res.IsError}
}

// notes are the hooks' context as the model reads it.
func notes(e hooks.Event, context []string) []string {
	out := make([]string, len(context))
	for i, s := range context {
		out[i] = "Note from a " + string(e) + " hook: " + s
	}
	return out
}

// withNotes adds the hooks' notes to what the model sees.
func withNotes(r tool.Result, notes []string) tool.Result {
	for _, n := range notes {
		r.Parts = append(r.Parts, tool.Text(n).Parts...)
	}
	return r
}

// auditHooks is the hooks' part of the audit record.
func auditHooks(ran []hooks.Ran) []audit.Hook {
	if len(ran) == 0 {
		return nil
	}
	out := make([]audit.Hook, len(ran))
	for i, r := range ran {
		out[i] = audit.Hook{Event: string(r.Event), Hook: audit.Clip(r.Hook, audit.MaxString), Decision: r.Decision,
			Rewrote: r.Rewrote, DurationMS: r.DurationMS, Error: audit.Clip(r.Error, audit.MaxString)}
	}
	return out
}
