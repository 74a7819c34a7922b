package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/quiverkit/quiver/internal/shell"
	"github.com/quiverkit/quiver/provider/command"
	"github.com/quiverkit/quiver/sandbox"
	"github.com/quiverkit/quiver/tool"
	"github.com/quiverkit/quiver/tools"
)

// The spec's "CLI tool wrapping" ([tools.cli.aliases] my_tool =
// "external-cli-command") names a tool that is not a built-in. Such an alias
// defines a tool that runs the program with the arguments the model gives,
// as an argv array: no shell reads them, so a value is one word whatever it
// holds. What the model may pass is not constrained, so the tool is
// high-risk — approved per call, and run in the sandbox like a custom tool.

// builtinName reports whether name is a built-in tool or one of their
// aliases (run_command, todo_manager).
func builtinName(name string) bool {
	for _, t := range tools.All() {
		if t.Name == name {
			return true
		}
	}
	for _, a := range tools.Aliases() {
		if a.Name == name {
			return true
		}
	}
	return false
}

// wrapped is a tool that runs one program.
type wrapped struct {
	name, program string
	env           []string
	opts          *Options
}

type wrappedInput struct {
	Args []string `json:"args"`
}

var wrappedSchema = &jsonschema.Schema{
	Type: "object",
	Properties: map[string]*jsonschema.Schema{
		"args": {Type: "array", Items: &jsonschema.Schema{Type: "string"},
			Description: "the program's arguments, one word each; no shell reads them"},
	},
	AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}},
}

// newWrapped builds the tool name that runs program.
func newWrapped(name, program string, opts *Options) (*tool.Tool, error) {
	if !tool.ValidName(name) {
		return nil, fmt.Errorf("tools.cli.aliases: %q is not a tool name (1 to 64 letters, digits, '_' or '-')", name)
	}
	if strings.TrimSpace(program) == "" || strings.ContainsAny(program, " \t\n") {
		return nil, fmt.Errorf("tools.cli.aliases.%s: %q must name one program, without arguments", name, program)
	}
	w := &wrapped{name: name, program: program, env: sandbox.HostEnv(opts.EnvAllow), opts: opts}
	return &tool.Tool{
		Name: name,
		Description: fmt.Sprintf("Runs the program %s with the given arguments, without a shell, in the workspace; "+
			"returns its exit code and output (standard output and error interleaved).", program),
		InputSchema: wrappedSchema,
		Risk:        tool.RiskHigh,
		Subjects:    w.subjects,
		Execute:     w.execute,
	}, nil
}

func (w *wrapped) argv(args json.RawMessage) ([]string, error) {
	var in wrappedInput
	if err := json.Unmarshal(args, &in); err != nil {
		return nil, tool.Errorf(tool.CodeInvalidArguments, "args: %w", err)
	}
	for i, a := range in.Args {
		if strings.IndexByte(a, 0) >= 0 {
			return nil, tool.Errorf(tool.CodeInvalidArguments, "args[%d]: contains a NUL byte", i)
		}
	}
	return append([]string{w.program}, in.Args...), nil
}

// subjects is the command line, so a rule my_tool(external-cli-command
// list *) can allow some calls.
func (w *wrapped) subjects(args json.RawMessage) ([]tool.Subject, error) {
	argv, err := w.argv(args)
	if err != nil {
		return nil, err
	}
	return []tool.Subject{{Kind: tool.SubjectCommand, Value: shell.Join(argv)}}, nil
}

func (w *wrapped) execute(ctx context.Context, tc tool.Context, args json.RawMessage) (tool.Result, error) {
	argv, err := w.argv(args)
	if err != nil {
		return tool.Result{}, err
	}
	ws, box, err := command.Place(ctx, tc)
	if err != nil {
		return tool.Result{}, err
	}
	out, err := command.Run(ctx, command.Process{Argv: argv, Dir: ws.Dir(), Env: w.env, Timeout: w.opts.Timeout,
		Combined: true, Sandbox: box})
	switch {
	case ctx.Err() != nil:
		return tool.Result{}, tool.Errorf(tool.CodeCancelled, "%s was cancelled; its process group was killed", w.name)
	case err != nil:
		return tool.Result{}, sandbox.ToolError(err)
	case out.TimedOut:
		return tool.Result{}, tool.Errorf(tool.CodeTimeout, "%s did not finish within %s; its process group was killed", w.name, w.opts.Timeout)
	case out.Limit != nil:
		return tool.Result{}, command.LimitError(out)
	}
	return command.Result(argv, out), nil
}
