//go:build unix

package e2e

import (
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quiverkit/quiver/internal/mcppeers"
)

// progressRun is what testdata/progress-client.mjs printed.
type progressRun struct {
	Reports  int       `json:"reports"`
	Message  string    `json:"message"`
	Progress []float64 `json:"progress"`
	Result   *struct {
		IsError bool `json:"isError"`
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	} `json:"result"`
	Error string `json:"error"`
}

// progressCommand is testdata/progress-client.mjs — run on the TypeScript
// SDK the Inspector's CLI is built on, installed with it — against `quiver
// serve` in dir.
func progressCommand(t *testing.T, dir, mode, command string) []string {
	t.Helper()
	sdk := filepath.Dir(mcppeers.Need(t, filepath.Join(mcppeers.Modules, "@modelcontextprotocol/sdk/package.json")))
	script := filepath.Join(repoRoot, "e2e", "testdata", "progress-client.mjs")
	return []string{script, sdk, quiverBin, mode, command}
}

// progressResult decodes what the client printed.
func progressResult(t *testing.T, stdout, stderr string, code int) progressRun {
	t.Helper()
	var r progressRun
	if err := json.Unmarshal([]byte(strings.TrimSpace(stdout)), &r); code != 0 || err != nil {
		t.Fatalf("progress client: exit %d, %v\nstdout: %s\nstderr: %s", code, err, stdout, stderr)
	}
	return r
}

// A command that runs longer than the TypeScript SDK's 60-second request
// timeout completes, because the server reports progress and the client
// resets its timeout on each report. Without reports the client gives up
// at 60 s ("MCP error -32001: Request timed out"), which is what the MCP
// Inspector's CLI 0.15.0 does whatever the server sends: it asks for no
// progress. This test costs 75 s of wall time and almost no CPU; it runs in
// parallel with the others.
func TestProgressKeepsA75SecondCallAlive(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("a 75-second call; run without -short")
	}
	dir := workspace(t, sleeper)
	stdout, stderr, code := run(t, dir, 3*time.Minute, "node", progressCommand(t, dir, "finish", "sleep 75 && echo finished")...)
	r := progressResult(t, stdout, stderr, code)
	if r.Error != "" || r.Result == nil || r.Result.IsError {
		t.Fatalf("the call failed: %+v", r)
	}
	if len(r.Result.Content) == 0 || !strings.Contains(r.Result.Content[0].Text, "finished") {
		t.Errorf("result %+v: want the command's output", r.Result)
	}
	// A report every 2 s: 60 s without one would have ended the call.
	if r.Reports < 30 || !strings.HasPrefix(r.Message, "running for 1m") {
		t.Errorf("%d reports, the last %q: want one every 2 s, saying how long the call has run", r.Reports, r.Message)
	}
}

// A call the client cancels (notifications/cancelled, sent at its first
// progress report) leaves no process behind.
func TestProgressCancelledCallLeavesNoProcess(t *testing.T) {
	t.Parallel()
	dir := workspace(t, sleeper)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", progressCommand(t, dir, "cancel", "sh -c 'echo $$ > sleeper.pid; exec sleep 300'")...)
	cmd.Dir, cmd.Env = dir, env(dir)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := sleeperPID(t, dir)
	err := cmd.Wait()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	r := progressResult(t, stdout.String(), stderr.String(), code)
	if r.Reports == 0 || r.Error == "" {
		t.Fatalf("want a report, then the call cancelled: %+v", r)
	}
	expectGone(t, pid, "the call was cancelled")
}
