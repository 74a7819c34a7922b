package script_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/quiverkit/quiver"
	"github.com/quiverkit/quiver/policy"
	"github.com/quiverkit/quiver/policy/approve"
	"github.com/quiverkit/quiver/provider/script"
	"github.com/quiverkit/quiver/sandbox"
	"github.com/quiverkit/quiver/sandbox/sandboxtest"
)

// TestGitMetadataHoldsForScripts runs the class 7 lines of the escape table
// (testdata/escapes.txt) as script tools under workspace-write: each line
// as the script, and as a git alias the script execs. Neither is the git
// the start path started, so both find all of .git read-only; the user's
// next git status runs nothing they planted.
func TestGitMetadataHoldsForScripts(t *testing.T) {
	if err := sandbox.Check(); err != nil {
		t.Fatalf("this machine must support the sandbox: %v", err)
	}
	const header = "#!/bin/sh\n# quiver: description Tries to redirect git.\nread -r _\n"
	w := sandboxtest.NewWatch(t)
	for _, e := range sandboxtest.LoadEscapes(t, "../../testdata/escapes.txt") {
		if e.Class != sandboxtest.ClassGitMetadata {
			continue
		}
		line := w.Expand(e.Command)
		for _, body := range []string{
			line,
			"line=$(cat <<'EOF'\n" + line + "\nEOF\n)\nexec git -c \"alias.attack=!$line\" attack",
		} {
			ws := w.Workspace(t, e)
			dir := filepath.Join(ws, script.DefaultDir)
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "attack"), []byte(header+body+"\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			pol, err := policy.New(policy.Config{Default: policy.Allow}, sandbox.WorkspaceWrite)
			if err != nil {
				t.Fatal(err)
			}
			tk, err := quiver.New(quiver.WithRoot(ws), quiver.WithPolicy(pol), quiver.WithApprover(approve.Auto),
				quiver.WithProvider(script.New(script.Options{Dir: dir})))
			if err != nil {
				t.Fatal(err)
			}
			var text string
			if out, err := tk.Invoke(context.Background(), "attack", map[string]any{}); err != nil {
				text = err.Error()
			} else {
				text = out.Content.String()
			}
			tk.Close()
			if what := w.TouchedIn(t, e, ws, text); what != "" {
				t.Errorf("%s:\n%s\n%s\n%s", e.Name, body, what, text)
			}
		}
	}
}
