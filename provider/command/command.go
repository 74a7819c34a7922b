// Package command runs one program without a shell, to its end, through
// the sandbox's start path (sandbox.Command), keeping the head and tail of
// what it writes. It is what the tools that run a program of the operator's
// share: the custom command templates (provider/custom), the programs
// [tools.cli] aliases wrap (provider/cli) and the scripts of
// provider/script. [Output] is the typed output of the first two, for Go
// callers.
package command

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"time"

	"github.com/quiverkit/quiver/internal/shell"
	"github.com/quiverkit/quiver/outputcache"
	"github.com/quiverkit/quiver/sandbox"
	"github.com/quiverkit/quiver/tool"
	"github.com/quiverkit/quiver/workspace"
)

// Place returns where a call's program runs: the call's workspace, and
// the sandbox profile of its write scope. An error is what the call
// reports (a profile that cannot be had is a tool error).
func Place(ctx context.Context, tc tool.Context) (*workspace.Workspace, *sandbox.Profile, error) {
	ws, err := workspace.From(ctx, tc)
	if err != nil {
		return nil, nil, err
	}
	box, err := sandbox.For(ctx, tc, ws.Dir())
	if err != nil {
		return nil, nil, sandbox.ToolError(err)
	}
	return ws, box, nil
}

// Process is a program to run without a shell.
type Process struct {
	Argv    []string
	Dir     string    // absolute working directory
	Env     []string  // the whole environment
	Stdin   io.Reader // nil: /dev/null
	Timeout time.Duration
	// Combined sends standard error to the Stdout capture, interleaved.
	Combined bool
	// Sandbox confines the program (see package sandbox); a confined run
	// gets a private TMPDIR, removed when it ends. nil runs it unconfined
	// (in a process group of its own, killed whole all the same).
	Sandbox *sandbox.Profile
	// Sealed, when not nil, is the program's content, run in place of the
	// file Argv[0] names (sandbox.Process.Sealed): for a program trusted by
	// the digest of these bytes.
	Sealed []byte
}

// Outcome is how a process ended and what it wrote.
type Outcome struct {
	ExitCode int  // -1 when killed
	TimedOut bool // killed because Timeout passed
	// Limit is the [sandbox.limits] limit a confined program reached,
	// judged by [sandbox.Limits.Hit] once it ended; nil when it reached
	// none. Its processes are gone all the same.
	Limit  *sandbox.Reached
	Stdout shell.View
	Stderr shell.View // empty when Combined
	// status and tail are the shell's status of the program (128 plus the
	// signal that killed it) and the end of its output Limit was judged on.
	status int
	tail   string
}

// CaptureBytes is how much of one stream Run keeps: a stream up to this
// size whole, a longer one as its first and last halves (View.Truncated).
// The pipeline's output cache trims the model's view further.
const CaptureBytes = 1 << 20

var captureBudget = outputcache.Split{HeadBytes: CaptureBytes / 2, TailBytes: CaptureBytes / 2, HeadLines: 1 << 30, TailLines: 1 << 30}

// Run runs p to its end, its timeout or the end of ctx, through the start
// path (sandbox.Command): however it ends, nothing the program started
// outlives it. An error means the program could not be started, ctx ended
// (reported as ctx's error), or the program was a git whose changes to
// .git the start path refused and undid (wrapping sandbox.ErrGitRefused;
// the Outcome is there too).
func Run(ctx context.Context, p Process) (Outcome, error) {
	runCtx, cancel := context.WithTimeout(ctx, p.Timeout)
	defer cancel()
	proc := sandbox.Command(runCtx, p.Sandbox, p.Argv[0], p.Argv[1:]...)
	proc.Dir, proc.Env, proc.Stdin, proc.Sealed = p.Dir, p.Env, p.Stdin, p.Sealed
	stdout := shell.NewSpool(captureBudget, nil)
	stderr := stdout
	if !p.Combined {
		stderr = shell.NewSpool(captureBudget, nil)
	}
	proc.Stdout, proc.Stderr = stdout, stderr
	if err := proc.Start(); err != nil {
		return Outcome{}, err
	}
	err := proc.Wait()
	out := Outcome{ExitCode: proc.ExitCode(), Stdout: stdout.View()}
	if !p.Combined {
		out.Stderr = stderr.View()
	}
	if ctx.Err() != nil {
		return out, ctx.Err()
	}
	if runCtx.Err() != nil {
		out.TimedOut, out.ExitCode = true, -1
		return out, nil
	}
	var ee *exec.ExitError
	if errors.Is(err, sandbox.ErrGitRefused) || err != nil && !errors.As(err, &ee) && !errors.Is(err, exec.ErrWaitDelay) {
		return out, fmt.Errorf("run %s: %w", p.Argv[0], err)
	}
	out.Limit, out.tail = limitReached(p.Sandbox, proc, stdout, stderr)
	out.status = proc.ExitStatus()
	return out, nil
}

// limitReached is the limit a confined program that failed reached, by
// the one judge (sandbox.Limits.Hit), and the end of its output it was
// judged on; nil when it reached none. The program's status is its exit
// code, or 128 plus the signal that killed it (the kernel's, at the memory
// limit); the end of what it printed, standard error's last, is the
// evidence where no cgroup counted.
func limitReached(box *sandbox.Profile, proc *sandbox.Process, stdout, stderr *shell.Spool) (*sandbox.Reached, string) {
	if !box.Confined() {
		return nil, ""
	}
	tail := stdout.Last(sandbox.HitTailLines, sandbox.HitTailBytes)
	if stderr != stdout {
		tail = strings.TrimSuffix(tail, "\n") + "\n" + stderr.Last(sandbox.HitTailLines, sandbox.HitTailBytes)
	}
	hit, ok := box.Limits.Hit(proc.LimitEvents(), proc.ExitStatus(), tail)
	if !ok {
		return nil, ""
	}
	return &hit, tail
}

// LimitError is the LIMIT_EXCEEDED error of a run that reached a limit
// (out.Limit), with the end of what it printed, or nil when it reached
// none: what every tool that runs a program answers for such a run, as
// exec_command does. Its exit code is the shell's status, as
// exec_command's: 137 for a program the kernel killed at the memory limit.
func LimitError(out Outcome) *tool.Error {
	if out.Limit == nil {
		return nil
	}
	e := out.Limit.ToolError(out.status)
	if strings.TrimSpace(out.tail) == "" {
		e.Message += ". It printed nothing."
	} else {
		e.Message += ". Its output ended with:\n" + out.tail
	}
	return e.WithDetail("output", out.tail)
}

// Text returns the view as one text, with the one marker
// (outputcache.Marker) where the middle was left out: a program's capture
// keeps its two ends and nothing else, by design: its spool has no sink, so
// the spool's "no place to store" is not an error worth showing.
func Text(v shell.View) string {
	v.StoreErr = nil
	return v.Text(outputcache.Kept{})
}

// Output is the typed output of a tool that runs one program and reports
// its exit code and its interleaved output (a custom tool, a wrapped CLI),
// for Go callers.
type Output struct {
	Command  string `json:"command"`
	ExitCode int    `json:"exit_code"`
	Output   string `json:"output"`
}

// Result is the call's result for a program that ended by itself, whatever
// its exit code: the model reads the code and the output, a Go caller has
// them as [Output]. argv is what ran; out's Stdout holds both streams
// ([Process].Combined).
func Result(argv []string, out Outcome) tool.Result {
	text := Text(out.Stdout)
	return tool.Result{Parts: []tool.Part{{Type: tool.PartText, Text: fmt.Sprintf("exit_code: %d\n%s", out.ExitCode, text)}},
		Output: Output{ExitCode: out.ExitCode, Command: shell.Join(argv), Output: text}}
}
