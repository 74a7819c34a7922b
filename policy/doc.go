// Package policy decides whether a tool call may run: allowed, refused, or
// referred to a person (ask).
//
// Rules follow the convention agents' users already know from Claude Code: a
// rule is "tool" or "tool(specifier)", listed under allow, ask or deny. The
// specifier is a glob over what the call acts on — the command line for
// exec_command, the workspace-relative path for file tools, "domain:HOST" for
// web tools.
//
// # The order of decision
//
// A deny is final, and an ask beats an allow, wherever each is written.
// [Policy.Decide] reads this table top to bottom; the first row that applies
// decides:
//
//	row  when                                                   decision
//	1    a deny rule matches (a bare one, or one whose
//	     specifier matches any subject)                         deny
//	2    [policy.tools] names the tool "deny"                   deny
//	3    the write scope is read-only and the call may
//	     change files                                           deny
//	4    an ask rule matches                                    ask
//	5    [policy.tools] names the tool "ask"                    ask
//	6    allow rules cover the call (a bare one, or
//	     specifier rules that together cover every subject)     allow
//	7    [policy.tools] names the tool "allow"                  allow
//	8    the call is low-risk, sends nothing to a host
//	     [sandbox] network does not list, and default is not
//	     "deny"                                                 allow
//	9    otherwise                                              default
//	then a call that writes a protected path and came out
//	     allow (or ask) is asked about, naming the path         ask
//
// A deny default stays a deny for a protected path: protection only ever
// raises a decision. [Policy.Gate] and [Policy.Offer] read the same table
// without arguments: a tool every call of which comes out deny (rows 1–3 for
// every call, or row 9 with default = "deny" and no rule naming it) is
// refused before its arguments are looked at and is not offered to models.
//
// # Data does not leave unasked
//
// An agent that holds private data (the workspace), reads untrusted content
// (a web page, an issue, a README) and has a way out (a request to any
// host) can be steered by what it reads into sending the data out: the
// "lethal trifecta". Reads stay free; the way out is gated. A call whose
// URL subjects name a host that [sandbox] network does not list
// ([Policy.WithNetwork], [sandbox.Network]) is not passed by row 8: it gets
// the default, ask unless the operator changed it, with a rule naming the
// host and the setting. web_search names its engine's address, query
// included, as its subject (tool.Tool.Reaches): the query is the data.
// [Policy.URLGate] holds every redirect hop to the same list. The list is
// the one processes get the network by, so allowing a host is one setting;
// "*" (network = true) restores seed 002's rating of the web tools as
// low-risk. Claude Code asks per domain for WebFetch; Codex keeps commands
// offline; Quiver does both by default.
//
// # Paths
//
// Path rules match the file a tool will open, not the spelling a model
// sent. [ResolveSubjects] gives each path twice: as written (relative to the
// workspace, cleaned: ./.env, .git//config and src/../.git/config are .env and
// .git/config) and as resolved through symbolic links inside the workspace
// (src/envlink with src/envlink -> ../.env is .env). Deny and ask rules and
// protected paths match if either does; allow rules must match both. The
// resolution is the workspace's (workspace.Workspace.Resolve), the one its
// writes follow too.
//
// A rule's path may be written absolute, or from ~ (the home directory).
// Once the policy is bound to its workspace ([Policy.InWorkspace], which the
// toolkit does), an absolute path inside the workspace — also one reached
// through a symbolic link to it — means its relative form, for every
// reader and for the sandbox's masks: read_file(/home/me/ws/.env) is
// read_file(.env). One outside the workspace names that file, also when a
// link on its way is followed; the file tools serve it only under the
// unrestricted scope, and the sandbox masks it for every process.
//
// # Protected paths
//
// Some files govern Quiver or run code later: the configuration in use
// ([Config.ConfigFiles]; quiver.toml at the workspace root always, since the
// next `quiver --root` would load it), .quiver/ (script tools), all of .git
// — any path with a .git component, at any depth (a nested repository's
// config runs code in the user's git as the workspace's does), and the git
// directory a .git file names — and the operator's list
// ([Config.Protected], `protected = ["deploy/**"]` under [policy]). A call of
// a tool that may change files (any tool not annotated read-only) with a
// protected path among its subjects — apply_patch names every file it adds,
// updates, deletes, moves from and moves to — is asked about even when a rule
// allows it, as Claude Code does for its own settings; with no approver, or
// one that says no, it is refused. A redirection of exec_command into a
// protected path is refused whoever approved the line, as the sandbox
// refuses it to the line's processes. The sandbox
// keeps the same list read-only for every process ([Policy.ProtectedPaths]).
// On Linux names are matched exactly, as the kernel does; on macOS and
// Windows, whose file systems ignore case by default, protected paths are
// matched without case.
//
// # Commands
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
// # What a tool declares
//
// The policy knows tools by what they declare, never by name
// ([tool.Tool.MayChangeFiles]). A tool annotated read-only changes nothing;
// any other tool may change files, and its calls neither run under the
// read-only scope nor pass a protected path unasked. A tool that rates each
// call (CallRisk) may also promise that the calls it rates low change
// nothing (ReadOnlyWhenLowRisk, as exec_command does, keeping the promise
// with its classifier and a read-only sandbox): only those calls run under
// the read-only scope. A tool that writes the paths its arguments name
// (WritesSubjectPaths: write_file, edit, multi_edit, apply_patch) makes its
// path deny rules rules about writing a file, which bind a command's
// redirections too ([Policy.CommandGate]); the path rules of any other tool
// bind its own calls only.
//
// # What the policy guarantees, and what it does not
//
// The policy decides from what a call says: its paths, resolved as they are
// when it decides, and its command lines, parsed. It guarantees that a deny
// rule refuses every call it matches under any spelling, that nothing runs
// unasked that no allow rule, [policy.tools] entry or default allows, and
// that writes of the file tools to protected paths are seen by a person.
//
// The sandbox (package sandbox) guarantees what a started process can do,
// whatever the policy believed: under workspace-write it writes only the
// workspace (protected paths excepted), under read-only nothing, and it
// reaches no network unless the operator allows it. The workspace's os.Root
// guarantees that no file tool leaves the workspace.
//
// Neither guarantees meaning. A deny rule names programs and paths, not
// effects: with only rm denied, `find . -delete`, `python3 -c ...` or a
// Makefile delete as well. The check of a path and the open are not one
// atomic step: a process racing the call can swap which file inside the
// workspace a link names between the two (it cannot make the open leave the
// workspace, which os.Root and the sandbox bound). A hard link is a file of
// its own name: the policy sees the name. The file tools replace it rather
// than write through it, but a redirection (echo x >> name) appends through
// it; a hard link to a protected file is the sandbox's to prevent. And a
// person who approves `make test` approves whatever the Makefile says.
//
// Approval of "ask" decisions is the [Approver]'s job; stock approvers are in
// package approve.
package policy
