//go:build unix

package procgroup

import (
	"bufio"
	"context"
	"errors"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// startWithChild starts a shell that starts a sleeping child and prints
// its pid; it returns the command and the child's pid.
func startWithChild(t *testing.T, cmd *exec.Cmd) int {
	t.Helper()
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

// gone waits until pid no longer exists (killed, then reaped by whoever
// inherited it); it fails the test after a minute, which only a child that
// was never killed takes.
func gone(t *testing.T, pid int) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			return
		}
		if b, err := readState(pid); err == nil && b == 'Z' {
			return // killed, not yet reaped
		}
	}
	syscall.Kill(pid, syscall.SIGKILL)
	t.Fatalf("process %d outlived its group's kill", pid)
}

func readState(pid int) (byte, error) {
	out, err := exec.Command("ps", "-o", "stat=", "-p", strconv.Itoa(pid)).Output()
	if err != nil || len(strings.TrimSpace(string(out))) == 0 {
		return 0, errors.New("no state")
	}
	return strings.TrimSpace(string(out))[0], nil
}

const script = `sleep 300 & echo $!; wait`

// TestOwnKillsTheGroupOnCancel: cancelling the context of a command under
// Own kills what it started too.
func TestOwnKillsTheGroupOnCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, "sh", "-c", script)
	Own(cmd)
	child := startWithChild(t, cmd)
	cancel()
	cmd.Wait()
	gone(t, child)
}

// TestKillKillsTheGroup: Kill of a command under Set kills its children,
// and leaves a command that never started alone.
func TestKillKillsTheGroup(t *testing.T) {
	cmd := exec.Command("sh", "-c", script)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: false}
	Set(cmd)
	if !cmd.SysProcAttr.Setpgid {
		t.Fatal("Set did not ask for a process group")
	}
	child := startWithChild(t, cmd)
	Kill(cmd)
	cmd.Wait()
	gone(t, child)
	Kill(exec.Command("true")) // not started: nothing to kill, no panic
}
