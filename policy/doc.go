// Package policy decides whether a tool call may run: allowed, refused, or
// referred to a person (ask).
//
// Rules follow the convention agents' users already know from Claude Code: a
// rule is "tool" or "tool(specifier)", listed under allow, ask or deny. The
// specifier is a glob over what the call acts on — the command line for
// exec_command, the workspace-relative path for file tools, "domain:HOST" for
// web tools.
//
// Evaluation ([Policy.Decide]): deny rules, then ask rules, then allow rules;
// the first list with a matching rule decides, whatever its specificity. Then
// the per-tool map ([Config.Tools]), then the default — which low-risk calls
// override to allow unless the default is deny.
//
// Commands are parsed, not pattern-matched as text: every simple command of
// a line (pipelines, &&, ;, subshells, $(...), backticks) must be allowed on
// its own, so exec_command(git status) does not allow `git status && rm -rf x`.
// A deny or ask rule matches a line if it matches any of its commands. Words
// that cannot be known before running ($X, $(...), globs) never satisfy an
// allow specifier; exec_command also checks each command again at the moment
// it runs ([Policy.CommandGate]).
//
// A command specifier matches the command's words joined by single spaces;
// "*" matches any run of characters, spaces and slashes included. "cmd *"
// also matches "cmd" with no arguments, and the legacy "cmd:*" form means the
// same.
//
// Write scopes bound what may change at all: read-only (no tool that writes
// runs; exec_command only with low-risk lines), workspace-write (writes only
// inside the workspace), unrestricted (absolute paths outside it allowed).
//
// Approval of "ask" decisions is the [Approver]'s job; stock approvers are in
// package approve.
package policy
