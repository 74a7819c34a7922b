package tools

import (
	"context"
	_ "embed"
	"errors"
	"time"

	"github.com/quiverkit/quiver/internal/shell"
	"github.com/quiverkit/quiver/tool"
)

//go:embed write_stdin.md
var writeStdinDescription string

// WriteStdinInput is write_stdin's input.
type WriteStdinInput struct {
	SessionID   string `json:"session_id" jsonschema:"the session_id exec_command returned for a command still running" minLength:"1"`
	Chars       string `json:"chars,omitempty" jsonschema:"text to send to its standard input; end a line with \\n (empty: only read)"`
	YieldTimeMS *int   `json:"yield_time_ms,omitempty" jsonschema:"milliseconds to wait for output before answering (default 250; sooner if it exits)" minimum:"0"`
}

// WriteStdin is a typed reference to write_stdin, for quiver.Call.
var WriteStdin = tool.RefTo[WriteStdinInput, *ExecJobOutput]("write_stdin")

// defaultStdinYield is write_stdin's wait when the call gives none, Codex's.
const defaultStdinYield = 250 * time.Millisecond

// write_stdin runs whatever the program it writes to makes of its input (a
// shell runs it as commands, past the command gate): as high a risk as
// exec_command, and confined by the sandbox the session runs in.
func newWriteStdin() *tool.Tool {
	return tool.Func("write_stdin", writeStdinDescription, writeStdin, summaryOf("session_id"),
		tool.WithRisk(tool.RiskHigh),
		tool.WithAnnotations(tool.Annotations{Destructive: true, OpenWorld: true}))
}

func writeStdin(ctx context.Context, tc tool.Context, in WriteStdinInput) (*ExecJobOutput, error) {
	cfg, err := tool.Resolve(ctx, tc, ExecConfigKey)
	if err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	wait := defaultStdinYield
	if in.YieldTimeMS != nil {
		wait = time.Duration(*in.YieldTimeMS) * time.Millisecond
		if wait < 0 || wait > cfg.MaxTimeout {
			return nil, tool.Errorf(tool.CodeInvalidArguments, "field \"yield_time_ms\" is %d; give a number of milliseconds from 0 to %d", *in.YieldTimeMS, cfg.MaxTimeout.Milliseconds())
		}
	}
	job, err := findJob(ctx, tc, "session_id", in.SessionID)
	if err != nil {
		return nil, err
	}
	if in.Chars != "" {
		err := job.Write([]byte(in.Chars))
		if errors.Is(err, shell.ErrNoInput) {
			return nil, tool.Errorf(tool.CodeInvalidArguments, "field \"session_id\": %q takes no input: it was started with background: true, or it has ended (read it with exec_output)", in.SessionID)
		}
		if err != nil {
			return nil, tool.Errorf(tool.CodeExecutionFailed, "session %s: %w", in.SessionID, err)
		}
	}
	split, err := budgetSplit(ctx, tc)
	if err != nil {
		return nil, err
	}
	snap, err := job.Wait(ctx, wait, split)
	if err != nil {
		return nil, tool.Errorf(tool.CodeExecutionFailed, "%w", err)
	}
	return jobAnswer(ctx, tc, job, snap)
}
