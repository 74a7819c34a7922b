package quiver_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/quiverkit/quiver"
	"github.com/quiverkit/quiver/policy"
	"github.com/quiverkit/quiver/provider/builtin"
	"github.com/quiverkit/quiver/provider/custom"
	"github.com/quiverkit/quiver/sandbox"
	"github.com/quiverkit/quiver/tool"
)

// hintRecorder refuses every call and keeps what each request suggests:
// the rules, or why there are none.
type hintRecorder struct {
	suggested [][]string
	why       []string
}

func (h *hintRecorder) Approve(_ context.Context, req policy.Request) (policy.Approval, error) {
	h.suggested = append(h.suggested, req.Suggest)
	h.why = append(h.why, req.NoSuggest)
	return policy.Approval{By: "test", Reason: "no"}, nil
}

// TestCustomToolApprovalHint: the approval request for a custom tool
// suggests a rule over the tool's arguments, with the template's words and
// "*" where the value would read as shell, not the shell-like line the value
// makes (issue 15); a value holding $ is asked about whatever the rules
// say, so that call gets no rule, and the reason names the one that passes
// its plain siblings (issue 33: a suggested rule passes its call).
func TestCustomToolApprovalHint(t *testing.T) {
	p, err := custom.New([]custom.Spec{{Name: "echo_it", Command: "echo --title {title}",
		Params: []custom.Param{{Name: "title", Type: "string", Required: true}}}}, custom.Options{})
	if err != nil {
		t.Fatal(err)
	}
	pol, err := policy.New(policy.Config{Default: policy.Ask}, sandbox.WorkspaceWrite)
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
	want := [][]string{nil, {"echo_it(echo --title plain)"}}
	if diff := cmp.Diff(want, rec.suggested); diff != "" {
		t.Errorf("suggested rules (-want +got):\n%s", diff)
	}
	if !strings.Contains(rec.why[0], "echo_it(echo --title *) would pass the calls like it whose values are plain") {
		t.Errorf("why no rule for the first call: %q", rec.why[0])
	}
}

// notAsked refuses every call and counts the requests, for a toolkit that
// should ask about nothing.
type notAsked struct{ asked []string }

func (n *notAsked) Approve(_ context.Context, req policy.Request) (policy.Approval, error) {
	n.asked = append(n.asked, req.Rule)
	return policy.Approval{By: "test", Reason: "asked"}, nil
}

// TestApprovalHintAllowsTheCall: for compound command lines (pipes, &&,
// ;, ||, redirections, subshells) the rules a refusal suggests, once added
// to the allow list exactly as given, let the same call run without asking
// and without a command refused as it runs; and the model's refusal names
// every one of them. A line with a word known only when it runs ($(...))
// gets no rule and says why (issue 33: for `cat a | tee b` the hint was
// exec_command(cat a), after which the same refusal came back).
func TestApprovalHintAllowsTheCall(t *testing.T) {
	for _, c := range []struct {
		line string
		none string // the reason when no rule can pass it
	}{
		{line: "cat a | tee b"},
		{line: "touch x && ls"},
		{line: "echo one > x; echo two >> x"},
		{line: "sort < a > sorted 2>&1"},
		{line: "(mkdir -p sub && touch sub/y)"},
		{line: "cp a c || touch c"},
		{line: "cat a | tee b | wc -l > count"},
		{line: "echo $(touch z)", none: "known only when the line runs"},
		{line: "touch $HOME", none: "known only when the line runs"},
	} {
		t.Run(c.line, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "a"), []byte("x\ny\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			ask := policy.Config{Default: policy.Ask}
			rec := &hintRecorder{}
			tk, err := quiver.New(quiver.WithRoot(dir), builtin.Standard(), quiver.WithPolicy(mustPolicy(t, ask, sandbox.WorkspaceWrite)), quiver.WithApprover(rec))
			if err != nil {
				t.Fatal(err)
			}
			defer tk.Close()
			call := map[string]any{"command": c.line}
			if _, err := tk.Invoke(context.Background(), "exec_command", call); tool.CodeOf(err) != tool.CodeApprovalDenied || len(rec.suggested) != 1 {
				t.Fatalf("without rules: %v after %d requests, want one refused request", err, len(rec.suggested))
			}
			rules := rec.suggested[0]
			if c.none != "" {
				if rules != nil || !strings.Contains(rec.why[0], c.none) {
					t.Errorf("suggested %q (%q), want none because %q", rules, rec.why[0], c.none)
				}
				return
			}
			if len(rules) == 0 {
				t.Fatalf("no rule suggested: %s", rec.why[0])
			}
			// The model gets the same advice: the library's default approver.
			denied, err := quiver.New(quiver.WithRoot(dir), builtin.Standard(), quiver.WithPolicy(mustPolicy(t, ask, sandbox.WorkspaceWrite)))
			if err != nil {
				t.Fatal(err)
			}
			defer denied.Close()
			_, err = denied.Invoke(context.Background(), "exec_command", call)
			for _, r := range rules {
				if !strings.Contains(fmt.Sprint(err), strconv.Quote(r)) {
					t.Errorf("the model's refusal does not name %q: %v", r, err)
				}
			}

			allowed := ask
			allowed.Allow = rules
			n := &notAsked{}
			tk2, err := quiver.New(quiver.WithRoot(dir), builtin.Standard(), quiver.WithPolicy(mustPolicy(t, allowed, sandbox.WorkspaceWrite)), quiver.WithApprover(n))
			if err != nil {
				t.Fatal(err)
			}
			defer tk2.Close()
			out, err := tk2.Invoke(context.Background(), "exec_command", call)
			if len(n.asked) != 0 || err != nil {
				t.Errorf("with %q allowed: asked %q, error %v, output %s", rules, n.asked, err, out.Content.String())
			}
		})
	}
}
