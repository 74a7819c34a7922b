// Package shell parses and runs the commands exec_command is given, so that
// the policy decides on what actually runs rather than on the text a model
// wrote.
//
// Two halves:
//
//   - Reading a command line without running it: [Parse] (bash syntax, errors
//     with line and column), [SimpleCommands] (every simple command in a line,
//     for static policy rules), [ReadOnlyCommand], [ReadOnlyArgv] and
//     [Classifier] (the classifier that makes a call low risk).
//   - Running: [Run] runs a command line in the in-process interpreter of
//     mvdan.cc/sh/v3/interp, or an argv directly. Its exec handler asks the
//     [tool.CommandGate] about every program at the moment it is about to
//     start — after variables, $(...), eval, aliases, functions and traps
//     have done their work — and its open handler confines the shell's own
//     redirections to the workspace and asks the gate about every file opened
//     for writing. A refusal stops the whole run: nothing after it runs.
//
// # What a run guarantees
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
// # What the gate is asked
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
// # The read-only classifier
//
// The read-only classifier is an allowlist, never a list of dangers: a
// command is read-only only if its program, its subcommand (git status, go
// list) and every option it uses are known to keep it read-only. Options
// are parsed as the program parses them (readonly_opts.go): GNU getopt_long
// resolves a unique prefix of a long option (sort --outp is --output, which
// is not read-only; an ambiguous prefix is an error, so not read-only),
// short options cluster and take attached values (git grep -Orm is -O with
// the value rm), git's --no-NAME is an option of its own (--no-get cancels
// --get), and "--" ends options. To resolve abbreviations the tables name
// every long option of a program, read-only or not (readonly_programs.go,
// readonly_git.go); when unsure whether an option takes a value, a table
// says it does not, which can only make the classifier stricter. Words not
// known before running ($f, *.go) are accepted only for programs none of
// whose options writes or runs anything. A line also may assign only
// allowlisted variable names (never PATH, IFS, GIT_*, LD_*...), by
// whichever means: NAME=, declare, read, getopts, printf -v, for, ${NAME:=},
// arithmetic, unset. FuzzReadOnlyCommand runs what the classifier accepts
// in a harness that fails on any write or any program off the allowlist.
//
// An interpreter that reads its program from standard input, a pipe or a
// here-document is listed as [interpreter, StdinProgram]: code no rule can
// see, which policy treats as sh -c with a word that is not literal.
//
// # Where to start
//
// Where to start: [Run] and [Spec]; the classifier in readonly.go.
//
// Unix only: process groups and waitid are what make the guarantees hold.
package shell
