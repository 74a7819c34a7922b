//go:build unix

package shell

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/quiverkit/quiver/sandbox"
	"github.com/quiverkit/quiver/workspace"
)

// runEnv is a workspace, a gate, and a way to run command lines in them.
type runEnv struct {
	t    testing.TB
	dir  string
	ws   *workspace.Workspace
	gate *prefixGate
}

func newRunEnv(t testing.TB, allow ...string) *runEnv {
	t.Helper()
	dir := t.TempDir()
	ws, err := workspace.Open(dir, workspace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	return &runEnv{t: t, dir: ws.Dir(), ws: ws, gate: newGate(allow...)}
}

// syncBuffer is a bytes.Buffer safe to read while the run writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func (e *runEnv) spec(line string) Spec {
	env := sandbox.HostEnv(nil)
	return Spec{Command: line, Dir: e.dir, Env: env, BaseEnv: env, Workspace: e.ws, Gate: e.gate}
}

func (e *runEnv) runSpec(spec Spec, timeout time.Duration) (Outcome, string) {
	e.t.Helper()
	var out syncBuffer
	spec.Output = &out
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	o, err := Run(ctx, spec)
	if err != nil {
		e.t.Fatalf("Run(%q, %q): %v", spec.Command, spec.Argv, err)
	}
	return o, out.String()
}

func (e *runEnv) run(line string) (Outcome, string) {
	e.t.Helper()
	return e.runSpec(e.spec(line), hangGuard)
}

func (e *runEnv) write(rel, content string, mode os.FileMode) {
	e.t.Helper()
	p := filepath.Join(e.dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), mode); err != nil {
		e.t.Fatal(err)
	}
}

func (e *runEnv) exists(rel string) bool {
	_, err := os.Lstat(filepath.Join(e.dir, rel))
	return err == nil
}

func (e *runEnv) git(args ...string) {
	e.t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
	cmd.Dir = e.dir
	if out, err := cmd.CombinedOutput(); err != nil {
		e.t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// processesWith returns the pids of live processes whose command line
// contains marker.
func processesWith(t testing.TB, marker string) []int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		stat, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if i := bytes.LastIndexByte(stat, ')'); i > 0 && i+2 < len(stat) && stat[i+2] == 'Z' {
			continue // a zombie is dead; its parent has not reaped it yet
		}
		if strings.Contains(strings.ReplaceAll(string(cmdline), "\x00", " "), marker) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// hangGuard bounds what must happen eventually (a killed process reaped, a
// timeout acting): long enough that a loaded machine never reaches it, so
// that reaching it means a hang, never that the machine was slow.
const hangGuard = time.Minute

// wantNoProcesses fails if processes with marker are alive once the kernel
// has had time to reap what was killed (hangGuard).
func wantNoProcesses(t testing.TB, marker string) {
	t.Helper()
	deadline := time.Now().Add(hangGuard)
	for {
		pids := processesWith(t, marker)
		if len(pids) == 0 {
			return
		}
		if time.Now().After(deadline) {
			for _, pid := range pids {
				syscall.Kill(pid, syscall.SIGKILL)
			}
			t.Fatalf("processes %v (%q) outlived the run", pids, marker)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestRunAcceptance(t *testing.T) {
	e := newRunEnv(t, "git status")
	e.git("init", "-q")
	e.write("x/keep", "precious\n", 0o644)

	o, out := e.run("git status")
	if o.ExitCode != 0 || o.Stop != Finished || !strings.Contains(out, "No commits yet") {
		t.Fatalf("git status: %+v\n%s", o, out)
	}
	for _, line := range []string{
		"git status && rm -rf x",
		"git status; $(echo rm) -rf x",
		`eval "rm -rf x"`,
		"X=rm; $X -rf x",
		"git status | sh",
	} {
		t.Run(line, func(t *testing.T) {
			o, out := e.run(line)
			if o.Stop != Refused || o.ExitCode != 126 || len(o.Refused) == 0 {
				t.Errorf("%q: %+v\n%s", line, o, out)
			}
			if !strings.Contains(out, "quiver: refused:") {
				t.Errorf("%q: output does not say what was refused:\n%s", line, out)
			}
			if !e.exists("x/keep") {
				t.Fatalf("%q removed x", line)
			}
		})
	}
}

func TestRunChecksWhatActuallyRuns(t *testing.T) {
	tests := []struct {
		name    string
		allow   []string
		setup   func(e *runEnv)
		line    string
		refused string
	}{
		{name: "a function's body", line: "f() { rm -rf x; }; f", refused: "rm -rf x"},
		{name: "command builtin", line: "command rm -rf x", refused: "rm -rf x"},
		{name: "exec builtin", line: "exec rm -rf x", refused: "rm -rf x"},
		{name: "exit trap", allow: []string{"echo"}, line: "trap 'rm -rf x' EXIT; echo hi", refused: "rm -rf x"},
		{name: "sourced file", setup: func(e *runEnv) { e.write("s.sh", "rm -rf x\n", 0o644) }, line: "source s.sh", refused: "rm -rf x"},
		{name: "script without #! runs in the checked shell", allow: []string{"./noshebang"},
			setup: func(e *runEnv) { e.write("noshebang", "rm -rf x\n", 0o755) }, line: "./noshebang", refused: "rm -rf x"},
		{name: "env wrapper", allow: []string{"env"}, line: "env rm -rf x", refused: "env rm -rf x"},
		{name: "xargs wrapper", allow: []string{"xargs"}, line: "xargs rm -rf x", refused: "xargs rm -rf x"},
		{name: "bash -c", allow: []string{"bash"}, line: "bash -c 'rm -rf x'", refused: "bash -c 'rm -rf x'"},
		{name: "find -exec", allow: []string{"find"}, line: "find . -maxdepth 0 -exec rm -rf x ';'", refused: "find"},
		{name: "a program of the workspace's named like an allowed one", allow: []string{"git status"},
			setup: func(e *runEnv) { e.write("bin/git", "#!/bin/sh\nrm -rf x\n", 0o755) },
			line:  "PATH=$PWD/bin:$PATH git status", refused: "git status"},
		{name: "a program started outside the workspace", allow: []string{"ls"}, line: "cd / && ls", refused: "ls"},
		{name: "a changed variable that makes git run code", allow: []string{"git status"},
			line:    "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor GIT_CONFIG_VALUE_0='rm -rf x' git status",
			refused: "git status"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newRunEnv(t, tt.allow...)
			e.write("x/keep", "precious\n", 0o644)
			if tt.setup != nil {
				tt.setup(e)
			}
			o, out := e.run(tt.line)
			if o.Stop != Refused || len(o.Refused) != 1 || !strings.HasPrefix(o.Refused[0].Command, tt.refused) {
				t.Errorf("%q: %+v\n%s", tt.line, o, out)
			}
			if !e.exists("x/keep") {
				t.Fatalf("%q removed x", tt.line)
			}
		})
	}
}

func TestRunGateSeesEveryForm(t *testing.T) {
	e := newRunEnv(t, "git status")
	e.git("init", "-q")
	e.write("bin/git", "#!/bin/sh\necho fake\n", 0o755)
	e.run("PATH=$PWD/bin:$PATH git status")
	e.run("GIT_DIR=.git git status")
	want := [][]string{
		{"git", "status"}, {"./bin/git", "status"},
		{"git", "status"}, {"GIT_DIR=.git", "git", "status"},
	}
	if diff := cmp.Diff(want, e.gate.asked); diff != "" {
		t.Errorf("the gate was asked (-want +got):\n%s", diff)
	}
}

func TestRunRefusalStopsTheRun(t *testing.T) {
	e := newRunEnv(t, "echo")
	o, out := e.run("echo before; rm x; echo after")
	if o.ExitCode != 126 || o.Stop != Refused || strings.Contains(out, "after") || !strings.Contains(out, "before") {
		t.Errorf("%+v\n%s", o, out)
	}
	want := []Refusal{{Command: "rm x", Reason: `command "rm x" refused by policy: no allow rule names it`}}
	if diff := cmp.Diff(want, o.Refused); diff != "" {
		t.Errorf("refused (-want +got):\n%s", diff)
	}
}

func TestRunBuiltinsAreNotAskedAbout(t *testing.T) {
	e := newRunEnv(t)
	o, out := e.run("echo hi; cd .; pwd >/dev/null; X=1; test $X = 1 && printf '%s\\n' ok")
	if o.ExitCode != 0 || out != "hi\nok\n" || len(e.gate.asked) != 0 {
		t.Errorf("%+v %q, gate asked %q", o, out, e.gate.asked)
	}
}

func TestRunFailsClosedWithoutAGate(t *testing.T) {
	e := newRunEnv(t)
	spec := e.spec("echo hi")
	spec.Gate = nil
	spec.Output = &bytes.Buffer{}
	if _, err := Run(context.Background(), spec); err == nil {
		t.Fatal("Run without a gate ran")
	}
}

func TestRunRedirections(t *testing.T) {
	outside := t.TempDir()
	tests := []struct {
		name      string
		setup     func(e *runEnv)
		line      string
		wantCode  int
		wantOut   string // a substring
		wantFile  string // a file that must exist afterwards, relative to the workspace
		wantWrite []string
	}{
		{name: "a write inside the workspace is asked about and done", line: "echo hi > ok.txt", wantFile: "ok.txt", wantWrite: []string{"ok.txt"}},
		{name: "relative to the shell's directory", setup: func(e *runEnv) { e.write("sub/.keep", "", 0o644) },
			line: "cd sub && echo hi >> ok.log", wantFile: "sub/ok.log", wantWrite: []string{"sub/ok.log"}},
		{name: "a write the gate refuses", line: "echo hi > secret.txt", wantCode: 126, wantOut: "writing secret.txt refused", wantWrite: []string{"secret.txt"}},
		{name: "a write outside the workspace", line: "echo hi > ../escape", wantCode: 126, wantOut: "outside the workspace"},
		{name: "a write through a symlink that leads out is refused",
			setup: func(e *runEnv) { os.Symlink(outside, filepath.Join(e.dir, "out")) },
			line:  "echo hi > out/ok.x", wantCode: 126, wantOut: "goes through a symbolic link", wantWrite: []string{"out/ok.x"}},
		{name: "a read outside the workspace", line: "cat < /etc/hostname", wantCode: 1, wantOut: "outside the workspace"},
		{name: "a write to a FIFO does not hang",
			setup: func(e *runEnv) { syscall.Mkfifo(filepath.Join(e.dir, "ok.fifo"), 0o644) },
			line:  "echo hi > ok.fifo", wantCode: 1, wantOut: "ok.fifo", wantWrite: []string{"ok.fifo"}},
		{name: "/dev/null needs no asking", line: "echo hi > /dev/null 2>&1"},
		{name: "reading a file inside", setup: func(e *runEnv) { e.write("in.txt", "data\n", 0o644) }, line: "read x < in.txt; echo got $x", wantOut: "got data"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newRunEnv(t, "cat")
			e.gate.allowWrites("ok", "sub/ok", "out/ok")
			if tt.setup != nil {
				tt.setup(e)
			}
			o, out := e.run(tt.line)
			if o.ExitCode != tt.wantCode || !strings.Contains(out, tt.wantOut) {
				t.Errorf("%q: %+v\n%s", tt.line, o, out)
			}
			if tt.wantFile != "" && !e.exists(tt.wantFile) {
				t.Errorf("%q did not write %s", tt.line, tt.wantFile)
			}
			if diff := cmp.Diff(tt.wantWrite, e.gate.writes_); diff != "" {
				t.Errorf("writes asked about (-want +got):\n%s", diff)
			}
			if entries, _ := os.ReadDir(outside); len(entries) != 0 {
				t.Errorf("%q wrote outside the workspace: %v", tt.line, entries)
			}
		})
	}
}

func TestRunStdinIsEmpty(t *testing.T) {
	e := newRunEnv(t, "cat", "sh")
	start := time.Now()
	o, out := e.run("cat; sh -c 'read line; echo status $?'; read x; echo builtin $?")
	if o.ExitCode != 0 || out != "status 1\nbuiltin 1\n" || time.Since(start) > hangGuard {
		t.Errorf("%+v %q", o, out)
	}
}

func TestRunEnvironment(t *testing.T) {
	t.Setenv("QUIVER_TEST_SECRET", "hunter2")
	e := newRunEnv(t, "printenv")
	o, out := e.run("printenv QUIVER_TEST_SECRET; echo $?")
	if out != "1\n" {
		t.Errorf("a secret in the host's environment reached the command: %+v %q", o, out)
	}
	spec := e.spec("printenv QUIVER_TEST_SECRET")
	spec.Env = sandbox.BaseEnv(os.Environ(), []string{"QUIVER_TEST_*"})
	if _, out := e.runSpec(spec, hangGuard); out != "hunter2\n" {
		t.Errorf("an allowed variable did not: %q", out)
	}
}

func TestRunOutputInterleavesAndExitCodes(t *testing.T) {
	tests := []struct {
		line     string
		wantCode int
		wantOut  string
	}{
		{"echo out; echo err >&2; echo out2", 0, "out\nerr\nout2\n"},
		{"sh -c 'echo a; echo b >&2; echo c'", 0, "a\nb\nc\n"},
		{"exit 3", 3, ""},
		{"sh -c 'exit 7'", 7, ""},
		{"sh -c 'kill -9 $$'", 137, ""}, // kill is allowed: the inner shell's builtins other than its own plumbing are asked about
		{"sh -c 'exec >&- 2>&-; sleep 0.1; exit 4'", 4, ""},
		{"printf 'a\\0b\\377'", 0, "a\x00b\xff"},
		{"no-such-program-quiver", 127, "no-such-program-quiver: command not found\n"},
		{"echo 'a'; ./dir", 126, "a\n./dir: is a directory\n"},
		{"./dir/f", 126, "./dir/f: permission denied\n"},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			e := newRunEnv(t, "sh", "no-such-program-quiver", "./dir", "./dir/f", "echo", "kill", "sleep")
			e.write("dir/f", "", 0o644)
			o, out := e.run(tt.line)
			if o.ExitCode != tt.wantCode || out != tt.wantOut || o.Stop != Finished {
				t.Errorf("%q: exit %d stop %q output %q; want exit %d output %q", tt.line, o.ExitCode, o.Stop, out, tt.wantCode, tt.wantOut)
			}
		})
	}
}

func TestRunArgv(t *testing.T) {
	e := newRunEnv(t, "sh", "echo")
	spec := e.spec("")
	spec.Argv = []string{"sh", "-c", "echo $0-$1", "a b", "c"}
	if o, out := e.runSpec(spec, hangGuard); o.ExitCode != 0 || out != "a b-c\n" {
		t.Errorf("argv: %+v %q", o, out)
	}
	spec.Argv = []string{"rm", "-rf", "x"}
	if o, _ := e.runSpec(spec, hangGuard); o.Stop != Refused || o.ExitCode != 126 {
		t.Errorf("refused argv: %+v", o)
	}
	spec.Argv = []string{"no-such-program-quiver"}
	if o, _ := e.runSpec(spec, hangGuard); o.ExitCode != 127 {
		t.Errorf("missing program: %+v", o)
	}
}

func TestRunTimeoutKillsTheTree(t *testing.T) {
	e := newRunEnv(t, "sleep", "sh", "echo")
	start := time.Now()
	o, out := e.runSpec(e.spec("echo started; sleep 1000.271 & sh -c 'sleep 1000.272 & sleep 1000.273'"), 500*time.Millisecond)
	if o.Stop != TimedOut || o.ExitCode != -1 || out != "started\n" {
		t.Errorf("%+v %q", o, out)
	}
	if d := time.Since(start); d > hangGuard {
		t.Errorf("the timeout took %v to act", d)
	}
	wantNoProcesses(t, "sleep 1000.27")
}

func TestRunLeavesNoOrphans(t *testing.T) {
	e := newRunEnv(t, "sleep", "sh")
	// Background statements of the shell, and children a program forks and
	// leaves behind when it exits, are killed when the run ends.
	o, out := e.run("sleep 1000.281 & sh -c 'sleep 1000.282 & echo forked'; sleep 0.2")
	if o.ExitCode != 0 || o.Stop != Finished || out != "forked\n" {
		t.Errorf("%+v %q", o, out)
	}
	wantNoProcesses(t, "sleep 1000.28")
}

func TestRunKillsProgramsThatLeftTheGroup(t *testing.T) {
	e := newRunEnv(t, "setsid", "sh", "sleep")
	start := time.Now()
	o, out := e.run("setsid sleep 1000.291 & sh -c 'setsid sleep 1000.292 &'; sleep 0.2")
	if o.ExitCode != 0 || out != "" {
		t.Errorf("%+v %q", o, out)
	}
	if d := time.Since(start); d > hangGuard {
		t.Errorf("the run took %v: it waited for the strays' output", d)
	}
	wantNoProcesses(t, "sleep 1000.29")
}

func TestRunTimeoutKillsAProgramThatLeftTheGroup(t *testing.T) {
	// /bin/true leads the group, so setsid needs no fork: the program the
	// run waits for is the one that left the group.
	e := newRunEnv(t, "/bin/true", "setsid", "sh", "sleep")
	start := time.Now()
	o, _ := e.runSpec(e.spec("/bin/true; setsid sleep 1000.295; sh -c 'setsid sleep 1000.296'"), 500*time.Millisecond)
	if o.Stop != TimedOut {
		t.Errorf("%+v", o)
	}
	if d := time.Since(start); d > hangGuard {
		t.Errorf("the run took %v to stop", d)
	}
	wantNoProcesses(t, "sleep 1000.29")
}

func TestRunTimeoutStopsABuiltinLoop(t *testing.T) {
	e := newRunEnv(t)
	o, _ := e.runSpec(e.spec("while true; do :; done"), 300*time.Millisecond)
	if o.Stop != TimedOut {
		t.Errorf("%+v", o)
	}
}

func TestRunCaptureIsBounded(t *testing.T) {
	e := newRunEnv(t, "yes", "echo")
	o, out := e.run("x=$(yes); echo ${#x}")
	n, _ := strconv.Atoi(strings.TrimSpace(out[strings.LastIndexByte(strings.TrimSpace(out), '\n')+1:]))
	if o.ExitCode != 0 || !strings.Contains(out, "exceeds 16 MiB") || n < 16<<20-1 || n > 16<<20 {
		t.Errorf("%+v %q", o, out)
	}
}

func TestRunKeepsTheHostHealthy(t *testing.T) {
	e := newRunEnv(t, "true", "/bin/true", "sh", "cat", "sleep", "no-such-program-quiver")
	run := func(i int) {
		switch i % 5 {
		case 0:
			e.run("true")
		case 1:
			spec := e.spec("")
			spec.Argv = []string{"/bin/true"}
			e.runSpec(spec, hangGuard)
		case 2:
			e.run("echo x | cat >/dev/null; x=$(sh -c 'echo y')")
		case 3:
			e.run("sleep 1000.391 & no-such-program-quiver")
		case 4:
			e.run("rm refused")
		}
	}
	run(0) // warm up lazily started runtime goroutines
	goroutines, fds := runtime.NumGoroutine(), openFDs(t)
	for i := range 200 {
		run(i)
	}
	wantNoProcesses(t, "sleep 1000.391")
	deadline := time.Now().Add(hangGuard)
	for runtime.NumGoroutine() > goroutines && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if g := runtime.NumGoroutine(); g > goroutines {
		buf := make([]byte, 1<<20)
		t.Errorf("goroutines: %d before 200 runs, %d after\n%s", goroutines, g, buf[:runtime.Stack(buf, true)])
	}
	if n := openFDs(t); n > fds {
		t.Errorf("open file descriptors: %d before 200 runs, %d after", fds, n)
	}
}

func openFDs(t testing.TB) int {
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(entries)
}
