package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/quiverkit/quiver/sandbox"
	"github.com/quiverkit/quiver/sandbox/sandboxtest"
)

// TestSandboxCommandEscapes runs the escape table that TestSandboxEscapes
// runs through exec_command (testdata/escapes.txt) through `quiver sandbox
// -- bash -c LINE` instead, each in a new workspace, under workspace-write
// and read-only, with the user's terminal as the command's and descriptors
// it must not use inherited: the same result, the host is left as it was.
// Class 8 is exec_command's alone (`quiver sandbox` has no classifier).
func TestSandboxCommandEscapes(t *testing.T) {
	escapes := sandboxtest.LoadEscapes(t, "../../testdata/escapes.txt")
	for _, scope := range []string{"workspace-write", "read-only"} {
		t.Run(scope, func(t *testing.T) {
			t.Parallel()
			w := sandboxtest.NewWatch(t)
			for _, e := range escapes {
				if e.Class == sandboxtest.ClassClassifier {
					continue
				}
				ws := w.Workspace(t, e)
				r := runSandboxed(t, w, ws, e, quiverBin, "--write-scope", scope, "sandbox", "--")
				if what := w.TouchedIn(t, e, ws, r.stdout+r.stderr); what != "" {
					t.Errorf("class %d, %s (exit %d, %s): %s", e.Class, e.Name, r.code, r.stderr, what)
				}
			}
		})
	}
}

// runSandboxed runs e in ws as `PROGRAM ARGS... [env K=V...] bash -c LINE`,
// started as the user starts it from a terminal (see sandboxtest.Watch's
// Prepare), with no configuration but the workspace's own.
func runSandboxed(t *testing.T, w *sandboxtest.Watch, ws string, e sandboxtest.Escape, program string, args ...string) cliResult {
	t.Helper()
	if len(e.Env) > 0 {
		args = append(append(args, "env"), w.ExpandEnv(e.Env)...)
	}
	cmd := exec.Command(program, append(args, "bash", "-c", w.Expand(e.Command))...)
	cmd.Dir = ws
	cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+filepath.Join(ws, ".no-config"), "XDG_CACHE_HOME="+filepath.Join(ws, ".cache"))
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	w.Prepare(cmd)
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("%s: %v", program, err)
	}
	return cliResult{out.String(), errb.String(), cmd.ProcessState.ExitCode()}
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
	if r := runCLI(t, ws, "", "sandbox", "check"); r.code != 0 || !strings.Contains(r.stdout, "landlock: ABI") || !strings.Contains(r.stdout, "TIOCSTI") {
		t.Errorf("sandbox check: %+v", r)
	}
	var report sandbox.Report
	if r := runCLI(t, ws, "", "sandbox", "check", "--json"); r.code != 0 || json.Unmarshal([]byte(r.stdout), &report) != nil ||
		!report.Available || len(report.Seccomp) == 0 || len(report.Profiles) != 3 || len(report.Process) == 0 {
		t.Errorf("sandbox check --json: %+v\n%+v", r, report)
	}
	if want := []string{"user", "mount", "network", "pid", "ipc"}; !slices.Equal(report.Namespaces, want) {
		t.Errorf("sandbox check --json: namespaces %q, want %q", report.Namespaces, want)
	}
	for _, layer := range []string{"new session", "inherited descriptors", "launcher environment", "parent-death"} {
		if !strings.Contains(strings.Join(report.Process, "\n"), layer) {
			t.Errorf("sandbox check --json: the process layers do not name %q: %q", layer, report.Process)
		}
	}
	t.Setenv("QUIVER_SANDBOX_UNSUPPORTED", "Landlock (simulated: not in this kernel)")
	for _, args := range [][]string{{"sandbox", "check"}, {"sandbox", "--", "true"}, {"call", "exec_command", `{"argv":["true"]}`, "--yes"}} {
		r := runCLI(t, ws, "", args...)
		if r.code != 1 || !strings.Contains(r.stderr, "Landlock (simulated") || !strings.Contains(r.stderr, "[sandbox] disabled = true") {
			t.Errorf("%v without Landlock: exit %d, stderr %q; want 1 and the documented error", args, r.code, r.stderr)
		}
	}
}
