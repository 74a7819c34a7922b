package script_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quiverkit/quiver"
	"github.com/quiverkit/quiver/policy"
	"github.com/quiverkit/quiver/policy/approve"
	"github.com/quiverkit/quiver/provider/script"
	"github.com/quiverkit/quiver/sandbox"
	"github.com/quiverkit/quiver/sandbox/sandboxtest"
	"github.com/quiverkit/quiver/tool"
)

// TestScriptMemoryLimit: a script tool that allocates 512 MiB under
// [sandbox.limits] memory_mib = 64 fails with LIMIT_EXCEEDED naming the
// limit, and leaves no process.
func TestScriptMemoryLimit(t *testing.T) {
	if err := sandbox.Check(); err != nil {
		t.Fatalf("this machine must support the sandbox: %v", err)
	}
	tree := sandboxtest.NewTree(t)
	name, value, _ := strings.Cut(tree.Env, "=")
	t.Setenv(name, value)
	root := t.TempDir()
	dir := filepath.Join(root, script.DefaultDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	body := "#!/bin/sh\n# quiver: description Allocates too much.\nexec perl -e 'my $x = \"a\" x (512 * 1024 * 1024); print \"allocated\\n\"'\n"
	if err := os.WriteFile(filepath.Join(dir, "hog"), []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	pol, err := policy.New(policy.Config{Default: policy.Allow}, sandbox.WorkspaceWrite)
	if err != nil {
		t.Fatal(err)
	}
	tk, err := quiver.New(quiver.WithRoot(root), quiver.WithPolicy(pol), quiver.WithApprover(approve.Auto),
		quiver.WithProvider(script.New(script.Options{Dir: dir, EnvAllow: []string{name}})),
		quiver.WithSandbox(sandbox.Config{Limits: sandbox.Limits{MemoryMiB: 64}}))
	if err != nil {
		t.Fatal(err)
	}
	defer tk.Close()
	out, err := tk.Invoke(context.Background(), "hog", map[string]any{})
	var te *tool.Error
	if !errors.As(err, &te) || te.Code != tool.CodeLimitExceeded || !strings.Contains(te.Message, "[sandbox.limits] memory_mib = 64") {
		t.Fatalf("got %q, %v; want %s naming memory_mib", out.Content.String(), err, tool.CodeLimitExceeded)
	}
	if te.Details["limit"] != "memory_mib" {
		t.Errorf("details %v: want limit memory_mib", te.Details)
	}
	if left := tree.Live(); len(left) > 0 {
		t.Errorf("processes %v outlived the call", left)
	}
}
