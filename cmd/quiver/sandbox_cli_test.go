package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
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
//
// Under read-only it runs what this runner adds to exec_command's, classes
// 1 to 4 (the launch from the user's terminal, with the user's
// environment and descriptors, and the processes left when quiver exits),
// and the first attempt of every other class, showing that the CLI's
// read-only profile reaches each layer. The profile is built by the same
// code for both runners, and TestSandboxEscapes (root package) runs every
// attempt under each scope through exec_command.
//
// Then as a kernel of Landlock ABI 4 and 5 would (6.7 to 6.11: no signal
// scope, and at 4 no device ioctl right), capped with
// QUIVER_SANDBOX_LANDLOCK_ABI: the attempts those rights would stop
// (signals to a host process, of class 2; the terminal, class 3) and
// the symbolic links to protected paths (class 10) still hold, the start
// not refused and `quiver sandbox check` reporting the capped ABI.
func TestSandboxCommandEscapes(t *testing.T) {
	t.Parallel()
	escapes := sandboxtest.LoadEscapes(t, "../../testdata/escapes.txt")
	every := func(sandboxtest.Escape) bool { return true }
	firsts := map[int]bool{}
	cliOwn := func(e sandboxtest.Escape) bool {
		first := !firsts[e.Class]
		firsts[e.Class] = true
		return e.Class >= 1 && e.Class <= 4 || first
	}
	olderABI := func(e sandboxtest.Escape) bool {
		return e.Class == 2 && strings.Contains(e.Command, "{PID}") || e.Class == 3 || e.Class == sandboxtest.ClassProtectedLink
	}
	for _, tc := range []struct {
		scope string
		abi   int // 0: the kernel's
		runs  func(sandboxtest.Escape) bool
	}{
		{"workspace-write", 0, every}, {"read-only", 0, cliOwn},
		{"workspace-write", 4, olderABI}, {"workspace-write", 5, olderABI},
	} {
		name, env := tc.scope, []string(nil)
		if tc.abi > 0 {
			name, env = fmt.Sprintf("%s, Landlock ABI %d", tc.scope, tc.abi), []string{fmt.Sprintf("QUIVER_SANDBOX_LANDLOCK_ABI=%d", tc.abi)}
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			w := sandboxtest.NewWatch(t)
			mustStart(t, w, env, quiverBin, "--write-scope", tc.scope, "sandbox", "--")
			if tc.abi > 0 {
				checkCapped(t, w, tc.abi, env)
			}
			for _, e := range escapes {
				if e.Class == sandboxtest.ClassClassifier || !tc.runs(e) {
					continue
				}
				ws := w.Workspace(t, e)
				r := runSandboxedEnv(t, w, ws, e, env, quiverBin, "--write-scope", tc.scope, "sandbox", "--")
				if what := w.TouchedIn(t, e, ws, r.stdout+r.stderr); what != "" {
					t.Errorf("class %d, %s (exit %d, %s): %s", e.Class, e.Name, r.code, r.stderr, what)
				}
			}
		})
	}
}

// mustStart fails the test unless `PROGRAM ARGS... true` succeeds as the
// attempts are run: a runner that refused every start would make every
// attempt look held.
func mustStart(t *testing.T, w *sandboxtest.Watch, env []string, program string, args ...string) {
	t.Helper()
	ws := w.Workspace(t, sandboxtest.Escape{})
	if r := runSandboxedEnv(t, w, ws, sandboxtest.Escape{Command: "true"}, env, program, args...); r.code != 0 {
		t.Fatalf("%s %v does not start a command (exit %d): %s", program, args, r.code, r.stderr)
	}
}

// checkCapped: under the cap env sets, quiver sandbox check reports
// Landlock ABI abi, available.
func checkCapped(t *testing.T, w *sandboxtest.Watch, abi int, env []string) {
	t.Helper()
	ws := w.Workspace(t, sandboxtest.Escape{})
	check := runSandboxedEnv(t, w, ws, sandboxtest.Escape{}, env, quiverBin, "sandbox", "check", "--json")
	var report sandbox.Report
	if err := json.Unmarshal([]byte(check.stdout), &report); err != nil || report.LandlockABI != abi || !report.Available {
		t.Fatalf("capped at ABI %d, quiver sandbox check says ABI %d, available %v (%v): %s", abi, report.LandlockABI, report.Available, err, check.stderr)
	}
}

// runSandboxed runs e in ws as `PROGRAM ARGS... [env K=V...] bash -c LINE`,
// started as the user starts it from a terminal (see sandboxtest.Watch's
// Prepare), with no configuration but the workspace's own.
func runSandboxed(t *testing.T, w *sandboxtest.Watch, ws string, e sandboxtest.Escape, program string, args ...string) cliResult {
	t.Helper()
	return runSandboxedEnv(t, w, ws, e, nil, program, args...)
}

// runSandboxedEnv is runSandboxed with env added to PROGRAM's environment;
// an e without a command runs PROGRAM ARGS alone. The user's configuration
// directory lies outside the workspace (see cliEnv): quiver refuses to
// start with one inside.
func runSandboxedEnv(t *testing.T, w *sandboxtest.Watch, ws string, e sandboxtest.Escape, env []string, program string, args ...string) cliResult {
	t.Helper()
	if len(e.Env) > 0 {
		args = append(append(args, "env"), w.ExpandEnv(e.Env)...)
	}
	if e.Command != "" {
		args = append(args, "bash", "-c", w.Expand(e.Command))
	}
	cmd := exec.Command(program, args...)
	cmd.Dir = ws
	cmd.Env = append(cliEnv(ws), env...)
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
// TestSandboxCommandOnGitHubWorkspace: on a GitHub workspace, whose
// toolkit workspace is the repository and has no directory, quiver sandbox
// runs its command in the directory on disk the sandbox is rooted in
// (--root), not where quiver was started.
func TestSandboxCommandOnGitHubWorkspace(t *testing.T) {
	srv := spec004Repo(t, "acme/product")
	root, elsewhere := t.TempDir(), t.TempDir()
	cfg := githubConfig(t, root, srv.URL)
	want, err := filepath.EvalSymlinks(root)
	if err != nil {
		t.Fatal(err)
	}
	r := runCLI(t, elsewhere, "", "--config", cfg, "--root", root, "sandbox", "--", "pwd")
	if r.code != 0 || strings.TrimSpace(r.stdout) != want {
		t.Errorf("quiver sandbox -- pwd: exit %d, %q, want %q\n%s", r.code, r.stdout, want, r.stderr)
	}
}

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
