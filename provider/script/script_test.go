package script_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/quiverkit/quiver"
	"github.com/quiverkit/quiver/policy"
	"github.com/quiverkit/quiver/policy/approve"
	"github.com/quiverkit/quiver/provider"
	"github.com/quiverkit/quiver/provider/builtin"
	"github.com/quiverkit/quiver/provider/providertest"
	"github.com/quiverkit/quiver/provider/script"
	"github.com/quiverkit/quiver/sandbox"
	"github.com/quiverkit/quiver/tool"
)

// scripts writes files (name -> content, mode) into a fresh workspace's
// .quiver/tools and returns a toolkit serving them, with every tool allowed.
func scripts(t *testing.T, files map[string]string, modes map[string]os.FileMode) (*quiver.Toolkit, *script.Provider, string) {
	t.Helper()
	root := t.TempDir()
	dir := filepath.Join(root, script.DefaultDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range files {
		mode, ok := modes[name]
		if !ok {
			mode = 0o755
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), mode); err != nil {
			t.Fatal(err)
		}
	}
	p := script.New(script.Options{Dir: dir})
	pol, err := policy.New(policy.Config{Default: policy.Allow}, sandbox.WorkspaceWrite)
	if err != nil {
		t.Fatal(err)
	}
	tk, err := quiver.New(quiver.WithRoot(root), builtin.Standard(), quiver.WithPolicy(pol), quiver.WithApprover(approve.Auto), quiver.WithProvider(p))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tk.Close() })
	return tk, p, root
}

const greet = `#!/bin/sh
# quiver: description Greets someone.
# quiver: param who string required Whom to greet.
# quiver: risk low
read -r args
printf 'hello %s in %s\n' "$args" "$(pwd)"
`

func TestScriptGetsJSONOnStdinAndRunsInTheRoot(t *testing.T) {
	tk, _, root := scripts(t, map[string]string{"greet.sh": greet}, nil)
	out, err := tk.Invoke(context.Background(), "greet", map[string]any{"who": "$(id); x"})
	if err != nil {
		t.Fatal(err)
	}
	real, _ := filepath.EvalSymlinks(root)
	if got, want := out.Content.String(), `hello {"who":"$(id); x"} in `+real+"\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if out.Provider != "script" {
		t.Errorf("served by %q", out.Provider)
	}
	if _, err := tk.Invoke(context.Background(), "greet", map[string]any{}); tool.CodeOf(err) != tool.CodeInvalidArguments {
		t.Errorf("missing required param: %v", err)
	}
}

func TestNonZeroExitIsAnErrorResultWithStderr(t *testing.T) {
	tk, _, _ := scripts(t, map[string]string{"fail": "#!/bin/sh\n# quiver: description Fails.\necho partial\necho broken >&2\nexit 3\n"}, nil)
	out, err := tk.Invoke(context.Background(), "fail", map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := out.Content.String(), "exit_code: 3\npartial\n\nstderr:\nbroken\n"; got != want || !out.Content.IsError {
		t.Errorf("got %q (is_error %v), want %q", got, out.Content.IsError, want)
	}
}

func TestScriptTimeoutKillsChildren(t *testing.T) {
	tk, _, _ := scripts(t, map[string]string{"hang": "#!/bin/sh\n# quiver: description Hangs.\n# quiver: timeout 1\nsleep 30 &\nsleep 30\n"}, nil)
	start := time.Now()
	_, err := tk.Invoke(context.Background(), "hang", map[string]any{})
	if tool.CodeOf(err) != tool.CodeTimeout {
		t.Fatalf("got %v, want TIMEOUT", err)
	}
	// Without the group kill the background sleep would hold the output
	// pipe and the call would last until the wait delay.
	if d := time.Since(start); d > 2500*time.Millisecond {
		t.Fatalf("returned after %s", d)
	}
}

func TestSkippedFilesAreReported(t *testing.T) {
	files := map[string]string{
		"ok.sh":         greet,
		"plain.sh":      greet,
		"noheader.sh":   "#!/bin/sh\necho hi\n",
		"bad.sh":        "#!/bin/sh\n# quiver: description x\n# quiver: param n list bad type\n",
		"my tool.v2.sh": "#!/bin/sh\n# quiver: description Sanitized.\necho ok\n",
		".hidden":       "ignored",
	}
	tk, p, _ := scripts(t, files, map[string]os.FileMode{"plain.sh": 0o644})
	tools, err := p.Tools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools {
		names = append(names, tl.Name)
	}
	if diff := cmp.Diff([]string{"my_tool_v2", "ok"}, names); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	want := []string{
		`bad.sh: line 3: param "n": type must be string, integer, number or boolean, not "list"`,
		`noheader.sh: no "# quiver:" header`,
		"plain.sh: not executable (chmod +x it)",
	}
	if diff := cmp.Diff(want, p.Skipped()); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
	if out, err := tk.Invoke(context.Background(), "my_tool_v2", map[string]any{}); err != nil || out.Content.String() != "ok\n" {
		t.Errorf("sanitized name: %q, %v", out.Content.String(), err)
	}
}

func TestOnlySkippedFilesIsAProviderError(t *testing.T) {
	_, p, _ := scripts(t, map[string]string{"noheader.sh": "#!/bin/sh\necho hi\n"}, nil)
	_, err := p.Tools(context.Background())
	if err == nil || !strings.Contains(err.Error(), "noheader.sh: no") {
		t.Fatalf("got %v, want an error naming noheader.sh", err)
	}
}

func TestMissingDirectoryIsNoTools(t *testing.T) {
	p := script.New(script.Options{Dir: filepath.Join(t.TempDir(), "absent")})
	tools, err := p.Tools(context.Background())
	if err != nil || len(tools) != 0 {
		t.Fatalf("got %d tools, %v", len(tools), err)
	}
}

func TestParseHeader(t *testing.T) {
	h, err := script.ParseHeader(strings.NewReader("#!/usr/bin/env python3\n#\n# quiver: description Line one.\n# quiver: description Line two.\n" +
		"# quiver: param path string required The file.\n# quiver: param n integer\n# quiver: risk low\n# quiver: timeout 5\nimport sys\n# quiver: risk high\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := script.Header{Description: "Line one.\nLine two.", Risk: tool.RiskLow, Timeout: 5 * time.Second,
		Params: []script.Param{{Name: "path", Type: "string", Required: true, Description: "The file."}, {Name: "n", Type: "integer"}}}
	if diff := cmp.Diff(want, h); diff != "" {
		t.Errorf("header (-want +got):\n%s", diff)
	}
	for _, bad := range []string{"# quiver: risk medium\n", "# quiver: description x\n# quiver: frobnicate\n", "# quiver: param x\n", "# quiver: param a string\n"} {
		if _, err := script.ParseHeader(strings.NewReader(bad)); err == nil {
			t.Errorf("header %q: no error", bad)
		}
	}
}

func TestName(t *testing.T) {
	for in, want := range map[string]string{"lint.sh": "lint", "run-tests": "run-tests", "a.b.py": "a_b", "été.sh": "__t__", strings.Repeat("x", 70) + ".sh": strings.Repeat("x", 64)} {
		if got := script.Name(in); got != want {
			t.Errorf("Name(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestContract: the provider keeps the contract the registry relies on,
// over a directory with a script of every parameter type, one whose file
// name is sanitized, and files it skips.
func TestContract(t *testing.T) {
	files := map[string]string{
		"greet":         greet,
		"count.py":      "#!/bin/sh\n# quiver: description Counts.\n# quiver: param path string required The file.\n# quiver: param n integer\n# quiver: param x number\n# quiver: param verbose boolean\n# quiver: timeout 5\ncat\n",
		"my tool.v2.sh": "#!/bin/sh\n# quiver: description Sanitized.\necho ok\n",
		"bad.sh":        "#!/bin/sh\n# quiver: description x\n# quiver: param n list bad type\n",
		"notes.txt":     "not a script\n",
	}
	providertest.Run(t, func(t *testing.T) provider.Provider {
		dir := t.TempDir()
		for name, body := range files {
			mode := os.FileMode(0o755)
			if name == "notes.txt" {
				mode = 0o644
			}
			if err := os.WriteFile(filepath.Join(dir, name), []byte(body), mode); err != nil {
				t.Fatal(err)
			}
		}
		return script.New(script.Options{Dir: dir, LowRisk: []string{"greet"}})
	})
}
