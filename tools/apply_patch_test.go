package tools_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/quiverkit/quiver"
	"github.com/quiverkit/quiver/policy"
	"github.com/quiverkit/quiver/provider/builtin"
	"github.com/quiverkit/quiver/sandbox"
	"github.com/quiverkit/quiver/schema"
	"github.com/quiverkit/quiver/tool"
	"github.com/quiverkit/quiver/tools"
	"github.com/quiverkit/quiver/workspace"
)

// patchTool returns the registered apply_patch tool.
func patchTool(t testing.TB) *tool.Tool {
	t.Helper()
	for _, tl := range tools.All() {
		if tl.Name == "apply_patch" {
			return tl
		}
	}
	t.Fatal("apply_patch is not registered")
	return nil
}

func patchArgs(patch string) []byte {
	b, _ := json.Marshal(map[string]string{"patch": patch})
	return b
}

// runPatchTool runs apply_patch on root the way the pipeline does: arguments
// validated against the tool's schema, then executed with the workspace as
// a dependency.
func runPatchTool(t testing.TB, root, patch string) (string, error) {
	t.Helper()
	tl := patchTool(t)
	in, _ := tl.Schemas()
	v, err := schema.Compile(in)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	json.Unmarshal(patchArgs(patch), &m)
	if _, err := v.Validate(m); err != nil {
		return "", tool.Errorf(tool.CodeInvalidArguments, "%v", err)
	}
	ws, err := workspace.Open(root, workspace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	scope := tool.NewScope(map[string]tool.Factory{
		workspace.Key.ID: func(context.Context) (any, error) { return ws, nil },
	}, nil)
	tc := tool.NewContext("call-1", tl.Name, nil, scope)
	res, err := tl.Execute(context.Background(), tc, patchArgs(patch))
	return res.String(), err
}

// runPatchInvoke runs apply_patch through a toolkit's whole pipeline.
func runPatchInvoke(t testing.TB, root, patch string) (string, error) {
	t.Helper()
	tk, err := quiver.New(quiver.WithRoot(root), builtin.Standard(), quiver.WithPolicy(policy.AllowAll()))
	if err != nil {
		t.Fatal(err)
	}
	defer tk.Close()
	out, err := tk.Invoke(context.Background(), "apply_patch", json.RawMessage(patchArgs(patch)))
	return out.Content.String(), err
}

var (
	quiverBinOnce sync.Once
	quiverBin     string
	quiverBinErr  error
)

// runPatchCLI runs `quiver call apply_patch -` with the arguments on stdin.
// The binary is built once per test run, from this module.
func runPatchCLI(t testing.TB, root, patch string) (string, error) {
	t.Helper()
	quiverBinOnce.Do(func() {
		dir, err := os.MkdirTemp("", "quiver-bin-")
		if err != nil {
			quiverBinErr = err
			return
		}
		quiverBin = filepath.Join(dir, "quiver")
		out, err := exec.Command("go", "build", "-o", quiverBin, "github.com/quiverkit/quiver/cmd/quiver").CombinedOutput()
		if err != nil {
			quiverBinErr = errors.New(string(out))
		}
	})
	if quiverBinErr != nil {
		t.Fatalf("go build ./cmd/quiver: %v", quiverBinErr)
	}
	cmd := exec.Command(quiverBin, "--root", root, "--yes", "call", "apply_patch", "-")
	cmd.Dir = root
	cmd.Stdin = bytes.NewReader(patchArgs(patch))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), errors.New(stderr.String())
	}
	return stdout.String(), nil
}

// TestApplyPatchScenarios runs every case of testdata/apply_patch: input/ is
// copied to a fresh workspace, patch.txt applied, and the tree compared byte
// for byte with expected/. A case with error.txt must fail with an error
// containing its text, and expected/ is then input/ unchanged. Each case
// runs through the tool directly, through Toolkit.Invoke and through
// `quiver call`.
func TestApplyPatchScenarios(t *testing.T) {
	cases, err := filepath.Glob(filepath.Join("testdata", "apply_patch", "[0-9][0-9][0-9]_*"))
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) < 30 {
		t.Fatalf("found %d scenario cases, want at least 30", len(cases))
	}
	runners := []struct {
		name string
		run  func(testing.TB, string, string) (string, error)
	}{{"tool", runPatchTool}, {"invoke", runPatchInvoke}, {"cli", runPatchCLI}}
	for _, dir := range cases {
		patch, err := os.ReadFile(filepath.Join(dir, "patch.txt"))
		if err != nil {
			t.Fatal(err)
		}
		wantErr := ""
		if b, err := os.ReadFile(filepath.Join(dir, "error.txt")); err == nil {
			wantErr = strings.TrimSpace(string(b))
		}
		want := fileTree(t, filepath.Join(dir, "expected"))
		for _, r := range runners {
			t.Run(filepath.Base(dir)+"/"+r.name, func(t *testing.T) {
				root := t.TempDir()
				copyTree(t, filepath.Join(dir, "input"), root)
				out, err := r.run(t, root, string(patch))
				switch {
				case wantErr == "" && err != nil:
					t.Fatalf("apply_patch failed: %v", err)
				case wantErr != "" && err == nil:
					t.Fatalf("apply_patch succeeded, want an error containing %q; output:\n%s", wantErr, out)
				case wantErr != "" && !strings.Contains(err.Error(), wantErr):
					t.Errorf("error does not contain %q:\n%v", wantErr, err)
				}
				if diff := cmp.Diff(want, fileTree(t, root)); diff != "" {
					t.Errorf("tree differs from expected/ (-want +got):\n%s", diff)
				}
			})
		}
	}
}

// fileTree returns the regular files under dir (path → content) and its
// symbolic links (path + "@" → target). A missing dir is an empty tree.
func fileTree(t testing.TB, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) && p == dir {
			return filepath.SkipDir
		}
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if d.Type()&fs.ModeSymlink != 0 {
			target, err := os.Readlink(p)
			out[rel+"@"] = target
			return err
		}
		if !d.Type().IsRegular() {
			out[rel+"?"] = d.Type().String()
			return nil
		}
		b, err := os.ReadFile(p)
		out[rel] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// copyTree copies the regular files of src (if it exists) into dst.
func copyTree(t testing.TB, src, dst string) {
	t.Helper()
	for rel, content := range fileTree(t, src) {
		p := filepath.Join(dst, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestApplyPatchSubjectsNameEveryPath(t *testing.T) {
	tl := patchTool(t)
	tests := []struct {
		name, patch string
		want        []tool.Subject
	}{
		{"begin patch with a move", "*** Begin Patch\n*** Add File: src/new.go\n+x\n*** Update File: old/a.go\n*** Move to: src/a.go\n@@\n-x\n+y\n*** Delete File: docs/../gone.md\n*** End Patch",
			[]tool.Subject{{Kind: tool.SubjectPath, Field: "patch", Value: "src/new.go"}, {Kind: tool.SubjectPath, Field: "patch", Value: "old/a.go"}, {Kind: tool.SubjectPath, Field: "patch", Value: "src/a.go"}, {Kind: tool.SubjectPath, Field: "patch", Value: "gone.md"}}},
		{"git diff with a rename", "diff --git a/x.txt b/y/x.txt\nsimilarity index 100%\nrename from x.txt\nrename to y/x.txt\n",
			[]tool.Subject{{Kind: tool.SubjectPath, Field: "patch", Value: "x.txt"}, {Kind: tool.SubjectPath, Field: "patch", Value: "y/x.txt"}}},
		{"a patch that does not parse has none", "*** Begin Patch\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tl.Subjects(patchArgs(tt.patch))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("subjects (-want +got):\n%s", diff)
			}
		})
	}
	if tl.Risk != tool.RiskHigh || tl.Annotations.ReadOnly {
		t.Errorf("risk %q, read-only %v: want a high-risk writing tool", tl.Risk, tl.Annotations.ReadOnly)
	}
}

// TestApplyPatchPolicyMatchesEveryPath checks that path rules see each file
// a patch touches, move targets included, through the toolkit's pipeline.
func TestApplyPatchPolicyMatchesEveryPath(t *testing.T) {
	tests := []struct {
		name   string
		cfg    policy.Config
		patch  string
		denied bool
	}{
		{"a deny rule matches a move target", policy.Config{Default: policy.Allow, Deny: []string{"apply_patch(secret/**)"}},
			"*** Begin Patch\n*** Update File: public.txt\n*** Move to: secret/public.txt\n*** End Patch", true},
		{"an allow rule must cover every file", policy.Config{Default: policy.Deny, Allow: []string{"apply_patch(src/**)"}},
			"*** Begin Patch\n*** Add File: src/ok.txt\n+ok\n*** Add File: other.txt\n+no\n*** End Patch", true},
		{"an allow rule covering every file lets the patch through", policy.Config{Default: policy.Deny, Allow: []string{"apply_patch(src/**)"}},
			"*** Begin Patch\n*** Add File: src/ok.txt\n+ok\n*** Update File: src/a.txt\n@@\n-a\n+b\n*** End Patch", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			os.MkdirAll(filepath.Join(root, "src"), 0o755)
			os.WriteFile(filepath.Join(root, "src", "a.txt"), []byte("a\n"), 0o644)
			os.WriteFile(filepath.Join(root, "public.txt"), []byte("p\n"), 0o644)
			before := fileTree(t, root)
			pol, err := policy.New(tt.cfg, sandbox.WorkspaceWrite)
			if err != nil {
				t.Fatal(err)
			}
			tk, err := quiver.New(quiver.WithRoot(root), builtin.Standard(), quiver.WithPolicy(pol))
			if err != nil {
				t.Fatal(err)
			}
			defer tk.Close()
			_, err = tk.Invoke(context.Background(), "apply_patch", json.RawMessage(patchArgs(tt.patch)))
			if !tt.denied {
				if err != nil {
					t.Fatalf("Invoke: %v", err)
				}
				if got := fileTree(t, root)["src/ok.txt"]; got != "ok\n" {
					t.Errorf("src/ok.txt = %q, want the patch applied", got)
				}
				return
			}
			if tool.CodeOf(err) != tool.CodeToolNotAllowed {
				t.Fatalf("err = %v, want TOOL_NOT_ALLOWED", err)
			}
			if diff := cmp.Diff(before, fileTree(t, root)); diff != "" {
				t.Errorf("a denied patch changed the tree (-before +after):\n%s", diff)
			}
		})
	}
}

func TestApplyPatchRendersEachFile(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "a.txt"), []byte("1\n2\n"), 0o644)
	os.WriteFile(filepath.Join(root, "b.txt"), []byte("b\n"), 0o644)
	out, err := runPatchTool(t, root, "*** Begin Patch\n*** Update File: a.txt\n@@\n-1\n+one\n+uno\n*** Update File: b.txt\n*** Move to: c.txt\n*** Add File: d.txt\n+d\n*** Delete File: a.txt\n*** End Patch")
	if err != nil {
		t.Fatal(err)
	}
	want := "Patch applied: 4 files changed (+3 -4)\n" +
		"update a.txt (+2 -1)\n" +
		"move   b.txt -> c.txt (+0 -0)\n" +
		"add    d.txt (+1 -0)\n" +
		"delete a.txt (+0 -3)" // the updated a.txt had three lines
	if diff := cmp.Diff(want, out); diff != "" {
		t.Errorf("rendered output (-want +got):\n%s", diff)
	}
}

func TestApplyPatchUnreadableFile(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("running as root: permission bits do not stop root from reading")
	}
	root := t.TempDir()
	p := filepath.Join(root, "locked.txt")
	os.WriteFile(p, []byte("x\n"), 0o644)
	os.Chmod(p, 0)
	defer os.Chmod(p, 0o644)
	_, err := runPatchTool(t, root, "*** Begin Patch\n*** Update File: locked.txt\n@@\n-x\n+y\n*** End Patch")
	if tool.CodeOf(err) != tool.CodeExecutionFailed || !strings.Contains(err.Error(), "permission denied") {
		t.Errorf("err = %v, want EXECUTION_FAILED naming the permission", err)
	}
}
