package cli

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"time"

	"github.com/quiverkit/quiver/sandbox"
	"github.com/quiverkit/quiver/tool"
)

// runner runs one program.
type runner struct {
	path    string
	timeout time.Duration
}

// stderrLimit bounds what is kept of a program's error output.
const stderrLimit = 16 << 10

// errFallback asks the caller to serve the call in process: the program
// could not give the engine's answer (it refused the pattern, or wrote a
// line too long to hold).
var errFallback = errors.New("served in process")

// run starts the program in dir with args and hands its output to read.
// The program gets an environment without the user's configuration (no
// HOME, no XDG_CONFIG_HOME), so no global ignore file or config file of
// the user changes what it searches. It ends when read returns, when ctx
// ends, or after the timeout; a read error stops it.
func (r runner) run(ctx context.Context, dir string, args []string, read func(io.Reader) error) (stderr string, err error) {
	ctx, cancel := context.WithTimeoutCause(ctx, r.timeout, errTimedOut)
	defer cancel()
	box, err := confine(dir, r.path)
	if err != nil {
		return "", err
	}
	proc := sandbox.Command(ctx, box, r.path, args...)
	proc.Dir = dir
	proc.Env = cleanEnv()
	var errBuf limitedBuffer
	proc.Stderr = &errBuf
	out, err := proc.StdoutPipe()
	if err != nil {
		return "", err
	}
	if err := proc.Start(); err != nil {
		var ue *sandbox.UnavailableError
		if errors.As(err, &ue) {
			return "", errFallback
		}
		return "", tool.Errorf(tool.CodeExecutionFailed, "start %s: %w", r.path, err)
	}
	readErr := read(bufio.NewReaderSize(out, 256<<10))
	if readErr != nil {
		cancel() // stop the program: its output is no longer read
	} else {
		_, _ = io.Copy(io.Discard, out)
	}
	waitErr := proc.Wait()
	if errors.Is(context.Cause(ctx), errTimedOut) {
		return errBuf.String(), tool.Errorf(tool.CodeTimeout, "%s did not finish in %s; narrow the path or the pattern", r.path, r.timeout)
	}
	if readErr != nil {
		return errBuf.String(), readErr
	}
	return errBuf.String(), waitErr
}

var errTimedOut = errors.New("the program's time is up")

// confine returns the profile rg and fd run under: read-only, able to
// read only the workspace dir, the program itself and the system's program
// directories: rg opens the paths it walks by name, so a directory swapped
// for a symlink to the outside while it runs would otherwise be followed;
// the kernel refuses that open. Where the sandbox is unavailable the call
// is served in process, by the engine that walks through os.Root.
func confine(dir, program string) (*sandbox.Profile, error) {
	box, err := sandbox.Default(dir)
	if err != nil {
		return nil, err
	}
	return box.ReadingOnly(dir, program), nil
}

// exitCode returns a finished program's exit status, or -1.
func exitCode(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	return -1
}

// cleanEnv is the environment programs run with: the minimal one, with
// HOME and XDG_CONFIG_HOME pointing nowhere, so that no configuration of
// the user's (a global ignore file, RIPGREP_CONFIG_PATH's file) changes
// what they search.
func cleanEnv() []string {
	return sandbox.MergeEnv(sandbox.HostEnv(nil), []string{"HOME=/nonexistent", "XDG_CONFIG_HOME=/nonexistent"})
}

// limitedBuffer keeps the first stderrLimit bytes written to it.
type limitedBuffer struct{ bytes.Buffer }

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if room := stderrLimit - b.Len(); room > 0 {
		b.Buffer.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

// programError turns a failed run into a tool error naming the program.
func programError(prog string, err error, stderr string) error {
	var te *tool.Error
	if errors.As(err, &te) {
		return te
	}
	msg := strings.TrimSpace(stderr)
	if msg == "" {
		msg = err.Error()
	}
	return tool.Errorf(tool.CodeExecutionFailed, "%s failed: %s", prog, msg).WithCause(err)
}

// splitNUL is a bufio.SplitFunc for NUL-terminated records.
func splitNUL(data []byte, atEOF bool) (advance int, token []byte, err error) {
	if i := bytes.IndexByte(data, 0); i >= 0 {
		return i + 1, data[:i], nil
	}
	if atEOF && len(data) > 0 {
		return 0, nil, fmt.Errorf("output ends without a NUL terminator")
	}
	return 0, nil, nil
}
