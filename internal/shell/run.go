//go:build unix

package shell

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/quiverkit/quiver/sandbox"
	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"
)

var errRefused = errors.New("refused by the command gate")

// errRunEnded is the cause of a run's context once the run has ended.
var errRunEnded = errors.New("the run has ended")

// strayWait is how long a run waits for the end of its output, once its
// process group is dead, before looking for programs that left the group
// with the output pipe open.
const strayWait = 100 * time.Millisecond

// done reports whether ch is closed within d.
func done(ch <-chan struct{}, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ch:
		return true
	case <-t.C:
		return false
	}
}

// drainGrace is how long a run waits, once its processes are dead, for the
// last output to arrive: a program that left the process group may hold the
// pipe open for ever.
const drainGrace = 2 * time.Second

// Run runs spec to its end, or until ctx is done or the gate refuses
// something; in every case, every process it started is killed before Run
// returns, and the output is complete. A command line that does not parse
// is a *SyntaxError; other errors are failures to set the run up.
func Run(ctx context.Context, spec Spec) (Outcome, error) {
	start := time.Now()
	if spec.Gate == nil {
		return Outcome{}, errors.New("shell: no command gate")
	}
	runCtx, halt := context.WithCancelCause(ctx)
	defer halt(errRunEnded)
	// The run's processes: one group, killed when runCtx ends, with the
	// run's TMPDIR.
	group, err := sandbox.NewGroup(runCtx, spec.Sandbox)
	if err != nil {
		return Outcome{}, err
	}
	spec.Sandbox = group.Profile()
	defer group.Close()
	var file *syntax.File
	if spec.Argv == nil {
		var err error
		if file, err = Parse(spec.Command); err != nil {
			return Outcome{}, err
		}
	}
	stdin, pr, pw, err := runStreams(spec)
	if err != nil {
		return Outcome{}, err
	}
	if spec.Stdin == nil && spec.TTY == nil {
		defer stdin.Close()
	}
	var src io.Reader = pr
	if spec.TTY != nil {
		src = readEnd{pr}
	}
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		buf := make([]byte, 64<<10)
		io.CopyBuffer(onlyWriter{spec.Output}, src, buf)
	}()

	st := &runState{spec: &spec, halt: halt, group: group, basePath: envValue(spec.BaseEnv, "PATH"), base: envMap(spec.BaseEnv)}
	var code int
	if spec.Argv != nil {
		code = st.runArgv(runCtx, stdin, pw)
	} else {
		code = st.runShell(runCtx, file, stdin, pw)
	}
	halt(errRunEnded)
	group.Kill()
	if !st.joinBackground(strayWait) {
		killOutputHolders(spec, pr)
		st.joinBackground(drainGrace)
	}
	group.Close()

	pw.Close()
	if !done(copied, strayWait) {
		// Something outside the dead process group still holds the output.
		killOutputHolders(spec, pr)
		done(copied, drainGrace)
	}
	if spec.TTY != nil {
		pr.SetReadDeadline(time.Now()) // the caller closes the terminal
	} else {
		pr.Close() // unblocks the copy if a stray process still holds the pipe
	}
	<-copied

	out := Outcome{ExitCode: code, Refused: st.refusals(), Duration: time.Since(start), Limits: group.LimitEvents()}
	out.Stop = stopOf(context.Cause(runCtx))
	switch out.Stop {
	case Refused:
		out.ExitCode = 126
	case TimedOut, Cancelled, Killed:
		out.ExitCode = -1
	}
	return out, nil
}

// killOutputHolders kills what outside the run's dead process group holds
// its output: the pipe r reads, or its terminal.
func killOutputHolders(spec Spec, r *os.File) {
	if spec.TTY != nil {
		killTTYHolders(spec.TTY)
		return
	}
	killPipeHolders(r)
}

// runStreams returns the run's standard input and the two ends of its
// output: /dev/null (or spec.Stdin) and a pipe, or the terminal's slave
// and its master side (spec.TTY).
func runStreams(spec Spec) (stdin, r, w *os.File, err error) {
	if spec.TTY != nil {
		return spec.TTY.slave, spec.TTY.master, spec.TTY.slave, nil
	}
	stdin = spec.Stdin
	if stdin == nil {
		if stdin, err = os.Open(os.DevNull); err != nil {
			return nil, nil, nil, fmt.Errorf("shell: stdin: %w", err)
		}
	}
	r, w, err = os.Pipe()
	if err != nil {
		if spec.Stdin == nil {
			stdin.Close()
		}
		return nil, nil, nil, fmt.Errorf("shell: output pipe: %w", err)
	}
	return stdin, r, w, nil
}

func stopOf(cause error) Stop {
	switch {
	case errors.Is(cause, errRunEnded):
		return Finished
	case errors.Is(cause, errRefused):
		return Refused
	case errors.Is(cause, ErrKilled):
		return Killed
	case errors.Is(cause, context.DeadlineExceeded):
		return TimedOut
	}
	return Cancelled
}

// onlyWriter hides a writer's ReadFrom, so io.CopyBuffer uses its buffer
// (and hands the spool 64 KiB at a time) rather than the writer's own
// strategy.
type onlyWriter struct{ io.Writer }

// runState is what one run's handlers share.
type runState struct {
	spec     *Spec
	halt     context.CancelCauseFunc
	group    *sandbox.Group
	basePath string
	base     map[string]string

	mu      sync.Mutex
	refused []Refusal
	runner  *interp.Runner
	joined  chan struct{} // closed when the background statements have ended
}

func (st *runState) refusals() []Refusal {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.refused
}

// refuse records a refusal, tells the run's output, and stops the run:
// nothing after a refused command runs.
func (st *runState) refuse(stderr io.Writer, what string, err error) {
	reason := message(err)
	fmt.Fprintf(stderr, "quiver: refused: %s\n", reason)
	st.mu.Lock()
	st.refused = append(st.refused, Refusal{Command: what, Reason: reason})
	st.mu.Unlock()
	st.halt(errRefused)
}

// runShell runs a parsed command line in the interpreter and returns its
// exit status.
func (st *runState) runShell(ctx context.Context, file *syntax.File, stdin *os.File, out *os.File) int {
	r, err := st.newRunner(st.spec.Dir, expand.ListEnviron(st.spec.Env...), stdin, out, out)
	if err != nil {
		fmt.Fprintf(out, "quiver: shell: %v\n", err)
		return 1
	}
	st.mu.Lock()
	st.runner = r
	st.mu.Unlock()
	return shellStatus(out, r.Run(ctx, file))
}

// shellStatus turns the interpreter's result into an exit status.
func shellStatus(out io.Writer, err error) int {
	if err == nil {
		return 0
	}
	var status interp.ExitStatus
	if errors.As(err, &status) {
		return int(status)
	}
	if !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
		fmt.Fprintf(out, "quiver: shell: %v\n", err)
	}
	return 1
}

func (st *runState) newRunner(dir string, env expand.Environ, stdin io.Reader, out, errw io.Writer) (*interp.Runner, error) {
	return interp.New(
		interp.Dir(dir),
		interp.Env(env),
		interp.StdIO(stdin, out, errw),
		interp.ExecHandlers(func(interp.ExecHandlerFunc) interp.ExecHandlerFunc { return st.execHandler }),
		interp.OpenHandler(st.open),
	)
}

// waitStmt is the statement `wait`, parsed on first use rather than at
// start-up: a parser costs allocations every process would pay.
var waitStmt = sync.OnceValue(func() *syntax.Stmt {
	f, err := syntax.NewParser().Parse(stringReader("wait"), "")
	if err != nil {
		panic(err)
	}
	return f.Stmts[0]
})

// joinBackground waits up to d for the interpreter's background statements
// (cmd &) to notice the run has ended — their processes are dead by now —
// so no goroutine outlives the run, and reports whether they all did. A
// statement stuck elsewhere is left behind rather than holding up the
// result.
func (st *runState) joinBackground(d time.Duration) bool {
	st.mu.Lock()
	r := st.runner
	st.mu.Unlock()
	if r == nil {
		return true
	}
	if st.joined == nil {
		st.joined = make(chan struct{})
		go func() {
			defer close(st.joined)
			r.Run(context.Background(), waitStmt())
		}()
	}
	return done(st.joined, d)
}
