package approve_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
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

var askReq = approve.Viewed(policy.Request{
	Tool: "write_file", CallID: "c1", Arguments: json.RawMessage(`{"path":"a.txt","content":"hi"}`),
	Risk: tool.RiskHigh, Rule: "ask: write_file", Suggest: []string{"write_file(a.txt)"},
})

// approveOver connects a real go-sdk client (with the given elicitation
// handler, nil for none) to a real server whose one tool runs approver, and
// returns what the approver decided.
func approveOver(t *testing.T, approver policy.Approver, handler func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error)) (policy.Approval, error) {
	t.Helper()
	return approveReqOver(t, approver, askReq, handler)
}

// approveReqOver is approveOver asking about req.
func approveReqOver(t *testing.T, approver policy.Approver, req policy.Request, handler func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error)) (policy.Approval, error) {
	t.Helper()
	type outcome struct {
		a   policy.Approval
		err error
	}
	got := make(chan outcome, 1)
	srv := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "ask", InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, creq *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			a, err := approver.Approve(approve.WithSession(ctx, creq.Session), req)
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
	for _, want := range []string{"write_file", "risk high", "ask: write_file", "path: a.txt", "+ hi", `"write_file(a.txt)"`} {
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

// attack is the report's command: ESC[2K and a carriage return that,
// printed raw, erase the line and show a fake command, then a bidi
// override; with an env entry and background: true that must be shown.
const attack = "echo x >> .git/config # \x1b[2K\r$ go test ./... \u202egnp.txt"

func execReq(command string) policy.Request {
	args, _ := json.Marshal(map[string]any{"command": command, "env": []string{"GIT_CONFIG_GLOBAL=/tmp/evil"}, "background": true})
	return approve.Viewed(policy.Request{Tool: "exec_command", CallID: "c2", Arguments: args, Risk: tool.RiskHigh, Rule: "default = ask"})
}

// TestElicitShowsExactlyWhatRuns asks a real go-sdk client: the message
// holds every field, escapes made visible, and a 100 KB command whole.
func TestElicitShowsExactlyWhatRuns(t *testing.T) {
	long := strings.Repeat("y", 100<<10)
	for _, command := range []string{attack, "true " + long + " " + attack} {
		var asked string
		_, err := approveReqOver(t, approve.Elicit{}, execReq(command), func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			asked = req.Params.Message
			return &mcp.ElicitResult{Action: "decline"}, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{`# \x1b[2K\r$ go test ./... \u202egnp.txt`, `env: ["GIT_CONFIG_GLOBAL=/tmp/evil"]`, "background: true",
			"control or invisible characters are shown as escapes"} {
			if !strings.Contains(asked, want) {
				t.Errorf("the question lacks %q", want)
			}
		}
		if strings.ContainsAny(asked, "\x1b\r\u202e") {
			t.Error("the question holds a raw control character")
		}
		if len(command) > len(attack) && !strings.Contains(asked, long) {
			t.Error("the 100 KB command was cut")
		}
	}
}

// TestElicitRefusesWhatCannotBeShown: a call too large to show is refused
// without asking, saying its size and digest.
func TestElicitRefusesWhatCannotBeShown(t *testing.T) {
	req := execReq(strings.Repeat("z", approve.MaxElicitBytes))
	asked := false
	got, err := approveReqOver(t, approve.Elicit{}, req, func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		asked = true
		return &mcp.ElicitResult{Action: "accept"}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(req.Arguments)
	if asked || got.Approved || !strings.Contains(got.Reason, "too large to show") || !strings.Contains(got.Reason, hex.EncodeToString(sum[:])) {
		t.Errorf("asked %v, approval %+v; want a refusal without asking, naming the sha256", asked, got)
	}
}
