package hooks

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/quiverkit/quiver/provider/command"
	"github.com/quiverkit/quiver/sandbox"
)

// MaxOutput bounds what a hook may print on each of its streams: what
// package command keeps of a stream whole. A hook that prints more has
// failed: its answer would be in output no one reads whole, and a model's
// context is not where megabytes go.
const MaxOutput = command.CaptureBytes

// MaxContext bounds the context one hook adds to a result, as Claude Code
// bounds it (10,000 characters); more is cut with a marker.
const MaxContext = 10000

// Shell is the program a hook's command line is given to, as Claude Code
// gives it.
const Shell = "/bin/sh"

// proc is how one hook's process ended.
type proc struct {
	exit           int
	exited         bool // exit is the process's own status
	stdout, stderr []byte
	dur            time.Duration
}

// errHookFailed marks the failures on_error is about: the hook could not
// be started, timed out, reached a [sandbox.limits] limit, printed too
// much, exited neither 0 nor 2, or printed JSON that is not a hook's
// answer.
var errHookFailed = errors.New("hook failed")

// run runs h's command line with input on its standard input, under
// profile, through package command (the start path, sandbox.Command, as
// the operator's other programs run), to its end, its timeout or ctx's.
func (s *Set) run(ctx context.Context, h *Hook, profile *sandbox.Profile, input []byte) (proc, error) {
	start := time.Now()
	if h.Network && profile != nil {
		profile = profile.WithNetwork()
	}
	out, err := command.Run(ctx, command.Process{Argv: []string{Shell, "-c", h.Command}, Dir: s.root,
		Env: append(sandbox.HostEnv(nil), "CLAUDE_PROJECT_DIR="+s.root), Stdin: bytes.NewReader(input),
		Timeout: h.timeout(), Sandbox: profile})
	r := proc{exit: out.ExitCode, exited: err == nil && !out.TimedOut && out.ExitCode >= 0,
		stdout: []byte(out.Stdout.Head), stderr: []byte(out.Stderr.Head), dur: time.Since(start)}
	var unavailable *sandbox.UnavailableError
	switch {
	case errors.As(err, &unavailable), ctx.Err() != nil:
		return r, err // not the hook's failure: no hook can run here, or the call ended
	case err != nil:
		return r, fmt.Errorf("%w: could not run: %w", errHookFailed, err)
	case out.TimedOut:
		return r, fmt.Errorf("%w: did not finish within its timeout of %v and was killed", errHookFailed, h.timeout())
	case out.Limit != nil:
		return r, fmt.Errorf("%w: %s, and was killed with every process it started", errHookFailed, out.Limit.Message())
	case out.Stdout.Truncated || out.Stderr.Truncated:
		return r, fmt.Errorf("%w: printed more than %d bytes", errHookFailed, MaxOutput)
	}
	return r, nil
}

// clip cuts s to MaxContext characters' worth of bytes, on a rune boundary.
func clip(s string) string {
	if len(s) <= MaxContext {
		return s
	}
	cut := MaxContext
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + fmt.Sprintf("\n[... %d bytes cut ...]", len(s)-cut)
}
