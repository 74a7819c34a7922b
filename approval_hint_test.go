package quiver_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/quiverkit/quiver"
	"github.com/quiverkit/quiver/config"
	"github.com/quiverkit/quiver/policy"
	"github.com/quiverkit/quiver/provider/builtin"
	"github.com/quiverkit/quiver/provider/custom"
)

// hintRecorder refuses every call and keeps the rule each request suggests.
type hintRecorder struct{ suggested []string }

func (h *hintRecorder) Approve(_ context.Context, req policy.Request) (policy.Approval, error) {
	h.suggested = append(h.suggested, req.Suggest)
	return policy.Approval{By: "test", Reason: "no"}, nil
}

// TestCustomToolApprovalHint: the approval request for a custom tool
// suggests a rule over the tool's arguments, with the template's words and
// "*" where the value would read as shell, not the shell-like line the value
// makes (issue 15).
func TestCustomToolApprovalHint(t *testing.T) {
	p, err := custom.New([]config.Custom{{Name: "echo_it", Command: "echo --title {title}",
		Params: []config.CustomParam{{Name: "title", Type: "string", Required: true}}}}, custom.Options{})
	if err != nil {
		t.Fatal(err)
	}
	pol, err := policy.New(policy.Config{Default: policy.Ask}, policy.WorkspaceWrite)
	if err != nil {
		t.Fatal(err)
	}
	rec := &hintRecorder{}
	tk, err := quiver.New(quiver.WithRoot(t.TempDir()), builtin.Standard(), quiver.WithProvider(p), quiver.WithPolicy(pol), quiver.WithApprover(rec))
	if err != nil {
		t.Fatal(err)
	}
	defer tk.Close()
	for _, title := range []string{"a; touch x $(id) y", "plain"} {
		if _, err := tk.Invoke(context.Background(), "echo_it", map[string]any{"title": title}); err == nil {
			t.Fatalf("a refused call of echo_it succeeded")
		}
	}
	want := []string{"echo_it(echo --title *)", "echo_it(echo --title plain)"}
	if diff := cmp.Diff(want, rec.suggested); diff != "" {
		t.Errorf("suggested rules (-want +got):\n%s", diff)
	}
}
