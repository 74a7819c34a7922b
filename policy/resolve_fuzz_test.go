package policy_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quiverkit/quiver/policy"
	"github.com/quiverkit/quiver/sandbox"
	"github.com/quiverkit/quiver/tool"
	"github.com/quiverkit/quiver/workspace"
)

// fuzzTree is a workspace with the links an attacker would ship: to the
// secret, to the root, to .git, chains, loops, and links out.
func fuzzTree(f *testing.F) (*workspace.Workspace, string) {
	base := f.TempDir()
	root := filepath.Join(base, "root")
	for _, d := range []string{"src/deep", ".git/hooks", "docs"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			f.Fatal(err)
		}
	}
	for _, name := range []string{".env", "notes.txt", "src/a.go", "src/deep/x", ".git/config", ".git/hooks/pre-commit.sample", "docs/d.md"} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(name), 0o644); err != nil {
			f.Fatal(err)
		}
	}
	for name, target := range map[string]string{
		"src/up": "..", "src/envlink": "../.env", "src/gitlink": "../.git", "src/chain": "envlink",
		"src/hooks": "../.git/hooks", "src/d": "deep", "src/deep/upper": "..", "src/deep/sib": "../a.go",
		"deeplink": "src/deep", "src/loop": "loop", "src/out": "../..", "docs/dangling": "../src/new.txt",
		"src/abs": filepath.Join(root, ".env"),
	} {
		if err := os.Symlink(target, filepath.Join(root, filepath.FromSlash(name))); err != nil {
			f.Fatal(err)
		}
	}
	ws, err := workspace.Open(root, workspace.Options{})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { ws.Close() })
	return ws, ws.Dir()
}

// kernelPath is where the kernel says a write of rel would land: the file
// itself when it exists, else its parent directory resolved, plus its name.
func kernelPath(root, rel string) (string, bool) {
	full := filepath.Join(root, filepath.FromSlash(rel))
	real, err := filepath.EvalSymlinks(full)
	if err != nil {
		if _, lerr := os.Lstat(full); lerr == nil {
			return "", false // a dangling link: where it lands is the tool's business
		}
		dir, derr := filepath.EvalSymlinks(filepath.Dir(full))
		if derr != nil {
			return "", false
		}
		real = filepath.Join(dir, filepath.Base(full))
	}
	r, err := filepath.Rel(root, real)
	if err != nil || r == ".." || strings.HasPrefix(r, "../") {
		return "", false
	}
	return filepath.ToSlash(r), true
}

// FuzzResolvedRules holds the policy to the file the kernel opens, for any
// spelling of any path: a deny rule on .env refuses every path that opens
// .env; an allow rule on src/** never allows a write that lands outside
// src; a write that lands in .git/config or .git/hooks is never allowed
// without a question.
func FuzzResolvedRules(f *testing.F) {
	ws, root := fuzzTree(f)
	secrets, err := policy.New(policy.Config{Default: policy.Allow, Deny: []string{"read_file(.env)"}}, sandbox.WorkspaceWrite)
	if err != nil {
		f.Fatal(err)
	}
	srcOnly, err := policy.New(policy.Config{Default: policy.Deny, Allow: []string{"write_file(src/**)"}}, sandbox.WorkspaceWrite)
	if err != nil {
		f.Fatal(err)
	}
	env, err := os.Stat(filepath.Join(root, ".env"))
	if err != nil {
		f.Fatal(err)
	}
	read := &tool.Tool{Name: "read_file", Risk: tool.RiskLow, Annotations: tool.Annotations{ReadOnly: true}}
	write := &tool.Tool{Name: "write_file", Risk: tool.RiskHigh}
	f.Fuzz(func(t *testing.T, p string) {
		subjects, err := policy.ResolveSubjects(ws, []tool.Subject{{Kind: tool.SubjectPath, Value: p}})
		if err != nil {
			if tool.CodeOf(err) == "" {
				t.Fatalf("ResolveSubjects(%q): error without a code: %v", p, err)
			}
			return
		}
		if fi, err := ws.Stat(p); err == nil && os.SameFile(fi, env) {
			if v := secrets.Decide(read, subjects, tool.RiskLow); v.Decision != policy.Deny {
				t.Fatalf("read_file %q opens .env, but the policy says %s (%s); subjects %v", p, v.Decision, v.Rule, subjects)
			}
		}
		rel, err := ws.Rel(p)
		if err != nil {
			t.Fatalf("Rel(%q) failed after ResolveSubjects succeeded: %v", p, err)
		}
		lands, ok := kernelPath(root, rel)
		if !ok {
			return
		}
		if v := srcOnly.Decide(write, subjects, tool.RiskHigh); v.Decision == policy.Allow && lands != "src" && !strings.HasPrefix(lands, "src/") {
			t.Fatalf("write_file(src/**) allows %q, which lands in %q; subjects %v", p, lands, subjects)
		}
		if lands == ".git/config" || strings.HasPrefix(lands, ".git/hooks/") {
			if v := secrets.Decide(write, subjects, tool.RiskHigh); v.Decision == policy.Allow {
				t.Fatalf("write_file %q lands in %q, a protected path, and is allowed without asking; subjects %v", p, lands, subjects)
			}
		}
	})
}
