package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quiverkit/quiver/sandbox/sandboxtest"
)

// TestSandboxCommandEscapes runs the escape table that TestSandboxEscapes
// runs through exec_command (testdata/escapes.txt) through `quiver sandbox
// -- bash -c LINE` instead, under workspace-write and read-only: the same
// result, nothing outside changes and no host listener is reached.
func TestSandboxCommandEscapes(t *testing.T) {
	escapes := sandboxtest.LoadEscapes(t, "../../testdata/escapes.txt")
	for _, scope := range []string{"workspace-write", "read-only"} {
		t.Run(scope, func(t *testing.T) {
			t.Parallel()
			ws := workdir(t, map[string]string{"a.txt": "inside\n"})
			w := sandboxtest.NewWatch(t)
			for _, e := range escapes {
				r := runCLI(t, ws, "", "--write-scope", scope, "sandbox", "--", "bash", "-c", w.Expand(e.Command))
				if what := w.Touched(t); what != "" {
					t.Errorf("%s (exit %d, %s) %s", e.Name, r.code, r.stderr, what)
				}
			}
		})
	}
}

// TestSandboxCommand: `quiver sandbox` runs inside the workspace with the
// command's exit status, `--network` reaches the host, and `quiver sandbox
// check` reports what the machine has; with the kernel support missing
// (simulated) both refuse, naming the setting that opts out.
func TestSandboxCommand(t *testing.T) {
	ws := workdir(t, nil)
	if r := runCLI(t, ws, "", "sandbox", "--", "sh", "-c", "echo hi > in.txt; exit 3"); r.code != 3 {
		t.Errorf("exit status %d, want the command's 3 (%s)", r.code, r.stderr)
	}
	if b, err := os.ReadFile(filepath.Join(ws, "in.txt")); err != nil || string(b) != "hi\n" {
		t.Errorf("in.txt = %q, %v", b, err)
	}
	w := sandboxtest.NewWatch(t)
	runCLI(t, ws, "", "sandbox", "--network", "--", "bash", "-c", w.Expand("echo x > /dev/tcp/{HOST}/{TCPPORT}"))
	if what := w.Touched(t); !strings.Contains(what, "TCP") {
		t.Errorf("--network: the host's listener was not reached (%q)", what)
	}
	if r := runCLI(t, ws, "", "sandbox", "check"); r.code != 0 || !strings.Contains(r.stdout, "Landlock ABI") {
		t.Errorf("sandbox check: %+v", r)
	}
	t.Setenv("QUIVER_SANDBOX_UNSUPPORTED", "Landlock (simulated: not in this kernel)")
	for _, args := range [][]string{{"sandbox", "check"}, {"sandbox", "--", "true"}, {"call", "exec_command", `{"argv":["true"]}`, "--yes"}} {
		r := runCLI(t, ws, "", args...)
		if r.code != 1 || !strings.Contains(r.stderr, "Landlock (simulated") || !strings.Contains(r.stderr, "[sandbox] disabled = true") {
			t.Errorf("%v without Landlock: exit %d, stderr %q; want 1 and the documented error", args, r.code, r.stderr)
		}
	}
}
