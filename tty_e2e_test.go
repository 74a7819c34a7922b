//go:build linux

package quiver_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/quiverkit/quiver"
	"github.com/quiverkit/quiver/sandbox/sandboxtest"
	"github.com/quiverkit/quiver/tools"
)

// typeInto writes chars to session and reads it until its output holds
// want (or a minute passes: a hang guard), and returns all it read.
func typeInto(t *testing.T, ctx context.Context, tk *quiver.Toolkit, session, chars, want string) (string, *tools.ExecJobOutput) {
	t.Helper()
	wait := 100
	out, err := quiver.Call(ctx, tk, tools.WriteStdin, tools.WriteStdinInput{SessionID: session, Chars: chars, YieldTimeMS: &wait})
	if err != nil {
		t.Fatalf("write_stdin %q: %v", chars, err)
	}
	seen := out.Output
	for deadline := time.Now().Add(time.Minute); !strings.Contains(seen, want) && out.Status == "running"; {
		if time.Now().After(deadline) {
			t.Fatalf("after %q: no %q in %q", chars, want, seen)
		}
		if out, err = quiver.Call(ctx, tk, tools.WriteStdin, tools.WriteStdinInput{SessionID: session, YieldTimeMS: &wait}); err != nil {
			t.Fatalf("write_stdin: %v", err)
		}
		seen += out.Output
	}
	if !strings.Contains(seen, want) {
		t.Fatalf("after %q: the session ended (%s) without printing %q: %q", chars, out.Status, want, seen)
	}
	return seen, out
}

// startSession starts in as a session (yield_time_ms) and returns its id.
func startSession(t *testing.T, ctx context.Context, tk *quiver.Toolkit, in tools.ExecCommandInput) string {
	t.Helper()
	wait := 50
	in.YieldTimeMS = &wait
	out, err := quiver.Call(ctx, tk, tools.ExecCommand, in)
	if err != nil || out.SessionID == "" {
		t.Fatalf("exec_command %+v: %v, %+v", in, err, out)
	}
	return out.SessionID
}

// TestTTYSession is issue 28's interactive test with tty: true, under the
// real sandbox: a program that checks isatty sees a terminal on its
// standard streams (and a pipe without tty); python3 -i in a terminal is
// started without blocking, answers three inputs one by one, and ends;
// the toolkit's sandboxtest tree mark finds nothing left running.
func TestTTYSession(t *testing.T) {
	tk, _ := jobsToolkit(t)
	ctx := context.Background()
	const isatty = `import os, sys; print("isatty", os.isatty(0), os.isatty(1), os.isatty(2))`
	for _, tc := range []struct {
		in   tools.ExecCommandInput
		want string
	}{
		{tools.ExecCommandInput{Argv: []string{"python3", "-c", isatty}, TTY: true}, "isatty True True True"},
		{tools.ExecCommandInput{Argv: []string{"python3", "-c", isatty}}, "isatty False False False"},
		// The terminal controls the first program's session: the second
		// starts without a controlling terminal, on the terminal still.
		{tools.ExecCommandInput{Command: "sleep 2 & python3 -c '" + isatty + "'; wait", TTY: true}, "isatty True True True"},
		{tools.ExecCommandInput{Command: "echo | python3 -c '" + isatty + "'", TTY: true}, "isatty False True True"},
	} {
		out, err := quiver.Call(ctx, tk, tools.ExecCommand, tc.in)
		if err != nil || !strings.Contains(out.Output, tc.want) {
			t.Errorf("%+v: %v, %+v; want %q", tc.in, err, out, tc.want)
		}
	}

	// The terminal is the program's controlling terminal, its master side
	// is nowhere in the sandbox, and typing into it (TIOCSTI) is refused
	// as on any terminal.
	const probe = `import fcntl, os, termios
os.close(os.open("/dev/tty", os.O_RDWR))
print("ctty", os.tcgetpgrp(0) == os.getpgrp())
fds = os.listdir("/proc/self/fd")
print("fds", [os.readlink("/proc/self/fd/" + fd) for fd in fds if os.path.exists("/proc/self/fd/" + fd)])
try:
    fcntl.ioctl(0, termios.TIOCSTI, b"x")
    print("TIOCSTI allowed")
except OSError as e:
    print("TIOCSTI refused:", e.strerror)
`
	out, err := quiver.Call(ctx, tk, tools.ExecCommand, tools.ExecCommandInput{Argv: []string{"python3", "-c", probe}, TTY: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"ctty True\n", "TIOCSTI refused: Operation not permitted\n"} {
		if !strings.Contains(out.Output, want) {
			t.Errorf("probe: no %q in %q", want, out.Output)
		}
	}
	if strings.Contains(out.Output, "ptmx") || strings.Contains(out.Output, "TIOCSTI allowed") {
		t.Errorf("probe: %q", out.Output)
	}

	tree := sandboxtest.NewTree(t)
	session := startSession(t, ctx, tk, tools.ExecCommandInput{Argv: []string{"python3", "-i", "-q"}, TTY: true, Env: []string{tree.Env}})
	typeInto(t, ctx, tk, session, "import os; print('tty', os.isatty(0), os.ttyname(0) == os.ttyname(1))\n", "tty True True")
	typeInto(t, ctx, tk, session, "print(6*7)\n", "42")
	typeInto(t, ctx, tk, session, "print('quiv' + 'er'.upper())\n", "quivER")
	_, end := typeInto(t, ctx, tk, session, "exit()\n", "")
	if end.Status == "running" {
		wait := 60 // a hang guard
		if end, err := quiver.Call(ctx, tk, tools.ExecOutput, tools.ExecOutputInput{JobID: session, WaitSecs: &wait}); err != nil || end.Status != "exited" {
			t.Fatalf("after exit(): %v, %+v", err, end)
		}
	}
	if left := tree.Live(); len(left) > 0 {
		t.Errorf("processes %v outlived the session", left)
	}
}
