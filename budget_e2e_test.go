//go:build linux

package quiver_test

import (
	"context"
	"strings"
	"testing"

	"github.com/quiverkit/quiver"
	"github.com/quiverkit/quiver/outputcache"
	"github.com/quiverkit/quiver/policy"
	"github.com/quiverkit/quiver/provider/builtin"
	"github.com/quiverkit/quiver/tools"
)

// TestOutputBudgetHoldsCommands: the toolkit's message budget bounds what
// a model is shown of a command, as it bounds every other tool's output.
// exec_command and exec_output trim as the output streams, to a split of
// that budget, so the view is within it and carries one marker: the cache
// step had nothing left to trim.
func TestOutputBudgetHoldsCommands(t *testing.T) {
	const maxBytes = 4000
	budget := outputcache.Budget{MaxBytes: maxBytes}
	tk, err := quiver.New(quiver.WithRoot(t.TempDir()), builtin.Standard(), quiver.WithPolicy(policy.AllowAll()),
		quiver.WithOutputCache(outputcache.NewMemoryStore(outputcache.MemoryOptions{}), budget))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tk.Close() })
	ctx := context.Background()
	if got, err := quiver.Dependency(ctx, tk, outputcache.BudgetKey); err != nil || got != budget {
		t.Errorf("tools are given the budget %+v (%v), want %+v", got, err, budget)
	}

	fg, err := tk.Invoke(ctx, "exec_command", map[string]any{"command": "seq 1 100000"})
	if err != nil {
		t.Fatal(err)
	}
	wantBounded(t, "exec_command", fg.Content.String(), "full output: ref="+fg.Content.OutputRef+",")

	job, err := quiver.Call(ctx, tk, tools.ExecCommand, tools.ExecCommandInput{Command: "seq 1 100000", Background: true})
	if err != nil {
		t.Fatal(err)
	}
	// A hang guard, not a timing bound: seq ends in milliseconds.
	read, err := tk.Invoke(ctx, "exec_output", map[string]any{"job_id": job.JobID, "wait_secs": 60})
	if err != nil {
		t.Fatal(err)
	}
	// A job's whole output goes to the output cache too (issue 28): the
	// marker names its ref, not a file only the host can read.
	wantBounded(t, "exec_output", read.Content.String(), "bytes omitted; full output: ref=out_")
}

// wantBounded checks a model's view of seq 1 100000: its first and last
// lines around exactly one marker, holding marker, within the budget.
func wantBounded(t *testing.T, name, view, marker string) {
	t.Helper()
	if len(view) > 4000 {
		t.Errorf("%s: the view is %d bytes, over the budget of 4000", name, len(view))
	}
	if n := strings.Count(view, " omitted; "); n != 1 || !strings.Contains(view, marker) {
		t.Errorf("%s: %d markers, want one with %q:\n%s", name, n, marker, view)
	}
	if !strings.Contains(view, "\n1\n2\n3\n") || !strings.HasSuffix(view, "\n99999\n100000\n") {
		t.Errorf("%s: the view lacks the head or the tail:\n%s", name, view)
	}
}
