// Package workspacetest checks that a workspace served by a
// [workspace.Backend] answers the read tools as the same files on disk do,
// in the spirit of testing/slogtest: a backend's author builds a workspace
// holding [Files] and hands it to [Run].
//
// Run writes the same files into a temporary directory ([Materialize]),
// makes every call of its table — read_file (with the 100 KB cut, an
// offset, a binary file, an image, links in and out of the tree, missing
// and climbing paths), list_dirs (depth 1 to 3, and 4 refused), list_files
// (one directory, with a pattern), tree, glob_search, grep_search and
// search_code — on both, and reports every difference in outcome, typed
// output, text shown to the model or error code and message. On the
// directory itself it also checks what the answers must say (the cut,
// the refusals, a link shown as a link, the submodule), so that a
// backend cannot pass by agreeing with a broken reference.
package workspacetest

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/quiverkit/quiver/tool"
	"github.com/quiverkit/quiver/tool/tooltest"
	"github.com/quiverkit/quiver/tools"
	"github.com/quiverkit/quiver/workspace"
)

// A Call is one tool call of the contract and what its answer on disk must
// hold.
type Call struct {
	Tool string
	Args string
	// Code is the error code the call must fail with ("" when it must
	// succeed).
	Code tool.Code
	// Shows are texts the answer (its text and typed output, or its error
	// message) must hold.
	Shows []string
	// Hides are texts it must not hold.
	Hides []string
}

// Calls is the contract's table.
func Calls() []Call {
	return []Call{
		{Tool: tools.ReadFile.Name, Args: `{"path":"src/auth/login.ts"}`, Shows: []string{"export function login()"}},
		{Tool: tools.ReadFile.Name, Args: `{"path":"big.txt"}`, Shows: []string{`"truncated":true`, "continue with offset="}},
		{Tool: tools.ReadFile.Name, Args: `{"path":"big.txt","offset":3000,"limit":3}`, Shows: []string{"line 3000 of a big file", `"end_line":3002`}},
		{Tool: tools.ReadFile.Name, Args: `{"path":"bin/data.bin"}`, Code: tool.CodeExecutionFailed, Shows: []string{"binary"}},
		{Tool: tools.ReadFile.Name, Args: `{"path":"img/dot.png"}`, Shows: []string{"image/png"}},
		{Tool: tools.ReadFile.Name, Args: `{"path":"empty.txt"}`, Shows: []string{"is empty"}},
		{Tool: tools.ReadFile.Name, Args: `{"path":"link-main"}`, Shows: []string{"export const App"}},
		{Tool: tools.ReadFile.Name, Args: `{"path":"linkdir/token.ts"}`, Shows: []string{"return 'AUTH'"}},
		{Tool: tools.ReadFile.Name, Args: `{"path":"link-out"}`, Code: tool.CodeSandboxViolation},
		{Tool: tools.ReadFile.Name, Args: `{"path":"link-abs"}`, Code: tool.CodeSandboxViolation},
		{Tool: tools.ReadFile.Name, Args: `{"path":"link-dangling"}`, Code: tool.CodeNotFound},
		{Tool: tools.ReadFile.Name, Args: `{"path":"missing.txt"}`, Code: tool.CodeNotFound},
		{Tool: tools.ReadFile.Name, Args: `{"path":"../outside.txt"}`, Code: tool.CodeSandboxViolation},
		{Tool: tools.ReadFile.Name, Args: `{"path":"src/../../x"}`, Code: tool.CodeSandboxViolation},
		{Tool: tools.ReadFile.Name, Args: `{"path":"src"}`, Code: tool.CodeExecutionFailed, Shows: []string{"directory"}},
		{Tool: tools.ReadFile.Name, Args: `{"path":"vendor/lib"}`, Code: tool.CodeExecutionFailed},
		{Tool: tools.ReadFile.Name, Args: `{"path":"vendor/lib/x.go"}`, Code: tool.CodeNotFound},
		{Tool: tools.ReadFile.Name, Args: `{"path":"README.md/x"}`, Code: tool.CodeExecutionFailed},
		{Tool: tools.ReadFile.Name, Args: `{"path":".hidden/secret.txt"}`, Shows: []string{"hidden auth note"}},
		{Tool: tools.ListDirs.Name, Args: `{}`, Shows: []string{`"src/auth"`, `"vendor/lib"`}, Hides: []string{"src/deep/a/b", ".hidden", "build"}},
		{Tool: tools.ListDirs.Name, Args: `{"depth":3}`, Shows: []string{`"src/deep/a"`}, Hides: []string{"src/deep/a/b"}},
		{Tool: tools.ListDirs.Name, Args: `{"path":"src","depth":1,"limit":2}`, Shows: []string{`"truncated":true`}},
		{Tool: tools.ListDirs.Name, Args: `{"include_hidden":true}`, Shows: []string{`".hidden"`}},
		{Tool: tools.ListDirs.Name, Args: `{"depth":4}`, Code: tool.CodeInvalidArguments},
		{Tool: tools.ListDirs.Name, Args: `{"path":"linkdir"}`},
		{Tool: tools.ListDirs.Name, Args: `{"path":"README.md"}`, Code: tool.CodeExecutionFailed},
		{Tool: tools.ListDirs.Name, Args: `{"path":"nope"}`, Code: tool.CodeNotFound},
		{Tool: tools.ListDirs.Name, Args: `{"path":"link-out"}`, Code: tool.CodeSandboxViolation},
		{Tool: tools.ListFiles.Name, Args: `{}`, Shows: []string{`"README.md"`, `"link-main"`, `"run.sh"`}, Hides: []string{"app.log", "link-out", "link-dangling", "linkdir"}},
		{Tool: tools.ListFiles.Name, Args: `{"path":"src/auth","pattern":"*.ts","limit":50}`, Shows: []string{`"src/auth/login.ts"`, `"size":`}},
		{Tool: tools.ListFiles.Name, Args: `{"pattern":"*.{md,txt}"}`, Shows: []string{`"big.txt"`}, Hides: []string{"run.sh"}},
		{Tool: tools.ListFiles.Name, Args: `{"path":"linkdir","pattern":"tok*"}`, Shows: []string{`"linkdir/token.ts"`}},
		{Tool: tools.ListFiles.Name, Args: `{"include_hidden":true,"limit":3}`, Shows: []string{`".gitignore"`, `"truncated":true`}},
		{Tool: tools.ListFiles.Name, Args: `{"path":"vendor/lib"}`},
		{Tool: tools.ListFiles.Name, Args: `{"pattern":"[x"}`, Code: tool.CodeInvalidArguments},
		{Tool: tools.Tree.Name, Args: `{}`, Shows: []string{"link-main -> src/main.tsx", "link-out -> ../outside.txt", "lib/ [submodule]"}, Hides: []string{"app.log", "build/"}},
		{Tool: tools.Tree.Name, Args: `{"depth":1}`},
		{Tool: tools.Tree.Name, Args: `{"path":"src","depth":6,"include_hidden":true}`, Shows: []string{"d.txt"}},
		{Tool: tools.Tree.Name, Args: `{"limit":4}`, Shows: []string{`"truncated":true`}},
		{Tool: tools.GlobSearch.Name, Args: `{"pattern":"*.ts"}`, Shows: []string{"src/auth/token.ts"}, Hides: []string{"linkdir/"}},
		{Tool: tools.GlobSearch.Name, Args: `{"pattern":"src/**/*.tsx"}`, Shows: []string{"src/components/button.tsx"}},
		{Tool: tools.GlobSearch.Name, Args: `{"pattern":"*"}`, Shows: []string{"link-out", "run.sh"}, Hides: []string{"app.log", ".gitignore"}},
		{Tool: tools.GlobSearch.Name, Args: `{"pattern":"*.log"}`, Hides: []string{"app.log"}},
		{Tool: tools.GlobSearch.Name, Args: `{"pattern":".hidden/*"}`, Shows: []string{".hidden/secret.txt"}},
		{Tool: tools.GlobSearch.Name, Args: `{"pattern":"*","base_dir":"linkdir","max_results":1}`, Shows: []string{`"truncated":true`}},
		{Tool: tools.GlobSearch.Name, Args: `{"pattern":"x","base_dir":"../"}`, Code: tool.CodeSandboxViolation},
		{Tool: tools.GrepSearch.Name, Args: `{"pattern":"auth","output_mode":"files"}`, Shows: []string{"src/auth/login.ts", "big.txt"}, Hides: []string{"bin/data.bin", "app.log", "secret"}},
		{Tool: tools.GrepSearch.Name, Args: `{"pattern":"auth","max_results":5}`, Shows: []string{"README.md", `"truncated":true`}},
		{Tool: tools.GrepSearch.Name, Args: `{"pattern":"auth","output_mode":"files","max_results":3}`, Shows: []string{`"truncated":true`}},
		{Tool: tools.GrepSearch.Name, Args: `{"pattern":"(?i)auth","output_mode":"count"}`, Shows: []string{"src/auth/token.ts"}},
		{Tool: tools.GrepSearch.Name, Args: `{"pattern":"Button","file_pattern":"*.tsx","context_lines":1}`, Shows: []string{"src/main.tsx"}},
		{Tool: tools.GrepSearch.Name, Args: `{"pattern":"auth","file_pattern":".hidden/*"}`, Shows: []string{"hidden auth note"}},
		{Tool: tools.GrepSearch.Name, Args: `{"pattern":"token","path":"linkdir"}`, Shows: []string{"linkdir/login.ts"}},
		{Tool: tools.GrepSearch.Name, Args: `{"pattern":"auth","path":"src/auth/login.ts"}`, Shows: []string{"return auth(token())"}},
		{Tool: tools.GrepSearch.Name, Args: `{"pattern":"auth","path":"link-out"}`, Code: tool.CodeSandboxViolation},
		{Tool: tools.GrepSearch.Name, Args: `{"pattern":"(","path":"src"}`, Code: tool.CodeInvalidArguments},
		{Tool: tools.SearchCode.Name, Args: `{"query":"auth","filePattern":"*.ts","limit":20}`, Shows: []string{`"snippet":"return auth(token());"`}},
		{Tool: tools.SearchCode.Name, Args: `{"query":"export","limit":3}`},
		{Tool: tools.SearchCode.Name, Args: `{"query":"AUTH"}`, Shows: []string{"src/auth/token.ts"}, Hides: []string{"login.ts"}},
		// Inside longer words, as on disk: a search index of whole words
		// (GitHub's) would find none of these.
		{Tool: tools.SearchCode.Name, Args: `{"query":"oken","filePattern":"*.ts"}`, Shows: []string{"src/auth/token.ts", "src/auth/login.ts"}},
	}
}

// Run checks ws, a workspace holding [Files], against the same files on
// disk, call by call ([Calls]).
func Run(t *testing.T, ws *workspace.Workspace) {
	t.Helper()
	dir := t.TempDir()
	if err := Materialize(dir, Files()); err != nil {
		t.Fatal(err)
	}
	ref, err := workspace.Open(dir, workspace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ref.Close() })
	byName := map[string]*tool.Tool{}
	for _, tl := range tools.All() {
		byName[tl.Name] = tl
	}
	for _, c := range Calls() {
		t.Run(c.Tool+" "+c.Args, func(t *testing.T) {
			tl := byName[c.Tool]
			if tl == nil {
				t.Fatalf("no built-in tool %q", c.Tool)
			}
			want := call(tl, ref, c.Args)
			if err := c.check(want); err != nil {
				t.Fatalf("on disk (the reference): %v", err)
			}
			got := call(tl, ws, c.Args)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("the backend answers otherwise than the disk (-disk +backend):\n%s", diff)
			}
		})
	}
}

// answer is what a call gave, in comparable form.
type answer struct {
	Code    tool.Code
	Message string
	Output  string // the typed output as JSON
	Parts   []tool.Part
}

func call(tl *tool.Tool, ws *workspace.Workspace, args string) answer {
	shared := tool.NewScope(nil, nil)
	defer shared.Close()
	shared.Provide(workspace.Key.ID, ws)
	res, err := tooltest.Call(context.Background(), tl, shared, args)
	if err != nil {
		te := tool.AsError(err)
		return answer{Code: te.Code, Message: te.Message}
	}
	out, err := json.Marshal(res.Output)
	if err != nil {
		return answer{Code: tool.CodeInternal, Message: err.Error()}
	}
	return answer{Output: string(out), Parts: res.Parts}
}

// check holds the reference's answer to the call's expectations.
func (c Call) check(a answer) error {
	if a.Code != c.Code {
		return fmt.Errorf("code %q (%s), want %q", a.Code, a.Message, c.Code)
	}
	text := a.Message + "\n" + a.Output
	for _, p := range a.Parts {
		text += "\n" + p.Text
	}
	for _, s := range c.Shows {
		if !strings.Contains(text, s) {
			return fmt.Errorf("the answer does not show %q:\n%s", s, clip(text))
		}
	}
	for _, s := range c.Hides {
		if strings.Contains(text, s) {
			return fmt.Errorf("the answer shows %q:\n%s", s, clip(text))
		}
	}
	return nil
}

// clip shortens an answer quoted in a failure.
func clip(s string) string {
	if len(s) > 4000 {
		return s[:4000] + "..."
	}
	return s
}
