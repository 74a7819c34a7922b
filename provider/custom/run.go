package custom

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"time"

	"github.com/quiverkit/quiver/internal/shell"
	"github.com/quiverkit/quiver/sandbox"
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
	Stdout   shell.View
	Stderr   shell.View // empty when Combined
}

// captureBudget bounds what is kept in memory of one stream: its first and
// last 512 KiB. The pipeline's output cache trims the model's view further.
var captureBudget = shell.Budget{HeadBytes: 512 << 10, TailBytes: 512 << 10, HeadLines: 1 << 30, TailLines: 1 << 30}

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
	return out, nil
}

// Text returns the view as one text, with a marker where bytes were left out.
func Text(v shell.View) string {
	if !v.Truncated {
		return v.Head
	}
	return fmt.Sprintf("%s\n[... %d bytes omitted ...]\n%s", v.Head, v.OmittedBytes, v.Tail)
}
