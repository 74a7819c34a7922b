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
