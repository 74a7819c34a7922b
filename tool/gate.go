package tool

import "context"

// CommandGate is the policy as seen by tools that run commands. exec_command
// asks it about every command at the moment the shell is about to run it, so
// that $(...), eval, functions and variables cannot slip a command past a
// rule, and about every file a redirection opens for writing.
//
// The toolkit provides a gate for each call under [CommandGateKey] (per call,
// because what a command may do at run time depends on how the call itself was
// allowed). The key has no Create: a tool that runs commands without a gate
// fails closed.
type CommandGate interface {
	// CheckCommand returns an error (a *Error with code TOOL_NOT_ALLOWED,
	// naming the rule) if argv may not run.
	CheckCommand(ctx context.Context, argv []string) error
	// CheckWrite returns an error if a command may not open path (relative to
	// the workspace root, or absolute) for writing.
	CheckWrite(ctx context.Context, path string) error
}

// CommandGateKey is the dependency key of the toolkit's [CommandGate].
var CommandGateKey = Key[CommandGate]{ID: "quiver.command-gate"}

// CommandClassifier reports whether one command, given as the words it runs
// with, plainly only reads, and what vouched for it when that is not the
// host's built-in list (by, as a [Rating] names it: `low_risk_commands
// entry "make"`; "" otherwise). A toolkit has one ([CommandClassifierKey]),
// and it serves both ends of a command's way: exec_command rates a call
// low-risk (run without asking, confined read-only) only when the
// classifier accepts its commands, and the command gate checks every
// command against the same classifier as it runs, so the rating and the
// run-time check cannot disagree about which commands only read.
type CommandClassifier func(argv []string) (readOnly bool, by string)

// CommandClassifierKey is the dependency key of the toolkit's
// [CommandClassifier], shared by all its calls. A host sets it with
// quiver.WithCommandClassifier (the standard catalogue brings the built-in
// list; the CLI widens it with [exec] low_risk_commands). Without one its
// value is nil, and no command is read-only.
var CommandClassifierKey = Key[CommandClassifier]{ID: "quiver.command-classifier", Shared: true,
	Create: func(context.Context) (CommandClassifier, error) { return nil, nil }}
