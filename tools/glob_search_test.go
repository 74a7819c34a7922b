package tools_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/quiverkit/quiver"
	"github.com/quiverkit/quiver/policy"
	"github.com/quiverkit/quiver/provider/builtin"
	"github.com/quiverkit/quiver/provider/cli"
	"github.com/quiverkit/quiver/tool"
	"github.com/quiverkit/quiver/tools"
	"github.com/quiverkit/quiver/workspace"
)

func TestGlobSearchNewestFirst(t *testing.T) {
	dir := writeSearchFixture(t)
	for name, tk := range searchBackends(t, dir) {
		t.Run(name, func(t *testing.T) {
			out, err := quiver.Call(context.Background(), tk, tools.GlobSearch, tools.GlobSearchInput{Pattern: "**/*.go", MaxResults: 3})
			if err != nil {
				t.Fatal(err)
			}
			// link.go is a symlink made last; server_test.go was written
			// after server.go, which was written after main.go.
			want := &tools.GlobSearchOutput{Files: []string{"link.go", "server/server_test.go", "server/server.go"}, Total: 4, Truncated: true}
			if diff := cmp.Diff(want, out); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestGlobSearchRefusesBadInput(t *testing.T) {
	dir := writeSearchFixture(t)
	tests := []struct {
		name string
		args string
		code tool.Code
		hint string
	}{
		{"absolute pattern", `{"pattern":"/etc/*"}`, tool.CodeInvalidArguments, "absolute"},
		{"pattern climbing out", `{"pattern":"../*"}`, tool.CodeInvalidArguments, "climbs out"},
		{"pattern climbing out midway", `{"pattern":"a/../../*"}`, tool.CodeInvalidArguments, "climbs out"},
		{"invalid pattern", `{"pattern":"[a-"}`, tool.CodeInvalidArguments, "invalid glob pattern"},
		{"unclosed brace", `{"pattern":"*.{go"}`, tool.CodeInvalidArguments, "invalid glob pattern"},
		{"empty pattern", `{"pattern":""}`, tool.CodeInvalidArguments, "pattern"},
		{"base_dir outside", `{"pattern":"*","base_dir":"../"}`, tool.CodeSandboxViolation, "outside the workspace"},
		{"base_dir a file", `{"pattern":"*","base_dir":"go.mod"}`, tool.CodeExecutionFailed, "not a directory"},
		{"base_dir missing", `{"pattern":"*","base_dir":"nowhere"}`, tool.CodeNotFound, "no such file"},
		{"max_results too large", `{"pattern":"*","max_results":100000}`, tool.CodeInvalidArguments, "max_results"},
	}
	for name, tk := range searchBackends(t, dir) {
		for _, tt := range tests {
			t.Run(name+" "+tt.name, func(t *testing.T) {
				_, err := tk.Invoke(context.Background(), "glob_search", json.RawMessage(tt.args))
				wantCode(t, err, tt.code, tt.hint)
			})
		}
	}
}

// TestSearchesStayInsideAnUnrestrictedWorkspace: the unrestricted write
// scope lets file tools reach absolute paths outside the workspace; the
// search tools stay inside it on every backend.
func TestSearchesStayInsideAnUnrestrictedWorkspace(t *testing.T) {
	dir := writeSearchFixture(t)
	for name := range searchBackends(t, dir) {
		opts := []quiver.Option{builtin.Standard(), quiver.WithPolicy(policy.AllowAll()), quiver.WithWorkspace(openUnrestricted(t, dir))}
		if name == "cli" {
			opts = append(opts, quiver.WithProvider(cli.New(cli.Options{})))
		}
		tk, err := quiver.New(opts...)
		if err != nil {
			t.Fatal(err)
		}
		defer tk.Close()
		for _, c := range []struct{ tool, args string }{
			{"grep_search", `{"pattern":"root","path":"/etc"}`},
			{"glob_search", `{"pattern":"*","base_dir":"/etc"}`},
		} {
			_, err := tk.Invoke(context.Background(), c.tool, json.RawMessage(c.args))
			wantCode(t, err, tool.CodeInvalidArguments, "searches stay inside it")
		}
	}
}

func openUnrestricted(t *testing.T, dir string) *workspace.Workspace {
	t.Helper()
	ws, err := workspace.Open(dir, workspace.Options{AllowOutside: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	return ws
}

// TestGlobSearchNameOrPath: a pattern without a '/' matches names at any
// depth (as find -name and fd -g do); one with a '/' is anchored at
// base_dir. Both backends.
func TestGlobSearchNameOrPath(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"App.tsx", "src/Button.tsx", "src/ui/deep/Card.tsx", "src/ui/Card.ts", "web/src/Page.tsx", "notes.tsx.txt"} {
		p := filepath.Join(dir, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name string
		in   tools.GlobSearchInput
		want []string
	}{
		{"*.tsx finds .tsx files at any depth", tools.GlobSearchInput{Pattern: "*.tsx"},
			[]string{"App.tsx", "src/Button.tsx", "src/ui/deep/Card.tsx", "web/src/Page.tsx"}},
		{"a name finds that name at any depth", tools.GlobSearchInput{Pattern: "Card.tsx"}, []string{"src/ui/deep/Card.tsx"}},
		{"**/*.tsx finds the same", tools.GlobSearchInput{Pattern: "**/*.tsx"},
			[]string{"App.tsx", "src/Button.tsx", "src/ui/deep/Card.tsx", "web/src/Page.tsx"}},
		{"./*.tsx stays in base_dir", tools.GlobSearchInput{Pattern: "./*.tsx"}, []string{"App.tsx"}},
		{"src/*.tsx is anchored at base_dir", tools.GlobSearchInput{Pattern: "src/*.tsx"}, []string{"src/Button.tsx"}},
		{"src/**/*.tsx is anchored at base_dir", tools.GlobSearchInput{Pattern: "src/**/*.tsx"}, []string{"src/Button.tsx", "src/ui/deep/Card.tsx"}},
		{"a name below base_dir", tools.GlobSearchInput{Pattern: "*.tsx", BaseDir: "src/ui"}, []string{"src/ui/deep/Card.tsx"}},
		{"a path below base_dir", tools.GlobSearchInput{Pattern: "*/*.tsx", BaseDir: "src"}, []string{}},
		{"alternatives by name", tools.GlobSearchInput{Pattern: "*.{ts,tsx}", BaseDir: "src/ui"}, []string{"src/ui/Card.ts", "src/ui/deep/Card.tsx"}},
	}
	for name, tk := range searchBackends(t, dir) {
		for _, tt := range tests {
			t.Run(name+" "+tt.name, func(t *testing.T) {
				out, err := quiver.Call(context.Background(), tk, tools.GlobSearch, tt.in)
				if err != nil {
					t.Fatal(err)
				}
				got := out.Files
				slices.Sort(got)
				if diff := cmp.Diff(tt.want, got, cmpopts.EquateEmpty()); diff != "" {
					t.Errorf("files (-want +got):\n%s", diff)
				}
			})
		}
	}
}
