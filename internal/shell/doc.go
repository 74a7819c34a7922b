// Package shell parses and runs the commands exec_command is given, so that
// the policy decides on what actually runs rather than on the text a model
// wrote.
//
// Two halves:
//
//   - Reading a command line without running it: [Parse] (bash syntax, errors
//     with line and column), [SimpleCommands] (every simple command in a line,
//     for static policy rules), [ReadOnlyCommand] and [ReadOnlyArgv] (the
//     built-in list of plainly read-only commands that makes a call low risk).
//   - Running: [Run] runs a command line in the in-process interpreter of
//     mvdan.cc/sh/v3/interp, or an argv directly. Its exec handler asks the
//     [tool.CommandGate] about every program at the moment it is about to
//     start — after variables, $(...), eval, aliases, functions and traps
//     have done their work — and its open handler confines the shell's own
//     redirections to the workspace and asks the gate about every file opened
//     for writing. A refusal stops the whole run: nothing after it runs.
//
// What a run guarantees: stdin is empty (/dev/null); stdout and stderr are one
// pipe, so output interleaves as produced; every program goes into the run's
// process group, which is killed on timeout, cancellation, refusal and at the
// end of the run, so nothing it started outlives it. Programs that leave the
// group (setsid) are killed too when the run started them itself or when they
// still hold its output; only a daemon that both left the group and let go of
// the output escapes (Linux; elsewhere, what left the group); output reaches a [Spool] (head and
// tail in memory, the whole in a sink) or a job's log file, never whole in
// memory. Background commands live in [Jobs].
//
// What the gate is asked: a program's argv as written, and also — each must
// pass — its workspace path when a bare name resolves to a program inside
// the workspace, its full path when a PATH the call changed finds it
// somewhere unusual, and its argv prefixed with NAME=VALUE for every variable
// the call changed that can make programs run other code ([UnsafeEnv]).
// Commands inside wrappers (env, xargs, timeout, sh -c, find -exec...) are
// asked about too. Shell builtins are not: they act on the shell itself, and
// the ones that run commands (eval, source, command, exec, trap) reach the
// exec handler with the commands they run.
//
// Where to start: [Run] and [Spec]; the classifier in readonly.go.
//
// Unix only: process groups and waitid are what make the guarantees hold.
package shell
