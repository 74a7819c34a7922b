package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/quiverkit/quiver"
	"github.com/quiverkit/quiver/driver"
	"github.com/quiverkit/quiver/mcpserver"
	"github.com/quiverkit/quiver/tool"
	"github.com/spf13/cobra"
)

func (a *app) callCommand() *cobra.Command {
	var providerID string
	cmd := &cobra.Command{
		Use:   "call NAME [ARGS_JSON | -]",
		Short: "Call one tool through the whole pipeline",
		Long: "Call one tool with JSON arguments (an object; '-' reads them from standard input; none means {}).\n" +
			"The policy, approval, validation, workspace and output cache apply exactly as for a model's call.\n" +
			"Ctrl-C cancels the call, which then fails CANCELLED; a call to a read-only tool that reaches no\n" +
			"network and starts no process has nothing to undo, and just ends.\n" +
			"The call is the only one of its session: exec_command with background: true is refused\n" +
			"(INVALID_ARGUMENTS), since the job would be killed as quiver call exits; run jobs from quiver serve.\n" +
			fmt.Sprintf("The arguments may be at most %d MiB, as a request to quiver serve may.", maxArgumentBytes>>20),
		Args: cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			raw, err := callArguments(args, cmd.InOrStdin())
			if err != nil {
				return err
			}
			opts, err := a.telemetry(stderrLogger())
			if err != nil {
				return err
			}
			tk, err := a.toolkit(append(opts, quiver.WithOnlyProvider(providerID))...)
			if err != nil {
				return err
			}
			defer a.close()
			// The process ends with the call: no later call of its session
			// can read what this one leaves, a background job would die
			// unread (tool.WithOneCallSession).
			ctx, stop := interruptible(tool.WithOneCallSession(cmd.Context()), tk, args[0])
			defer stop()
			out, _ := tk.InvokeCall(ctx, driver.ToolCall{Name: args[0], Arguments: raw})
			return a.printCall(cmd, out)
		},
	}
	cmd.Flags().StringVar(&providerID, "provider", "", "serve the call from this provider only (builtin, cli, ...)")
	return cmd
}

// interruptible returns ctx cancelled at Ctrl-C (SIGINT) or SIGTERM, so that
// the pipeline stops the call, kills what it started, writes its audit line
// and reports it CANCELLED. A call to a tool that is annotated read-only and
// not open-world, and starts no process ([tool.Tool.InProcess]), leaves
// nothing behind when it is killed, and nothing for the audit to record, so
// for it the signals keep their default action, which ends the process at
// once: listening is not free, as os/signal starts two threads and the
// context a goroutine, which cost a third of a Go hello-world's start
// (scripts/bench-startup), more than reading a small file does. An
// open-world call (web_fetch) is listened for: its request may be out, and
// the audit line is its record. In doubt, a name that does not resolve, it
// listens.
func interruptible(ctx context.Context, tk *quiver.Toolkit, name string) (context.Context, context.CancelFunc) {
	t, err := tk.Lookup(ctx, name)
	if err == nil && t.Annotations.ReadOnly && !t.Annotations.OpenWorld && t.InProcess {
		return ctx, func() {}
	}
	return signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
}

// maxArgumentBytes caps the arguments `quiver call` reads: the MCP
// server's cap on a request, so that a call too large to serve is too
// large here, and its memory stays a small multiple of it (a 60 MB
// write_file read whole took 433 MB).
const maxArgumentBytes = mcpserver.DefaultMaxBodyBytes

func callArguments(args []string, stdin io.Reader) (json.RawMessage, error) {
	if len(args) < 2 {
		return json.RawMessage("{}"), nil
	}
	b := []byte(args[1])
	if args[1] == "-" {
		var err error
		if b, err = io.ReadAll(io.LimitReader(stdin, maxArgumentBytes+1)); err != nil {
			return nil, fmt.Errorf("read arguments from standard input: %w", err)
		}
	}
	if len(b) > maxArgumentBytes {
		return nil, tooLarge(b)
	}
	return b, nil
}

// tooLarge is the error for arguments over maxArgumentBytes, naming the
// field whose value crosses the limit when their first bytes say.
func tooLarge(b []byte) error {
	field := ""
	if f := fieldAtEnd(b[:maxArgumentBytes]); f != "" {
		field = fmt.Sprintf(": field %q runs past it", f)
	}
	return fmt.Errorf("the arguments are larger than %d MiB (%d bytes), the most a call takes, as the MCP server takes no larger request%s; send less",
		maxArgumentBytes>>20, maxArgumentBytes, field)
}

// fieldAtEnd names the top-level key of the JSON object prefix whose
// value the prefix ends inside; "" when it does not end inside one.
func fieldAtEnd(prefix []byte) string {
	dec := json.NewDecoder(bytes.NewReader(prefix))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return ""
	}
	for {
		tok, err := dec.Token()
		key, ok := tok.(string)
		if err != nil || !ok {
			return ""
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return key
		}
	}
}

// callJSON is what `quiver call --json` prints.
type callJSON struct {
	Name      string     `json:"name"`
	IsError   bool       `json:"is_error"`
	Content   string     `json:"content"`
	Output    any        `json:"output,omitempty"`
	OutputRef string     `json:"output_ref,omitempty"`
	Provider  string     `json:"provider,omitempty"`
	Error     *errorJSON `json:"error,omitempty"`
}

type errorJSON struct {
	Code      tool.Code      `json:"code"`
	Message   string         `json:"message"`
	Tool      string         `json:"tool"`
	Retriable bool           `json:"retriable"`
	Details   map[string]any `json:"details,omitempty"` // the field at fault, the rule...
}

func newErrorJSON(e *tool.Error) *errorJSON {
	return &errorJSON{Code: e.Code, Message: e.Message, Tool: e.Tool, Retriable: e.Retriable, Details: e.Details}
}

func (a *app) printCall(cmd *cobra.Command, out quiver.Output) error {
	if a.flags.json {
		j := callJSON{Name: out.Name, IsError: out.Content.IsError, Content: out.Content.String(),
			Output: out.Content.Output, OutputRef: out.Content.OutputRef, Provider: out.Provider}
		if out.Err != nil {
			j.Error = newErrorJSON(out.Err)
		}
		enc := json.NewEncoder(cmd.OutOrStdout())
		enc.SetIndent("", "  ")
		if err := enc.Encode(j); err != nil {
			return err
		}
		if out.Err != nil {
			return &exitError{code: exitTool}
		}
		return nil
	}
	if out.Err != nil {
		return &exitError{code: exitTool, msg: "quiver: " + out.Err.Error()}
	}
	fmt.Fprintln(cmd.OutOrStdout(), out.Content.String())
	return nil
}
