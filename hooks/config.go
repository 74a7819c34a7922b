package hooks

import (
	"fmt"
	"time"
)

// Event is a point of the pipeline where hooks run, named as Claude Code
// names it.
type Event string

// The events Quiver runs hooks at. Claude Code's other events (SessionStart,
// Stop, UserPromptSubmit...) belong to a conversation, not to a tool call,
// and are not run.
const (
	PreToolUse         Event = "PreToolUse"
	PostToolUse        Event = "PostToolUse"
	PostToolUseFailure Event = "PostToolUseFailure"
)

// Events are the events Quiver runs, in pipeline order.
var Events = []Event{PreToolUse, PostToolUse, PostToolUseFailure}

// DefaultTimeout is how long a hook may run when it says nothing: Claude
// Code's default.
const DefaultTimeout = 60 * time.Second

// Config is the [hooks] section of quiver.toml:
//
//	[hooks]
//	claude_settings = ".claude/settings.json"  # also run a Claude Code settings file's hooks
//	on_error = "block"                         # what a failing PreToolUse hook does by default
//
//	[[hooks.PreToolUse]]
//	matcher = "exec_command"
//	command = "python3 .quiver/hooks/guard.py"
//	timeout = 10
type Config struct {
	PreToolUse         []Hook `toml:"PreToolUse"`
	PostToolUse        []Hook `toml:"PostToolUse"`
	PostToolUseFailure []Hook `toml:"PostToolUseFailure"`
	// ClaudeSettings is a Claude Code settings file whose "hooks" section
	// runs too, with Claude Code's tool names and fields.
	ClaudeSettings string `toml:"claude_settings"`
	// OnError is what a PreToolUse hook that fails (crashes, hangs, prints
	// garbage) does to its call when the hook does not say: continue, as
	// Claude Code does, unless set to block.
	OnError OnError `toml:"on_error"`
	// HookAllow lets a hook's "allow" pass a call the policy would ask
	// about. Off by default: a hook only makes a decision stricter. Never
	// past a deny, nor past an ask rule the operator wrote.
	HookAllow bool `toml:"hook_allow"`
}

// Empty reports whether the section names no hook.
func (c *Config) Empty() bool {
	return len(c.PreToolUse) == 0 && len(c.PostToolUse) == 0 && len(c.PostToolUseFailure) == 0 && c.ClaudeSettings == ""
}

// For returns the hooks of one event.
func (c *Config) For(e Event) []Hook {
	switch e {
	case PreToolUse:
		return c.PreToolUse
	case PostToolUse:
		return c.PostToolUse
	case PostToolUseFailure:
		return c.PostToolUseFailure
	}
	return nil
}

// Hook is one [[hooks.EVENT]] entry, or one command of a Claude Code
// settings file.
type Hook struct {
	// Name names the hook in the audit record, logs and errors; by default
	// its command.
	Name string `toml:"name"`
	// Matcher says which tools the hook runs for (see [ParseMatcher]):
	// a name, names separated by |, a regular expression, or * (also
	// empty) for every tool.
	Matcher Matcher `toml:"matcher"`
	// Command is a shell command line, run by /bin/sh -c in the workspace
	// root, as Claude Code runs its hooks. Nothing of the call is put into
	// it: the call arrives as JSON on standard input.
	Command string `toml:"command"`
	// Timeout is in seconds, as Claude Code's; 0 is DefaultTimeout.
	Timeout float64 `toml:"timeout"`
	// OnError overrides [Config].OnError for this hook.
	OnError OnError `toml:"on_error"`
	// Network lets the hook's process reach the network (it has none by
	// default, like every confined process).
	Network bool `toml:"network"`

	// Claude is set for a hook from a Claude Code settings file: it is
	// matched against, and sees, Claude Code's tool names and fields.
	Claude bool `toml:"-"`
	// Source is where the hook is written, for messages.
	Source string `toml:"-"`
}

// label is the name the hook goes by.
func (h *Hook) label() string {
	if h.Name != "" {
		return h.Name
	}
	const max = 60
	if len(h.Command) > max {
		return h.Command[:max] + "…"
	}
	return h.Command
}

func (h *Hook) timeout() time.Duration {
	if h.Timeout <= 0 {
		return DefaultTimeout
	}
	return time.Duration(h.Timeout * float64(time.Second))
}

// check reports what decoding cannot see.
func (h *Hook) check() error {
	switch {
	case h.Command == "":
		return fmt.Errorf("command is required")
	case h.Timeout < 0:
		return fmt.Errorf("timeout: %v, want a number of seconds above 0", h.Timeout)
	case h.Timeout > 24*3600:
		return fmt.Errorf("timeout: %v seconds, want at most a day", h.Timeout)
	}
	return nil
}

// Check reports the first entry that cannot run, naming it.
func (c *Config) Check() error {
	for _, e := range Events {
		for i := range c.For(e) {
			if err := c.For(e)[i].check(); err != nil {
				return fmt.Errorf("hooks.%s[%d]: %w", e, i, err)
			}
		}
	}
	return nil
}

// OnError is what a failing PreToolUse hook does to its call.
type OnError struct{ Value string }

// The values of OnError.
const (
	OnErrorContinue = "continue" // the call goes on; the failure is logged and audited
	OnErrorBlock    = "block"    // the call is refused
)

// UnmarshalText checks the value where it is written.
func (o *OnError) UnmarshalText(b []byte) error {
	switch s := string(b); s {
	case OnErrorContinue, OnErrorBlock:
		o.Value = s
		return nil
	}
	return fmt.Errorf("on_error: %q, want %q or %q", b, OnErrorBlock, OnErrorContinue)
}

// MarshalText implements encoding.TextMarshaler.
func (o OnError) MarshalText() ([]byte, error) { return []byte(o.Value), nil }
