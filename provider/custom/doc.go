// Package custom serves the tools declared in quiver.toml as command
// templates ([[tools.custom]]):
//
//	[[tools.custom]]
//	name = "lint"
//	description = "Lint one package"
//	command = "golangci-lint run --timeout 2m {pkg}"
//	params = [{ name = "pkg", type = "string", required = true }]
//
// A Go host describes the same tools as [Spec] values and gives them to
// [New]; package config turns the file's tables into specs
// (config.Custom.Spec) and builds the provider with each error at its
// place in the file (config.Config.CustomTools).
//
// # Why no argument can become a command
//
// The template is the whole contract with the model, and it is built so that
// no argument can change which program runs or how its words are split:
//
//   - The template is split into argv words once, when the configuration is
//     loaded, by a real shell parser (mvdan.cc/sh). It must be one simple
//     command: pipes, lists, redirections, assignments, $variables, command
//     and process substitutions, unquoted globs and brace expansions are
//     refused at load, because nothing would run them — the command is
//     executed without a shell. Quotes are removed as the exec_command
//     classifier removes them (shell.Unquote), so a word means the same to
//     both.
//   - Each {param} is replaced by its value in a single pass over the
//     pre-split words. A value is never scanned again: a value holding
//     "{other}", "; rm -rf x", "$(id)" or spaces stays exactly what it is,
//     inside the one argv word it was put in. This is what makes injection
//     impossible rather than merely escaped.
//   - A value at the start of a word that begins with '-' would be read by
//     the program as an option (--output=/etc/x); it is refused with
//     INVALID_ARGUMENTS unless the parameter sets allow_options.
//   - The program (the first word) cannot contain a placeholder.
//   - A word holding the placeholder of an optional parameter the call did
//     not give is left out whole, so "--format={fmt}" disappears with fmt.
//
// # Running
//
// The command runs in the workspace root (or workdir, inside it) with the
// same minimal environment exec_command uses, in its own process group that
// is killed whole on timeout (default 60 s) or cancellation. A non-zero exit
// is a normal result carrying the exit code. The command line is the call's
// subject, so a policy rule lint(golangci-lint run *) matches it. Risk
// defaults to high; risk = "low" also declares the tool read-only. A value
// holding '$', a backtick or a glob character makes the policy treat the
// line as non-literal, so a specifier rule alone does not allow it: such a
// call falls to the default decision (the policy errs on the safe side).
package custom
