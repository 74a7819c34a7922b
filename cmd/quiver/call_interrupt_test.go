//go:build unix

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/quiverkit/quiver"
	"github.com/quiverkit/quiver/driver"
	"github.com/quiverkit/quiver/tool"
)

// startCLI starts quiver in dir as runCLI runs it. The channel gets its
// Wait error; stdout and stderr may be read once that has come.
func startCLI(t *testing.T, dir string, args ...string) (cmd *exec.Cmd, stdout, stderr *bytes.Buffer, done <-chan error) {
	t.Helper()
	cmd = exec.Command(quiverBin, args...)
	cmd.Dir = dir
	cmd.Env = cliEnv(dir)
	stdout, stderr = &bytes.Buffer{}, &bytes.Buffer{}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waited, exited := make(chan error, 1), make(chan struct{})
	go func() {
		waited <- cmd.Wait()
		close(exited)
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-exited
	})
	return cmd, stdout, stderr, waited
}

// awaitExit waits for a signalled quiver to end, for 30 s at most.
func awaitExit(t *testing.T, done <-chan error) error {
	t.Helper()
	select {
	case err := <-done:
		return err
	case <-time.After(30 * time.Second):
		t.Fatal("quiver call did not end within 30 s of the signal")
		return nil
	}
}

// sleepsAMinute writes its pid to sleep.pid and sleeps a minute.
const sleepsAMinute = "echo $$ > sleep.pid; exec sleep 60"

// A call that can leave something behind (here, a process of its own) is
// cancelled at the signal: its process is killed, and it fails CANCELLED.
// Among them, a tool from quiver.toml or .quiver/tools that takes the name
// of a read-only in-process built-in, rated low so that it is annotated
// read-only too: it is what a call of that name runs, and it starts a
// process. Nothing in a configuration or a script can declare a tool
// InProcess.
func TestCallSignalCancelsACallThatStartsAProcess(t *testing.T) {
	execCommand := []string{"call", "exec_command", `{"argv":["sh","-c","` + sleepsAMinute + `"]}`}
	shadow := []string{"call", "read_file", "{}"}
	tests := []struct {
		name  string
		files map[string]string
		call  []string
		sig   syscall.Signal
	}{
		{"exec_command, SIGINT", nil, execCommand, syscall.SIGINT},
		{"exec_command, SIGTERM", nil, execCommand, syscall.SIGTERM},
		{"a custom tool named read_file", map[string]string{"quiver.toml": "[[tools.custom]]\nname = \"read_file\"\n" +
			"description = \"Shadows read_file.\"\ncommand = \"sh -c '" + sleepsAMinute + "'\"\nrisk = \"low\"\n"}, shadow, syscall.SIGINT},
		{"a script named read_file", map[string]string{".quiver/tools/read_file": "#!/bin/sh\n" +
			"# quiver: description Shadows read_file.\n# quiver: risk low\n" + sleepsAMinute + "\n"}, shadow, syscall.SIGINT},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := workdir(t, tt.files)
			if _, ok := tt.files[".quiver/tools/read_file"]; ok {
				if err := os.Chmod(filepath.Join(dir, ".quiver/tools/read_file"), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			cmd, _, stderr, done := startCLI(t, dir, append([]string{"--yes"}, tt.call...)...)
			pid := awaitPid(t, filepath.Join(dir, "sleep.pid"), done)
			if err := cmd.Process.Signal(tt.sig); err != nil {
				t.Fatal(err)
			}
			err := awaitExit(t, done)
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != exitTool || !strings.Contains(stderr.String(), string(tool.CodeCancelled)) {
				t.Fatalf("quiver call after %v: %v, want exit status %d and %s\nstderr: %s", tt.sig, err, exitTool, tool.CodeCancelled, stderr)
			}
			if alive(pid) {
				t.Errorf("sleep (pid %d) outlived the cancelled call", pid)
			}
		})
	}
}

// blockedCallEnv makes the test binary, run again, the process of
// TestCallSignalEndsAReadOnlyInProcessCall: it calls a read-only in-process
// tool that says "started" and waits for its context.
const blockedCallEnv = "QUIVER_TEST_BLOCKED_CALL"

// A call to a read-only tool that starts no process has nothing to undo:
// the signal ends the process by its default action. Were the signal
// listened for, the tool would see its context end and the process exit 0.
func TestCallSignalEndsAReadOnlyInProcessCall(t *testing.T) {
	if os.Getenv(blockedCallEnv) == "1" {
		blockedCall()
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestCallSignalEndsAReadOnlyInProcessCall$")
	cmd.Env = append(os.Environ(), blockedCallEnv+"=1")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := startWithDefaultSIGINT(cmd); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if line != "started\n" {
		cmd.Wait()
		t.Fatalf("the call did not start: %q, %v\nstderr: %s", line, err, &stderr)
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	err = cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("after SIGINT: %v, want the process ended by the signal\nstderr: %s", err, &stderr)
	}
	if ws, ok := ee.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGINT {
		t.Errorf("after SIGINT: %v, want the process ended by SIGINT\nstderr: %s", ee, &stderr)
	}
}

// startWithDefaultSIGINT starts cmd with SIGINT's default action, even
// when this process started with SIGINT ignored (as a shell's background
// job does, and the child would inherit): exec resets a handled signal to
// its default, so the start happens while this process handles it.
func startWithDefaultSIGINT(cmd *exec.Cmd) error {
	c := make(chan os.Signal, 1)
	signal.Notify(c, syscall.SIGINT)
	defer signal.Stop(c)
	return cmd.Start()
}

func blockedCall() {
	wait := tool.Func("wait", "Waits for its context.", func(ctx context.Context, _ tool.Context, _ struct{}) (string, error) {
		fmt.Println("started")
		<-ctx.Done()
		return "", ctx.Err()
	}, tool.ReadOnly(), tool.InProcess())
	dir, err := os.MkdirTemp("", "quiver-blocked-call")
	if err != nil {
		panic(err)
	}
	tk, err := quiver.New(quiver.WithRoot(dir), quiver.WithTools(wait))
	if err != nil {
		panic(err)
	}
	ctx, stop := interruptible(context.Background(), tk, "wait")
	defer stop()
	tk.InvokeCall(ctx, driver.ToolCall{Name: "wait", Arguments: json.RawMessage("{}")})
	os.RemoveAll(dir)
	os.Exit(0) // only if the call ended: something listened for the signal
}

// interruptible listens unless the call is to a read-only tool that starts
// no process; in doubt it listens.
func TestInterruptibleListensUnlessNothingCanBeLeftBehind(t *testing.T) {
	noop := func(context.Context, tool.Context, struct{}) (string, error) { return "", nil }
	tk, err := quiver.New(quiver.WithRoot(t.TempDir()), quiver.WithTools(
		tool.Func("reads_in_process", "d", noop, tool.ReadOnly(), tool.InProcess()),
		tool.Func("reads_with_a_process", "d", noop, tool.ReadOnly()),
		tool.Func("writes_in_process", "d", noop, tool.InProcess()),
		tool.Func("reaches_the_network", "d", noop, tool.InProcess(),
			tool.WithAnnotations(tool.Annotations{ReadOnly: true, OpenWorld: true})),
	))
	if err != nil {
		t.Fatal(err)
	}
	defer tk.Close()
	for name, want := range map[string]bool{
		"reads_in_process":     false,
		"reads_with_a_process": true,
		"writes_in_process":    true,
		"reaches_the_network":  true,
		"no_such_tool":         true,
	} {
		ctx, stop := interruptible(t.Context(), tk, name)
		if got := ctx != t.Context(); got != want {
			t.Errorf("interruptible(%s) listens: %v, want %v", name, got, want)
		}
		stop()
	}
}
