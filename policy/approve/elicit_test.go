package approve_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/quiverkit/quiver/policy"
	"github.com/quiverkit/quiver/policy/approve"
	"github.com/quiverkit/quiver/tool"
)

var askReq = policy.Request{
	Tool: "write_file", CallID: "c1", Arguments: json.RawMessage(`{"path":"a.txt","content":"hi"}`),
	Risk: tool.RiskHigh, Rule: "ask: write_file", Suggest: "write_file(a.txt)",
}

// approveOver connects a real go-sdk client (with the given elicitation
// handler, nil for none) to a real server whose one tool runs approver, and
// returns what the approver decided.
func approveOver(t *testing.T, approver policy.Approver, handler func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error)) (policy.Approval, error) {
	t.Helper()
	type outcome struct {
		a   policy.Approval
		err error
	}
	got := make(chan outcome, 1)
	srv := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "ask", InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			a, err := approver.Approve(approve.WithSession(ctx, req.Session), askReq)
			got <- outcome{a, err}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
		})
	ct, st := mcp.NewInMemoryTransports()
	ctx := t.Context()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	client := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1"}, &mcp.ClientOptions{ElicitationHandler: handler})
	cs, err := client.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "ask"}); err != nil {
		t.Fatal(err)
	}
	o := <-got
	return o.a, o.err
}

func answer(action string) func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	return func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		return &mcp.ElicitResult{Action: action}, nil
	}
}

func TestElicitAsksTheClientsUser(t *testing.T) {
	tests := []struct {
		name     string
		approver approve.Elicit
		handler  func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error)
		want     policy.Approval
	}{
		{"elicit: accept runs the call", approve.Elicit{}, answer("accept"),
			policy.Approval{Approved: true, By: "elicit"}},
		{"elicit: decline refuses", approve.Elicit{}, answer("decline"),
			policy.Approval{By: "elicit", Reason: "declined by the user"}},
		{"elicit: cancel refuses", approve.Elicit{}, answer("cancel"),
			policy.Approval{By: "elicit", Reason: "the user dismissed the request without approving it"}},
		{"elicit: no answer in time refuses", approve.Elicit{Timeout: 50 * time.Millisecond},
			func(ctx context.Context, _ *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				<-ctx.Done()
				return nil, ctx.Err()
			},
			policy.Approval{By: "elicit", Reason: "no answer from the user within 50ms"}},
		{"elicit: client without elicitation gets the deny fallback", approve.Elicit{}, nil,
			policy.Approval{By: "elicit-fallback", Reason: `approval required (ask: write_file) but the MCP client does not support elicitation; allow it with the rule "write_file(a.txt)", or change [serve] ask_fallback`}},
		{"elicit: an explicit allow fallback is recorded as the fallback's", approve.Elicit{Fallback: policy.Allow}, nil,
			policy.Approval{Approved: true, By: "elicit-fallback"}},
		{"elicit: a fallback of ask is not a yes", approve.Elicit{Fallback: policy.Ask}, nil,
			policy.Approval{By: "elicit-fallback", Reason: `approval required (ask: write_file) but the MCP client does not support elicitation; allow it with the rule "write_file(a.txt)", or change [serve] ask_fallback`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := approveOver(t, tt.approver, tt.handler)
			if err != nil {
				t.Fatalf("Approve: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("approval (-want +got):\n%s", diff)
			}
		})
	}
}

func TestElicitShowsTheCall(t *testing.T) {
	var asked *mcp.ElicitParams
	_, err := approveOver(t, approve.Elicit{}, func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		asked = req.Params
		return &mcp.ElicitResult{Action: "decline"}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"write_file", "risk high", "ask: write_file", `"path": "a.txt"`, `"write_file(a.txt)"`} {
		if !strings.Contains(asked.Message, want) {
			t.Errorf("question %q does not show %q", asked.Message, want)
		}
	}
	if asked.Mode != "form" {
		t.Errorf("mode = %q, want form", asked.Mode)
	}
}

func TestElicitWithoutSessionFallsBack(t *testing.T) {
	got, err := approve.Elicit{}.Approve(context.Background(), askReq)
	if err != nil {
		t.Fatal(err)
	}
	if got.Approved || got.By != "elicit-fallback" || !strings.Contains(got.Reason, "did not come through an MCP session") {
		t.Errorf("approval = %+v, want a refusal by the fallback naming the missing session", got)
	}
}

func TestElicitFailingSessionIsAnError(t *testing.T) {
	got, err := approveOver(t, approve.Elicit{}, func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		return nil, &jsonrpcError{}
	})
	if err == nil || got.Approved {
		t.Fatalf("approval = %+v, err = %v; want an error and no approval", got, err)
	}
}

type jsonrpcError struct{}

func (*jsonrpcError) Error() string { return "client broke" }

func TestQuestionCutsLongArgumentsVisibly(t *testing.T) {
	req := askReq
	req.Arguments = json.RawMessage(`{"content":"` + strings.Repeat("x", 10000) + `"}`)
	q := approve.Question(req)
	if !strings.Contains(q, "more bytes not shown") {
		t.Errorf("question does not say the arguments were cut: %q", q[len(q)-200:])
	}
	if len(q) > 5000 {
		t.Errorf("question is %d bytes, want it bounded", len(q))
	}
}
