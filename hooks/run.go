package hooks

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"time"

	"github.com/quiverkit/quiver/sandbox"
)

// MaxOutput bounds what a hook may print on each of its streams. A hook that
// prints more is stopped and has failed: its decision would be in output no
// one reads whole, and a model's context is not where megabytes go.
const MaxOutput = 1 << 20

// MaxContext bounds the context one hook adds to a result, as Claude Code
// bounds it (10,000 characters); more is cut with a marker.
const MaxContext = 10000

// Shell is the program a hook's command line is given to, as Claude Code
// gives it.
const Shell = "/bin/sh"

// proc is how one hook's process ended.
type proc struct {
	exit           int
	stdout, stderr []byte
	dur            time.Duration
}

// errHookFailed marks the failures on_error is about: the hook could not
// be started, timed out, printed too much, exited neither 0 nor 2, or
// printed JSON that is not a hook's answer.
var errHookFailed = errors.New("hook failed")

// run starts h's command through the start path (sandbox.Command) under
// profile, with input on its standard input, and waits for it, its
// timeout or ctx.
func (s *Set) run(ctx context.Context, h *Hook, profile *sandbox.Profile, input []byte) (proc, error) {
	start := time.Now()
	runCtx, cancel := context.WithTimeout(ctx, h.timeout())
	defer cancel()
	if h.Network && profile != nil {
		profile = profile.WithNetwork()
	}
	p := sandbox.Command(runCtx, profile, Shell, "-c", h.Command)
	p.Dir = s.root
	p.Env = append(sandbox.HostEnv(nil), "CLAUDE_PROJECT_DIR="+s.root)
	p.Stdin = bytes.NewReader(input)
	stdout, stderr := &capped{cancel: cancel}, &capped{cancel: cancel}
	p.Stdout, p.Stderr = stdout, stderr
	err := p.Start()
	if err == nil {
		err = p.Wait()
	}
	r := proc{exit: p.ExitCode(), stdout: stdout.buf.Bytes(), stderr: stderr.buf.Bytes(), dur: time.Since(start)}
	var ee *exec.ExitError
	var unavailable *sandbox.UnavailableError
	switch {
	case errors.As(err, &unavailable):
		return r, err // not the hook's failure: no hook can run here
	case ctx.Err() != nil:
		return r, ctx.Err()
	case stdout.over || stderr.over:
		return r, fmt.Errorf("%w: printed more than %d bytes and was stopped", errHookFailed, MaxOutput)
	case runCtx.Err() != nil:
		return r, fmt.Errorf("%w: did not finish within its timeout of %v and was killed", errHookFailed, h.timeout())
	case err != nil && !errors.As(err, &ee) && !errors.Is(err, exec.ErrWaitDelay):
		return r, fmt.Errorf("%w: could not run: %w", errHookFailed, err)
	}
	return r, nil
}

// capped keeps up to MaxOutput bytes of a stream; past that it stops the
// process and drops the rest.
type capped struct {
	buf    bytes.Buffer
	over   bool
	cancel context.CancelFunc
}

func (c *capped) Write(p []byte) (int, error) {
	if c.over {
		return len(p), nil
	}
	if c.buf.Len()+len(p) > MaxOutput {
		c.over = true
		c.cancel()
		return len(p), nil
	}
	return c.buf.Write(p)
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
