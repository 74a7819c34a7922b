package custom_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/quiverkit/quiver"
	"github.com/quiverkit/quiver/policy"
	"github.com/quiverkit/quiver/policy/approve"
	"github.com/quiverkit/quiver/provider/custom"
	"github.com/quiverkit/quiver/sandbox"
	"github.com/quiverkit/quiver/sandbox/cgroup"
	"github.com/quiverkit/quiver/sandbox/sandboxtest"
	"github.com/quiverkit/quiver/tool"
)

// run is a custom tool that runs its argument as a shell command line,
// marked with the test tree's variable (the toolkit's env_allow).
var run = custom.Spec{Name: "run", Command: "sh -c {line}", Params: []custom.Param{{Name: "line", Required: true}}}

// limitedCall runs line through the run tool confined under limits, with
// tree's mark in its environment, and returns the call's text or error.
func limitedCall(t *testing.T, limits sandbox.Limits, tree *sandboxtest.Tree, line string) (string, error) {
	t.Helper()
	name, value, _ := strings.Cut(tree.Env, "=")
	t.Setenv(name, value)
	p, err := custom.New([]custom.Spec{run}, custom.Options{EnvAllow: []string{name}})
	if err != nil {
		t.Fatal(err)
	}
	pol, err := policy.New(policy.Config{Default: policy.Allow}, sandbox.WorkspaceWrite)
	if err != nil {
		t.Fatal(err)
	}
	tk, err := quiver.New(quiver.WithRoot(t.TempDir()), quiver.WithPolicy(pol), quiver.WithApprover(approve.Auto),
		quiver.WithProvider(p), quiver.WithSandbox(sandbox.Config{Limits: limits}))
	if err != nil {
		t.Fatal(err)
	}
	defer tk.Close()
	out, err := tk.Invoke(context.Background(), "run", map[string]any{"line": line})
	return out.Content.String(), err
}

// forkLoop forks up to 200 children that sleep, and fails when a fork
// fails, saying why.
const forkLoop = `perl -e 'for $i (1..200) { my $p = fork; if (!defined $p) { print "fork $i failed: $!\n"; exit 3 } if ($p == 0) { sleep 60; exit 0 } } print "forked 200\n"'`

// TestCustomToolLimits: a custom command tool that forks beyond
// [sandbox.limits] processes, or allocates beyond memory_mib, fails with
// LIMIT_EXCEEDED naming the limit, with its exit code, and leaves no
// process; one that only prints what a failed allocation prints and exits
// 1 is an ordinary failure where a cgroup counts memory. As root the
// processes limit holds only through a cgroup.
func TestCustomToolLimits(t *testing.T) {
	if err := sandbox.Check(); err != nil {
		t.Fatalf("this machine must support the sandbox: %v", err)
	}
	host := cgroup.Detect()
	for _, tc := range []struct {
		name, line, key, setting string
		limits                   sandbox.Limits
		skip                     bool
	}{
		{name: "processes", line: forkLoop, key: "processes", setting: "[sandbox.limits] processes = 32",
			limits: sandbox.Limits{Processes: 32}, skip: os.Geteuid() == 0 && host.Version() == cgroup.None},
		{name: "memory", line: `perl -e 'my $x = "a" x (512 * 1024 * 1024); print "allocated\n"'`, key: "memory_mib",
			setting: "[sandbox.limits] memory_mib = 64", limits: sandbox.Limits{MemoryMiB: 64}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.skip {
				t.Skipf("as root, the processes limit holds only through a cgroup, and there is none here: %s", host.Why())
			}
			tree := sandboxtest.NewTree(t)
			text, err := limitedCall(t, tc.limits, tree, tc.line)
			var te *tool.Error
			if !errors.As(err, &te) || te.Code != tool.CodeLimitExceeded || !strings.Contains(te.Message, tc.setting) ||
				!strings.Contains(te.Message, "every process it started was killed") {
				t.Fatalf("got %q, %v; want %s naming %q", text, err, tool.CodeLimitExceeded, tc.setting)
			}
			if code, _ := te.Details["exit_code"].(int); te.Details["limit"] != tc.key || code == 0 {
				t.Errorf("details %v: want limit %q and a failing exit_code", te.Details, tc.key)
			}
			if left := tree.Live(); len(left) > 0 {
				t.Errorf("processes %v outlived the call", left)
			}
		})
	}
	t.Run("printed, not reached", func(t *testing.T) {
		if !host.Memory() {
			t.Skipf("no cgroup counts memory here (%s): the message is the evidence, by design", host.Why())
		}
		text, err := limitedCall(t, sandbox.Limits{MemoryMiB: 64}, sandboxtest.NewTree(t), "echo 'Cannot allocate memory' >&2; exit 1")
		if err != nil || !strings.HasPrefix(text, "exit_code: 1\n") || !strings.Contains(text, "Cannot allocate memory") {
			t.Errorf("got %q, %v; want an ordinary exit 1", text, err)
		}
	})
}
