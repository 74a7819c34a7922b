package hooks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/quiverkit/quiver/sandbox"
)

// Set is the hooks in force for a toolkit. It is safe for concurrent calls.
type Set struct {
	cfg     Config
	maps    *Mappings
	root    string
	session string
	logger  *slog.Logger
	observe func(context.Context, Event, string) func(Ran)
}

// Options are what a Set needs besides its configuration.
type Options struct {
	// Root is the workspace root: every hook's working directory, its
	// CLAUDE_PROJECT_DIR and cwd, and what paths are relative to.
	Root string
	// Mappings are the Claude Code names of the catalogue's tools, for the
	// hooks of a Claude Code settings file.
	Mappings *Mappings
	// SessionID is the session_id hooks are given when a call belongs to
	// no session of the host's.
	SessionID string
	Logger    *slog.Logger
	// Observe, when set, is called as each hook starts, with the context
	// of its call; what it returns is called with the hook's run once its
	// decision is known. The toolkit records OpenTelemetry spans with it.
	Observe func(ctx context.Context, e Event, hook string) func(Ran)
}

// New checks cfg and makes its hooks ready to run.
func New(cfg Config, o Options) (*Set, error) {
	if err := cfg.Check(); err != nil {
		return nil, err
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return &Set{cfg: cfg, maps: o.Mappings, root: o.Root, session: o.SessionID, logger: o.Logger, observe: o.Observe}, nil
}

// HookAllow reports whether the operator lets a hook's allow pass a call
// the policy would ask about ([Config].HookAllow).
func (s *Set) HookAllow() bool { return s != nil && s.cfg.HookAllow }

// Call is the call hooks are told about.
type Call struct {
	ID    string         // tool_use_id
	Tool  string         // the tool's name in Quiver
	Input map[string]any // the validated arguments, in Quiver's names
	// Profile confines the hooks' processes: the call's own.
	Profile *sandbox.Profile
	// Session is the session_id hooks are given: the host's session of the
	// call (an MCP client's); empty for the Set's own.
	Session string
}

// Ran is one hook's run, for the audit record and the log.
type Ran struct {
	Event      Event   `json:"event"`
	Hook       string  `json:"hook"`
	Decision   string  `json:"decision,omitempty"` // allow, ask, deny (PreToolUse); block (after the call)
	Rewrote    bool    `json:"rewrote,omitempty"`  // it replaced the call's input (updatedInput)
	DurationMS float64 `json:"duration_ms"`
	// Exit is the hook process's exit status; nil when it has none (it
	// could not start, or was killed).
	Exit  *int   `json:"exit_code,omitempty"`
	Error string `json:"error,omitempty"` // why the hook failed
}

// Matched is a hook that runs for a tool.
type Matched struct {
	Event   Event
	Hook    string
	Matcher string
	Source  string
}

// Matching lists the hooks that run for the tool called name, event by
// event: what `quiver tools` shows.
func (s *Set) Matching(name string) []Matched {
	if s == nil {
		return nil
	}
	var out []Matched
	for _, e := range Events {
		for i := range s.cfg.For(e) {
			h := &s.cfg.For(e)[i]
			if h.Matcher.Match(s.nameFor(h, name)) {
				out = append(out, Matched{Event: e, Hook: h.label(), Matcher: h.Matcher.String(), Source: h.Source})
			}
		}
	}
	return out
}

// Has reports whether any hook of event e runs for the tool called name.
func (s *Set) Has(e Event, name string) bool {
	if s == nil {
		return false
	}
	for i := range s.cfg.For(e) {
		h := &s.cfg.For(e)[i]
		if h.Matcher.Match(s.nameFor(h, name)) {
			return true
		}
	}
	return false
}

func (s *Set) nameFor(h *Hook, tool string) string {
	if h.Claude {
		return s.maps.ClaudeName(tool)
	}
	return tool
}

// payload is what a hook reads on standard input.
type payload struct {
	SessionID      string         `json:"session_id"`
	TranscriptPath string         `json:"transcript_path"`
	Cwd            string         `json:"cwd"`
	PermissionMode string         `json:"permission_mode"`
	HookEventName  Event          `json:"hook_event_name"`
	ToolName       string         `json:"tool_name"`
	ToolInput      map[string]any `json:"tool_input"`
	ToolUseID      string         `json:"tool_use_id"`
	ToolResponse   any            `json:"tool_response,omitempty"`
	Error          string         `json:"error,omitempty"`
	IsInterrupt    *bool          `json:"is_interrupt,omitempty"`
}

func (s *Set) payload(e Event, h *Hook, c Call, input map[string]any) payload {
	session := c.Session
	if session == "" {
		session = s.session
	}
	p := payload{SessionID: session, Cwd: s.root, PermissionMode: "default", HookEventName: e,
		ToolName: c.Tool, ToolInput: input, ToolUseID: c.ID}
	if h.Claude {
		p.ToolName = s.maps.ClaudeName(c.Tool)
		p.ToolInput = s.maps.ToClaude(c.Tool, input, s.root)
	}
	if p.ToolInput == nil {
		p.ToolInput = map[string]any{}
	}
	return p
}

// outcome is one hook's answer.
type outcome struct {
	exit2  bool   // exited 2: blocks, with reason
	reason string // exit 2's standard error, trimmed
	out    *Output
	err    error // the hook failed (errHookFailed) or ctx ended
	// done is called with the hook's run once its decision is known.
	done func(Ran)
}

// finish reports the run to the observer, and returns it.
func (o outcome) finish(r Ran) Ran {
	if o.done != nil {
		o.done(r)
	}
	return r
}

// one runs hook h for event e with payload p and reads its answer.
func (s *Set) one(ctx context.Context, e Event, h *Hook, c Call, p payload) (outcome, Ran) {
	ran := Ran{Event: e, Hook: h.label()}
	var o outcome
	if s.observe != nil {
		o.done = s.observe(ctx, e, h.label())
	}
	in, err := json.Marshal(p)
	if err != nil {
		ran.Error = err.Error()
		o.err = err
		return o, ran
	}
	r, err := s.run(ctx, h, c.Profile, in)
	ran.DurationMS = float64(r.dur.Microseconds()) / 1000
	if r.exited {
		ran.Exit = &r.exit
	}
	switch {
	case err != nil:
		o.err = err
	case r.exit == 2:
		o.exit2, o.reason = true, strings.TrimSpace(string(r.stderr))
	case r.exit != 0:
		o.err = failure("exited with status %d%s", r.exit, stderrTail(r.stderr))
	default:
		if o.out, err = ParseOutput(e, r.stdout); err != nil {
			o.err = failure("%v", err)
		}
	}
	if o.err != nil {
		ran.Error = o.err.Error()
		s.logger.WarnContext(ctx, "hook failed", "event", e, "hook", h.label(), "tool", c.Tool, "call_id", c.ID, "err", o.err)
	} else if o.out != nil && o.out.SystemMessage != "" {
		s.logger.InfoContext(ctx, "hook message", "event", e, "hook", h.label(), "call_id", c.ID, "message", o.out.SystemMessage)
	}
	return o, ran
}

func failure(format string, args ...any) error {
	return &failed{msg: strings.TrimSpace(fmt.Sprintf(format, args...))}
}

type failed struct{ msg string }

func (f *failed) Error() string { return f.msg }
func (f *failed) Is(target error) bool {
	return target == errHookFailed
}

// stderrTail is the end of a failed hook's standard error, for its message.
func stderrTail(b []byte) string {
	s := strings.TrimSpace(string(b))
	if s == "" {
		return ""
	}
	if len(s) > 500 {
		s = "…" + s[len(s)-500:]
	}
	return ": " + s
}

// onError is what h's failure does to a PreToolUse call.
func (s *Set) onError(h *Hook) string {
	if h.OnError.Value != "" {
		return h.OnError.Value
	}
	if s.cfg.OnError.Value != "" {
		return s.cfg.OnError.Value
	}
	return OnErrorContinue
}

// Pre is what the PreToolUse hooks said about a call.
type Pre struct {
	Decision Decision // "" when no hook decided
	Reason   string
	Hook     string // the hook whose decision stands
	// Input is the input the hooks rewrote the call to, in Quiver's names;
	// nil when none did.
	Input   map[string]any
	Context []string // for the model, with the result
	Ran     []Ran
	// Unavailable is set when the kernel cannot confine a hook's process
	// (a *sandbox.UnavailableError): the call is refused, whatever
	// on_error says, as a tool's would be — a guard that cannot run is
	// not a guard that passed.
	Unavailable error
}

// Pre runs the PreToolUse hooks that match the call, in order: Quiver's
// own, then a Claude Code settings file's. Each sees the input as the hooks
// before it rewrote it. The strictest decision stands; a deny (exit 2, a
// JSON deny, continue false, or a failure under on_error = "block") stops
// the rest.
func (s *Set) Pre(ctx context.Context, c Call) Pre {
	var pre Pre
	if s == nil {
		return pre
	}
	input := c.Input
	for i := range s.cfg.PreToolUse {
		h := &s.cfg.PreToolUse[i]
		if !h.Matcher.Match(s.nameFor(h, c.Tool)) {
			continue
		}
		o, ran := s.one(ctx, PreToolUse, h, c, s.payload(PreToolUse, h, c, input))
		if errors.As(o.err, new(*sandbox.UnavailableError)) {
			pre.Ran = append(pre.Ran, o.finish(ran))
			pre.Decision, pre.Hook, pre.Reason, pre.Unavailable = Deny, h.label(), o.err.Error(), o.err
			return pre
		}
		d, reason := s.preDecision(h, o)
		ran.Decision = string(d)
		if d.rank() > pre.Decision.rank() {
			pre.Decision, pre.Reason, pre.Hook = d, reason, h.label()
		}
		if d == Deny {
			pre.Ran = append(pre.Ran, o.finish(ran))
			return pre
		}
		if o.out != nil {
			if ctxt := o.out.context(); ctxt != "" {
				pre.Context = append(pre.Context, clip(ctxt))
			}
			if u := o.out.Specific; u != nil && u.UpdatedInput != nil {
				input = u.UpdatedInput
				if h.Claude {
					input = s.maps.FromClaude(c.Tool, input, s.root)
				}
				pre.Input = input
				ran.Rewrote = true
			}
		}
		pre.Ran = append(pre.Ran, o.finish(ran))
	}
	return pre
}

// preDecision is one PreToolUse hook's decision.
func (s *Set) preDecision(h *Hook, o outcome) (Decision, string) {
	switch {
	case o.err != nil && !errors.Is(o.err, errHookFailed):
		return Deny, "the call ended while its hook " + h.label() + " ran: " + o.err.Error()
	case o.err != nil:
		if s.onError(h) == OnErrorBlock {
			return Deny, "hook " + h.label() + " failed (on_error = \"block\"): " + o.err.Error()
		}
		return "", ""
	case o.exit2:
		if o.reason == "" {
			o.reason = "refused by hook " + h.label()
		}
		return Deny, clip(o.reason)
	case o.out != nil:
		d, reason := o.out.decision()
		if d == Deny && reason == "" {
			reason = "refused by hook " + h.label()
		}
		return d, clip(reason)
	}
	return "", ""
}

// Post is what the hooks after a call said.
type Post struct {
	// Block marks the result an error, with Reason (PostToolUse's decision
	// "block", exit 2 or continue false).
	Block   bool
	Reason  string
	Hook    string
	Context []string // for the model, with the result
	Ran     []Ran
}

// Post runs the PostToolUse hooks that match a call that succeeded;
// response is the result the tool returned.
func (s *Set) Post(ctx context.Context, c Call, response any) Post {
	return s.after(ctx, PostToolUse, c, func(p *payload) { p.ToolResponse = response })
}

// Failure runs the PostToolUseFailure hooks that match a call that failed
// with message; interrupt is set when it was cancelled.
func (s *Set) Failure(ctx context.Context, c Call, message string, interrupt bool) Post {
	return s.after(ctx, PostToolUseFailure, c, func(p *payload) { p.Error, p.IsInterrupt = message, &interrupt })
}

func (s *Set) after(ctx context.Context, e Event, c Call, fill func(*payload)) Post {
	var post Post
	if s == nil {
		return post
	}
	hooks := s.cfg.For(e)
	for i := range hooks {
		h := &hooks[i]
		if !h.Matcher.Match(s.nameFor(h, c.Tool)) {
			continue
		}
		p := s.payload(e, h, c, c.Input)
		fill(&p)
		o, ran := s.one(ctx, e, h, c, p)
		var reason string
		block := false
		switch {
		case o.exit2:
			block, reason = true, o.reason
		case o.out != nil && o.out.Continue != nil && !*o.out.Continue:
			block, reason = true, o.out.StopReason
		case o.out != nil && o.out.Decision == "block":
			block, reason = true, o.out.Reason
		}
		if o.out != nil && o.out.context() != "" {
			post.Context = append(post.Context, clip(o.out.context()))
		}
		if block {
			if reason == "" {
				reason = "hook " + h.label() + " marked the result an error"
			}
			ran.Decision = "block"
			if e == PostToolUseFailure {
				// The call failed already: the reason is one more word for the model.
				post.Context = append(post.Context, clip(reason))
			} else if !post.Block {
				post.Block, post.Reason, post.Hook = true, clip(reason), h.label()
			}
		}
		post.Ran = append(post.Ran, o.finish(ran))
	}
	return post
}
