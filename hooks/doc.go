// Package hooks runs the operator's own programs around tool calls — a
// guard before a call, a formatter or a linter after it — in the contract
// Claude Code's hooks already use, so that a hook written for Claude Code
// runs unchanged.
//
// # The contract followed
//
// Claude Code's hooks reference, https://code.claude.com/docs/en/hooks, in
// its version of 2026-05-04 (the page changes often; its dated versions are
// kept at https://spybara.com/anthropic/claude-code/history/docs/en/). What
// is taken from it, for the events PreToolUse, PostToolUse and
// PostToolUseFailure and for command hooks:
//
//   - the settings file's shape: {"hooks": {EVENT: [{"matcher", "hooks":
//     [{"type": "command", "command", "timeout"}]}]}}, timeout in seconds,
//     60 by default ([ParseClaudeSettings]);
//   - matchers: "*", "" or none for every tool; letters, digits, _ and |
//     for exact names; anything else a regular expression ([Matcher]);
//   - standard input: one JSON object with session_id, transcript_path,
//     cwd, permission_mode, hook_event_name, tool_name, tool_input,
//     tool_use_id, and tool_response (PostToolUse) or error and
//     is_interrupt (PostToolUseFailure); the command runs through a shell
//     in the project directory, with CLAUDE_PROJECT_DIR set to it;
//   - exit status 0 goes on (standard output read as JSON when it is
//     JSON); 2 blocks, standard error being the reason the model is given;
//     any other status is a non-blocking error, logged;
//   - the JSON answer ([Output]): continue and stopReason, systemMessage,
//     the top-level decision and reason (PostToolUse's "block";
//     PreToolUse's older "approve" and "block"), and hookSpecificOutput
//     with hookEventName, permissionDecision (allow, deny, ask),
//     permissionDecisionReason, updatedInput (the whole new input) and
//     additionalContext, cut at 10,000 characters as Claude Code cuts it.
//
// Not taken: Claude Code's other events (a conversation's, not a call's),
// hook types other than command (prompt, http, agent: refused where they
// are written, since a guard silently not run is a guard missing), async
// hooks, updatedMCPToolOutput, and permissionDecision "defer", read as ask.
//
// # Where hooks run, and who decides
//
// In the one pipeline (package quiver): resolve, gate, check, validate,
// PreToolUse hooks, decide, approve, execute, cache, PostToolUse or
// PostToolUseFailure hooks, audit.
//
//   - PreToolUse runs once the arguments are valid, so that a hook reads
//     an input the tool would accept. An updatedInput is validated again,
//     and the policy decides on the input that will run, not on the one
//     the model sent.
//   - A hook's deny refuses the call (TOOL_NOT_ALLOWED, the hook and its
//     reason in the message and the details); its ask sends a call the
//     policy allows to the approver. Its allow does nothing: the policy
//     still decides, and a deny anywhere stays final. Only the operator's
//     own configuration can let an allow count ([Config].HookAllow): then
//     it passes a call the policy would ask about by its default, never
//     one a deny or an ask rule names.
//   - PostToolUse sees the result the model will see (after the output
//     cache's trimming); its additionalContext is added to that result
//     after the trimming, so a long output never hides it, and its block
//     (exit 2, decision "block", continue false) marks the result an
//     error with its reason. PostToolUseFailure sees the error; what it
//     says is added to the error the model gets.
//
// Several hooks for one call run one after another, Quiver's own
// ([[hooks.PreToolUse]]) before a Claude Code settings file's, each
// PreToolUse seeing the input as the ones before rewrote it; the strictest
// decision stands, and a deny stops the rest. (Claude Code runs them in
// parallel, which leaves two rewrites of one input undefined.)
//
// # Hooks are code
//
// A hook runs a program, so it follows the rules of any program Quiver
// starts: a project's hooks run only when the operator trusted the project
// (package config drops them otherwise, and pins and protects the
// workspace scripts a hook's command names, found by [CommandPaths], so
// that a model cannot rewrite the guard of its next call), and every hook process starts
// through the one start path (sandbox.Command) under the call's own
// profile — what the write scope lets the call's processes write, the
// network off unless the operator turns it on for the hook (network =
// true) or for all processes. Each hook has a timeout (60 s by default)
// and each of its output streams a bound ([MaxOutput]). A hook that cannot
// start, times out, prints too much, exits with a status other than 0 and
// 2, or prints JSON that is not a hook's answer has failed: the failure is
// logged and in the call's audit record, and for PreToolUse on_error
// decides whether the call goes on ("continue", Claude Code's behaviour
// and the default) or is refused ("block"). Where the kernel cannot
// confine a hook (macOS, an old kernel), the call of a PreToolUse hook is
// refused SANDBOX_UNAVAILABLE whatever on_error says: that is no hook's
// failure, and a guard that cannot run is not a guard that passed.
package hooks
