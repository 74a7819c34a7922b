package script_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quiverkit/quiver"
	"github.com/quiverkit/quiver/policy"
	"github.com/quiverkit/quiver/policy/approve"
	"github.com/quiverkit/quiver/provider/script"
	"github.com/quiverkit/quiver/sandbox"
)

// TestPinnedScriptRunsWhatWasHashed: a pinned script replaced between the
// check of its digest and its start — written over in place, or renamed
// over — still runs the content that was hashed, under every write scope
// (unrestricted: unconfined) and with reads narrowed to the workspace, for
// a shell script and for one whose interpreter env finds; its standard
// input reaches it.
func TestPinnedScriptRunsWhatWasHashed(t *testing.T) {
	bodies := map[string]string{
		"sh":     "#!/bin/sh\n# quiver: description Says who it is.\nread -r args\necho \"{WHO} $args\"\n",
		"python": "#!/usr/bin/env python3\n# quiver: description Says who it is.\nimport sys\nprint('{WHO}', sys.stdin.read().strip())\n",
	}
	swaps := map[string]func(path, content string) error{
		"written over": func(path, content string) error { return os.WriteFile(path, []byte(content), 0o755) },
		"renamed over": func(path, content string) error {
			if err := os.WriteFile(path+".new", []byte(content), 0o755); err != nil {
				return err
			}
			return os.Rename(path+".new", path)
		},
	}
	type scope struct {
		name  string
		write sandbox.WriteScope
		box   sandbox.Config
	}
	for _, sc := range []scope{
		{"workspace-write", sandbox.WorkspaceWrite, sandbox.Config{}},
		{"workspace-write, reading the workspace", sandbox.WorkspaceWrite, sandbox.Config{Read: sandbox.ReadScope{Workspace: true}}},
		{"read-only", sandbox.ReadOnly, sandbox.Config{}},
		{"unrestricted", sandbox.Unrestricted, sandbox.Config{}},
	} {
		for lang, body := range bodies {
			for swapName, swap := range swaps {
				t.Run(sc.name+"/"+lang+"/"+swapName, func(t *testing.T) {
					if sc.box.Read.Workspace {
						// Reads narrowed to the workspace serve the system's
						// programs only: an interpreter installed elsewhere
						// (pyenv's, first on the suite's PATH) cannot read its
						// own library there.
						t.Setenv("PATH", sandbox.DefaultPath)
					}
					ws := t.TempDir()
					dir := filepath.Join(ws, script.DefaultDir)
					if err := os.MkdirAll(dir, 0o755); err != nil {
						t.Fatal(err)
					}
					trusted, swapped := strings.ReplaceAll(body, "{WHO}", "trusted"), strings.ReplaceAll(body, "{WHO}", "swapped")
					path := filepath.Join(dir, "who")
					if err := os.WriteFile(path, []byte(trusted), 0o755); err != nil {
						t.Fatal(err)
					}
					sum := sha256.Sum256([]byte(trusted))
					p := script.New(script.Options{Dir: dir, LowRisk: []string{"who"}, Pinned: map[string]string{"who": hex.EncodeToString(sum[:])}})
					pol, err := policy.New(policy.Config{Default: policy.Allow}, sc.write)
					if err != nil {
						t.Fatal(err)
					}
					tk, err := quiver.New(quiver.WithRoot(ws), quiver.WithPolicy(pol), quiver.WithApprover(approve.Auto),
						quiver.WithSandbox(sc.box), quiver.WithProvider(p))
					if err != nil {
						t.Fatal(err)
					}
					t.Cleanup(func() { tk.Close() })
					swaps := 0
					defer script.SetAfterTrustCheck(func(got string) {
						if got != path {
							t.Errorf("the hook got %s, want %s", got, path)
						}
						if err := swap(path, swapped); err != nil {
							t.Error(err)
						}
						swaps++
					})()
					out, err := tk.Invoke(context.Background(), "who", map[string]any{})
					if err != nil {
						t.Fatal(err)
					}
					if got := out.Content.String(); got != "trusted {}\n" {
						t.Errorf("the script printed %q, want the trusted content's %q", got, "trusted {}\n")
					}
					if swaps != 1 {
						t.Errorf("the file was replaced %d times, want once", swaps)
					}
					if b, _ := os.ReadFile(path); string(b) != swapped {
						t.Errorf("the file holds %q, want the swapped content", b)
					}
				})
			}
		}
	}
}
