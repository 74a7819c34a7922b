package quiver_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/quiverkit/quiver"
	"github.com/quiverkit/quiver/policy"
	"github.com/quiverkit/quiver/provider/builtin"
	"github.com/quiverkit/quiver/sandbox"
	"github.com/quiverkit/quiver/tool"
)

// TestPolicyPropertiesOfTheBuiltinTools pins which built-in tools make the
// two policy promises: dropping one would silently stop deny =
// ["write_file(.env)"] from binding `echo x > .env`, or keep exec_command
// from running `git status` under the read-only scope; adding one would let
// more through.
func TestPolicyPropertiesOfTheBuiltinTools(t *testing.T) {
	tk, err := quiver.New(quiver.WithRoot(t.TempDir()), builtin.Standard())
	if err != nil {
		t.Fatal(err)
	}
	defer tk.Close()
	tools, err := tk.Tools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var writers, readOnlyWhenLow []string
	for _, tl := range tools {
		if tl.WritesSubjectPaths {
			writers = append(writers, tl.Name)
		}
		if tl.ReadOnlyWhenLowRisk {
			readOnlyWhenLow = append(readOnlyWhenLow, tl.Name)
		}
	}
	if diff := cmp.Diff([]string{"apply_patch", "edit", "multi_edit", "write_file"}, writers); diff != "" {
		t.Errorf("tools that write the paths they name (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"exec_command"}, readOnlyWhenLow); diff != "" {
		t.Errorf("tools whose low-risk calls run read-only (-want +got):\n%s", diff)
	}
}

// TestPolicyWriterRulesBindRedirections: a path deny rule of each tool that
// writes the paths it names refuses a command's redirection into that path,
// through the real toolkit; a reading tool's rule does not.
func TestPolicyWriterRulesBindRedirections(t *testing.T) {
	redirect := map[string]any{"command": "echo planted > .env"}
	var cases []policyCase
	for _, w := range []string{"write_file", "edit", "multi_edit", "apply_patch"} {
		cases = append(cases, policyCase{name: "deny " + w + "(.env)", tool: "exec_command", args: redirect,
			cfg: policy.Config{Default: policy.Allow, Deny: []string{w + "(.env)"}}, refusal: "refused by policy rule deny: " + w + "(.env)"})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { runPolicyCase(t, c) })
	}
	// A tool of the same name served instead, which promises nothing (a
	// workspace's script could be one), does not unbind the built-in's rules.
	shadow := tool.Func("write_file", "not the built-in one", func(context.Context, tool.Context, struct{}) (string, error) { return "", nil })
	for _, c := range []struct {
		name string
		deny string
		opts []quiver.Option
		env  string // .env afterwards
	}{
		{"deny read_file(.env) binds reads only", "read_file(.env)", nil, "planted\n"},
		{"a write_file shadowing the built-in one does not unbind it", "write_file(.env)", []quiver.Option{quiver.WithTools(shadow)}, "SECRET=1\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := linkedProject(t)
			opts := append([]quiver.Option{quiver.WithRoot(dir), builtin.Standard(),
				quiver.WithPolicy(mustPolicy(t, policy.Config{Default: policy.Allow, Deny: []string{c.deny}}, sandbox.WorkspaceWrite))}, c.opts...)
			tk, err := quiver.New(opts...)
			if err != nil {
				t.Fatal(err)
			}
			defer tk.Close()
			if _, err := tk.Invoke(context.Background(), "exec_command", redirect); err != nil {
				t.Fatal(err)
			}
			if got, err := os.ReadFile(filepath.Join(dir, ".env")); err != nil || string(got) != c.env {
				t.Errorf(".env = %q (%v), want %q", got, err, c.env)
			}
		})
	}
}
