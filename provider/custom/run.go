package custom

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"time"

	"github.com/quiverkit/quiver/internal/procgroup"
	"github.com/quiverkit/quiver/internal/shell"
	"github.com/quiverkit/quiver/sandbox"
	"github.com/quiverkit/quiver/tool"
	"github.com/quiverkit/quiver/workspace"
)

// Process is a program to run without a shell. provider/script runs its
// scripts with it too.
type Process struct {
	Argv    []string
	Dir     string    // absolute working directory
	Env     []string  // the whole environment
	Stdin   io.Reader // nil: /dev/null
	Timeout time.Duration
	// Combined sends standard error to the Stdout capture, interleaved.
	Combined bool
	// Sandbox confines the program (see package sandbox); a confined run
	// gets a private TMPDIR, removed when it ends. nil runs it unconfined.
	Sandbox *sandbox.Profile
}

// Confine returns what a call of a command tool runs in: the call's
// workspace, and the sandbox profile its process gets (nil when the operator
// turned the sandbox off). A profile the kernel cannot enforce is a
// SANDBOX_UNAVAILABLE tool error. The custom, CLI and script providers all
// start their processes this way.
func Confine(ctx context.Context, tc tool.Context) (*workspace.Workspace, *sandbox.Profile, error) {
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

// Outcome is how a process ended and what it wrote.
type Outcome struct {
	ExitCode int  // -1 when killed
	TimedOut bool // killed because Timeout passed
	Stdout   shell.View
	Stderr   shell.View // empty when Combined
}

// captureBudget bounds what is kept in memory of one stream: its first and
// last 512 KiB. The pipeline's output cache trims the model's view further.
var captureBudget = shell.Budget{HeadBytes: 512 << 10, TailBytes: 512 << 10, HeadLines: 1 << 30, TailLines: 1 << 30}

// waitDelay is how long Run waits for the output pipes to close once the
// program has exited: a child that left the process group may hold them.
const waitDelay = 2 * time.Second

// Run runs p to its end, its timeout or the end of ctx. On a timeout or a
// cancellation the whole process group is killed. An error means the program
// could not be started (or ctx ended, reported as ctx's error).
func Run(ctx context.Context, p Process) (Outcome, error) {
	runCtx, cancel := context.WithTimeout(ctx, p.Timeout)
	defer cancel()
	cmd := exec.CommandContext(runCtx, p.Argv[0], p.Argv[1:]...)
	cmd.Dir, cmd.Env, cmd.Stdin = p.Dir, p.Env, p.Stdin
	cmd.WaitDelay = waitDelay
	procgroup.Own(cmd)
	box, remove, err := p.Sandbox.WithTempDir()
	if err != nil {
		return Outcome{}, err
	}
	defer remove()
	if err := box.Wrap(cmd); err != nil {
		return Outcome{}, err
	}
	stdout := shell.NewSpool(captureBudget, nil)
	stderr := stdout
	if !p.Combined {
		stderr = shell.NewSpool(captureBudget, nil)
	}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	err = cmd.Run()
	if errors.Is(err, exec.ErrWaitDelay) {
		// The program exited but something it started still holds the
		// output: a child left running in its group. End it too.
		procgroup.Kill(cmd)
	}
	out := Outcome{ExitCode: cmd.ProcessState.ExitCode(), Stdout: stdout.View()}
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
	if err != nil && !errors.As(err, &ee) && !errors.Is(err, exec.ErrWaitDelay) {
		return out, fmt.Errorf("run %s: %w", p.Argv[0], err)
	}
	return out, nil
}

// Text returns the view as one text, with a marker where bytes were left out.
func Text(v shell.View) string {
	if !v.Truncated {
		return v.Head
	}
	return fmt.Sprintf("%s\n[... %d bytes omitted ...]\n%s", v.Head, v.OmittedBytes, v.Tail)
}
