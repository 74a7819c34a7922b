package custom_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/quiverkit/quiver"
	"github.com/quiverkit/quiver/policy"
	"github.com/quiverkit/quiver/policy/approve"
	"github.com/quiverkit/quiver/provider"
	"github.com/quiverkit/quiver/provider/builtin"
	"github.com/quiverkit/quiver/provider/custom"
	"github.com/quiverkit/quiver/provider/providertest"
	"github.com/quiverkit/quiver/sandbox"
	"github.com/quiverkit/quiver/tool"
)

// toolkit builds a toolkit over a temporary workspace serving defs, with a
// policy that allows only what allow names (and denies the rest).
func toolkit(t *testing.T, defs []custom.Spec, allow ...string) (*quiver.Toolkit, string) {
	t.Helper()
	dir := t.TempDir()
	p, err := custom.New(defs, custom.Options{})
	if err != nil {
		t.Fatal(err)
	}
	pol, err := policy.New(policy.Config{Default: policy.Deny, Allow: allow}, sandbox.WorkspaceWrite)
	if err != nil {
		t.Fatal(err)
	}
	tk, err := quiver.New(quiver.WithRoot(dir), builtin.Standard(), quiver.WithPolicy(pol), quiver.WithApprover(approve.Deny), quiver.WithProvider(p))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tk.Close() })
	return tk, dir
}

var say = custom.Spec{Name: "say", Command: "echo {text}", Description: "Echo text",
	Params: []custom.Param{{Name: "text", Type: "string", Required: true}}}

func TestInjectionAttemptsReachTheProgramAsOneWord(t *testing.T) {
	tk, _ := toolkit(t, []custom.Spec{say}, "say")
	for _, v := range []string{"; rm -rf x", "$(id)", "`id`", "a  b | c > d", "{text}", "it's \"quoted\""} {
		out, err := tk.Invoke(context.Background(), "say", map[string]any{"text": v})
		if err != nil {
			t.Fatalf("%q: %v", v, err)
		}
		if got, want := out.Content.String(), "exit_code: 0\n"+v+"\n"; got != want {
			t.Errorf("value %q: got %q, want %q", v, got, want)
		}
	}
}

func TestPolicyRulesMatchTheCommandLine(t *testing.T) {
	tk, _ := toolkit(t, []custom.Spec{say}, "say(echo hello *)")
	if _, err := tk.Invoke(context.Background(), "say", map[string]any{"text": "hello world"}); err != nil {
		t.Fatalf("allowed call: %v", err)
	}
	_, err := tk.Invoke(context.Background(), "say", map[string]any{"text": "goodbye"})
	if tool.CodeOf(err) != tool.CodeToolNotAllowed {
		t.Fatalf("call outside the rule: %v, want %s", err, tool.CodeToolNotAllowed)
	}
}

func TestOptionValuesRefusedUnlessAllowed(t *testing.T) {
	defs := []custom.Spec{say, {Name: "show", Command: "ls {flags} .",
		Params: []custom.Param{{Name: "flags", AllowOptions: true}}}}
	tk, _ := toolkit(t, defs, "say", "show")
	_, err := tk.Invoke(context.Background(), "say", map[string]any{"text": "--output=/etc/x"})
	if tool.CodeOf(err) != tool.CodeInvalidArguments || !strings.Contains(err.Error(), `"text"`) {
		t.Fatalf("option value: %v, want INVALID_ARGUMENTS naming text", err)
	}
	if _, err := tk.Invoke(context.Background(), "show", map[string]any{"flags": "-a"}); err != nil {
		t.Fatalf("allow_options: %v", err)
	}
}

func TestNonZeroExitIsAResultWithOutput(t *testing.T) {
	tk, _ := toolkit(t, []custom.Spec{{Name: "look", Command: "ls {path}", Risk: "low",
		Params: []custom.Param{{Name: "path", Required: true}}}}, "look")
	out, err := tk.Invoke(context.Background(), "look", map[string]any{"path": "missing.txt"})
	if err != nil {
		t.Fatal(err)
	}
	got := out.Content.String()
	if !strings.HasPrefix(got, "exit_code: 2\n") || !strings.Contains(got, "missing.txt") {
		t.Fatalf("got %q, want exit code 2 and ls's complaint", got)
	}
}

func TestTypedParamsBecomeWords(t *testing.T) {
	tk, _ := toolkit(t, []custom.Spec{{Name: "args", Command: "printf '%s|' {n} {x} {b} {mode}",
		Params: []custom.Param{{Name: "n", Type: "integer"}, {Name: "x", Type: "number"},
			{Name: "b", Type: "boolean"}, {Name: "mode", Enum: []string{"fast", "slow"}}}}}, "args")
	out, err := tk.Invoke(context.Background(), "args", json.RawMessage(`{"n":42,"x":1.5,"b":true,"mode":"fast"}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := out.Content.String(); got != "exit_code: 0\n42|1.5|true|fast|" {
		t.Errorf("got %q", got)
	}
	if _, err := tk.Invoke(context.Background(), "args", json.RawMessage(`{"mode":"other"}`)); tool.CodeOf(err) != tool.CodeInvalidArguments {
		t.Errorf("value outside the enum: %v", err)
	}
	if _, err := tk.Invoke(context.Background(), "args", json.RawMessage(`{"extra":1}`)); tool.CodeOf(err) != tool.CodeInvalidArguments {
		t.Errorf("undeclared argument: %v", err)
	}
}

func TestRunsInWorkdirWithMinimalEnvironment(t *testing.T) {
	t.Setenv("QUIVER_TEST_SECRET", "hunter2")
	tk, dir := toolkit(t, []custom.Spec{{Name: "where", Command: "sh -c 'pwd; env'", Workdir: "sub"}}, "where")
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	out, err := tk.Invoke(context.Background(), "where", map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	got := out.Content.String()
	real, _ := filepath.EvalSymlinks(dir)
	if !strings.Contains(got, filepath.Join(real, "sub")+"\n") || strings.Contains(got, "hunter2") || !strings.Contains(got, "PATH=") {
		t.Fatalf("want the sub directory, PATH and no secret; got %q", got)
	}
}

func TestTimeoutKillsTheProcessGroup(t *testing.T) {
	// The timeout must fire after the background sleep started, or there
	// is nothing to kill: a loaded machine may take longer than a short
	// timeout to start the shell, so the timeout grows until it did.
	var nap, dir string
	for _, secs := range []int{1, 4, 16} {
		nap = uniqueNap()
		var tk *quiver.Toolkit
		tk, dir = toolkit(t, []custom.Spec{{Name: "hang", Timeout: time.Duration(secs) * time.Second,
			Command: `sh -c 'sleep ` + nap + ` & echo $! > child.pid; wait'`}}, "hang")
		_, err := tk.Invoke(context.Background(), "hang", map[string]any{})
		if tool.CodeOf(err) != tool.CodeTimeout {
			t.Fatalf("got %v, want %s", err, tool.CodeTimeout)
		}
		if _, err := os.Stat(filepath.Join(dir, "child.pid")); err == nil {
			break
		}
	}
	if _, err := os.ReadFile(filepath.Join(dir, "child.pid")); err != nil {
		t.Fatalf("the background sleep never started: %v", err)
	}
	// A hang guard, not a measure: the kill is immediate.
	for deadline := time.Now().Add(time.Minute); running(nap); {
		if time.Now().After(deadline) {
			t.Fatalf("the background sleep %s outlived the timeout", nap)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// alive reports whether pid is a running (not zombie) process.
// uniqueNap is a duration for sleep that no other process uses, by which
// running finds it: the pid a confined program sees is its PID namespace's,
// not the host's.
func uniqueNap() string {
	return "30." + strconv.FormatInt(time.Now().UnixNano()%1e9, 10)
}

// running reports whether a live process has arg among its arguments.
func running(arg string) bool {
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		stat, _ := os.ReadFile("/proc/" + e.Name() + "/stat")
		cmdline, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		_, state, _ := strings.Cut(string(stat), ") ")
		if !strings.HasPrefix(state, "Z") && slices.Contains(strings.Split(string(cmdline), "\x00"), arg) {
			return true
		}
	}
	return false
}

func TestCancellationIsReported(t *testing.T) {
	tk, _ := toolkit(t, []custom.Spec{{Name: "nap", Command: "sleep 30"}}, "nap")
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_, err := tk.Invoke(ctx, "nap", map[string]any{})
	if c := tool.CodeOf(err); c != tool.CodeCancelled && c != tool.CodeTimeout {
		t.Fatalf("got %v, want CANCELLED or TIMEOUT", err)
	}
}

func TestLoadErrorsNameTheTool(t *testing.T) {
	p := func(names ...string) []custom.Param {
		var out []custom.Param
		for _, n := range names {
			out = append(out, custom.Param{Name: n})
		}
		return out
	}
	for _, tc := range []struct {
		name string
		defs []custom.Spec
		want string
	}{
		{"bad template", []custom.Spec{{Name: "a", Command: "echo {x} | wc", Params: p("x")}}, "(a): command template"},
		{"duplicate", []custom.Spec{{Name: "a", Command: "true"}, {Name: "a", Command: "true"}}, "(a): duplicate"},
		{"unknown placeholder", []custom.Spec{{Name: "b", Command: "echo {y}"}}, "(b): command uses {y}"},
		{"unused param", []custom.Spec{{Name: "c", Command: "echo", Params: p("z")}}, `(c): parameter "z" is never used`},
		{"bad name", []custom.Spec{{Name: "has space", Command: "true"}}, "(has space): name"},
		{"bad risk", []custom.Spec{{Name: "d", Command: "true", Risk: "medium"}}, "(d): risk"},
		{"bad type", []custom.Spec{{Name: "e", Command: "echo {x}", Params: []custom.Param{{Name: "x", Type: "array"}}}}, `(e): parameter "x": type`},
		{"workdir outside", []custom.Spec{{Name: "f", Command: "true", Workdir: "../up"}}, "(f): workdir"},
		{"enum on integer", []custom.Spec{{Name: "g", Command: "echo {x}", Params: []custom.Param{{Name: "x", Type: "integer", Enum: []string{"1"}}}}}, "(g): parameter \"x\": enum"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := custom.New(tc.defs, custom.Options{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

func TestSchemaFromParams(t *testing.T) {
	p, err := custom.New([]custom.Spec{{Name: "s", Command: "x {a} {b}", Params: []custom.Param{
		{Name: "a", Required: true, Enum: []string{"p", "q"}, Description: "A"}, {Name: "b", Type: "integer"}}}}, custom.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tools, _ := p.Tools(context.Background())
	s := tools[0].InputSchema
	if diff := cmp.Diff([]string{"a"}, s.Required); diff != "" {
		t.Error(diff)
	}
	if s.AdditionalProperties == nil || s.AdditionalProperties.Not == nil {
		t.Error("additionalProperties is not false")
	}
	if got := s.Properties["a"]; got.Type != "string" || len(got.Enum) != 2 || got.Description != "A" {
		t.Errorf("a: %+v", got)
	}
	if tools[0].Risk != tool.RiskHigh {
		t.Errorf("risk %q, want high by default", tools[0].Risk)
	}
}

func TestChildLeftHoldingTheOutputIsKilled(t *testing.T) {
	nap := uniqueNap()
	tk, dir := toolkit(t, []custom.Spec{{Name: "bg", Command: `sh -c 'sleep ` + nap + ` & echo $! > child.pid; echo started'`}}, "bg")
	out, err := tk.Invoke(context.Background(), "bg", map[string]any{})
	if err != nil || out.Content.String() != "exit_code: 0\nstarted\n" {
		t.Fatalf("got %q, %v", out.Content.String(), err)
	}
	if _, err := os.ReadFile(filepath.Join(dir, "child.pid")); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(5 * time.Second); running(nap); {
		if time.Now().After(deadline) {
			t.Fatalf("the background sleep %s outlived its command", nap)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// BenchmarkInvokeCustom measures a whole custom call through the pipeline:
// schema validation, policy on the command line, fork/exec of echo.
func BenchmarkInvokeCustom(b *testing.B) {
	p, err := custom.New([]custom.Spec{say}, custom.Options{})
	if err != nil {
		b.Fatal(err)
	}
	pol, _ := policy.New(policy.Config{Default: policy.Deny, Allow: []string{"say(echo *)"}}, sandbox.WorkspaceWrite)
	tk, err := quiver.New(quiver.WithRoot(b.TempDir()), builtin.Standard(), quiver.WithPolicy(pol), quiver.WithProvider(p))
	if err != nil {
		b.Fatal(err)
	}
	defer tk.Close()
	args := map[string]any{"text": "hello world"}
	for b.Loop() {
		if _, err := tk.Invoke(context.Background(), "say", args); err != nil {
			b.Fatal(err)
		}
	}
}

// TestContract: the provider keeps the contract the registry relies on,
// with a tool of every parameter type.
func TestContract(t *testing.T) {
	defs := []custom.Spec{say, {Name: "args", Command: "printf '%s|' {n} {x} {b} {mode} {flags}", Risk: "low", Workdir: "sub",
		Params: []custom.Param{{Name: "n", Type: "integer", Required: true}, {Name: "x", Type: "number"},
			{Name: "b", Type: "boolean"}, {Name: "mode", Enum: []string{"fast", "slow"}}, {Name: "flags", AllowOptions: true}}},
		{Name: "nap", Command: "sleep 30", Timeout: time.Second}}
	providertest.Run(t, func(t *testing.T) provider.Provider {
		p, err := custom.New(defs, custom.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return p
	})
}
