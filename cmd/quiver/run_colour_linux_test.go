package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/quiverkit/quiver/driver/drivertest"
	"golang.org/x/sys/unix"
)

// quiver run dims the model's thinking on a terminal, and writes no escape
// sequence at all when NO_COLOR is set (no-color.org). Standard error is a
// real pseudo-terminal here.
func TestRunHonoursNoColor(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name    string
		noColor string
		dimmed  bool
	}{
		{"a terminal: thinking dimmed", "", true},
		{"NO_COLOR=1: no escape", "1", false},
		{"NO_COLOR set to a word: no escape", "false", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := drivertest.New(t, drivertest.DeepSeek, drivertest.Call{Name: "read_file", Arguments: `{"path":"todo.txt"}`}, "One item.")
			dir := workdir(t, map[string]string{"todo.txt": "ship it\n"})
			stderr, code := runOnTerminal(t, dir, "NO_COLOR="+tt.noColor, runArgs(drivertest.DeepSeek, srv, "What is on the list?")...)
			if code != 0 || !strings.Contains(stderr, thinkingShown[drivertest.DeepSeek]) {
				t.Fatalf("exit %d, stderr %q", code, stderr)
			}
			if got := strings.Contains(stderr, "\x1b["); got != tt.dimmed {
				t.Errorf("escape sequences on the terminal: %v, want %v:\n%q", got, tt.dimmed, stderr)
			}
		})
	}
}

// runOnTerminal runs quiver in dir with its standard error on a new
// pseudo-terminal and returns what the terminal received.
func runOnTerminal(t *testing.T, dir, env string, args ...string) (string, int) {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	defer master.Close()
	if err := unix.IoctlSetPointerInt(int(master.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(master.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	slave, err := os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(quiverBin, args...)
	cmd.Dir, cmd.Env, cmd.Stderr = dir, append(cliEnv(dir), env), slave
	var got bytes.Buffer
	done := make(chan struct{})
	go func() {
		defer close(done)
		io.Copy(&got, master) // ends with EIO once the last writer closes
	}()
	err = cmd.Run()
	slave.Close()
	<-done
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return got.String(), code
}
