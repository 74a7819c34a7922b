package approve_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/quiverkit/quiver/driver"
	"github.com/quiverkit/quiver/driver/drivertest"
	"github.com/quiverkit/quiver/driver/openai"
	"github.com/quiverkit/quiver/policy"
	"github.com/quiverkit/quiver/policy/approve"
	"github.com/quiverkit/quiver/tool"
)

// reviewer is a Chat Completions server on loopback that answers with one
// vote call, or with an error status. It checks that the request forces the
// vote tool and shows the call under review.
func reviewer(t *testing.T, status int, vote string) driver.Model {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req struct {
			ToolChoice struct {
				Function struct{ Name string } `json:"function"`
			} `json:"tool_choice"`
		}
		json.Unmarshal(body, &req)
		if req.ToolChoice.Function.Name != "vote" || !strings.Contains(string(body), "exec_command") || !strings.Contains(string(body), "rm -rf build") {
			t.Errorf("reviewer request does not force vote on the call: %s", body)
		}
		if status != http.StatusOK {
			http.Error(w, `{"error":{"message":"overloaded","type":"server_error"}}`, status)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":"chatcmpl-v","object":"chat.completion","created":1700000000,"model":"reviewer",
"choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":null,"tool_calls":[
{"id":"call_v","type":"function","function":{"name":"vote","arguments":%q}}]}}]}`, vote)
	}))
	t.Cleanup(srv.Close)
	client := oai.NewClient(option.WithBaseURL(srv.URL), option.WithAPIKey("test-key"), option.WithMaxRetries(0))
	return openai.NewChat(client, "reviewer")
}

const (
	yes = `{"approve":true,"reason":"cleaning build output is part of the task"}`
	no  = `{"approve":false,"reason":"deleting a directory was not asked for"}`
)

func TestQuorum(t *testing.T) {
	ok, failed := http.StatusOK, http.StatusInternalServerError
	type rv struct {
		status int
		vote   string
	}
	tests := []struct {
		name      string
		reviewers []rv
		approved  bool
		reason    []string // in the Reason, in this order
	}{
		{"majority approves", []rv{{ok, yes}, {ok, no}, {ok, yes}}, true,
			[]string{"approved 2-1", "reviewer 1: approve (cleaning build", "reviewer 2: reject (deleting", "reviewer 3: approve"}},
		{"majority rejects", []rv{{ok, no}, {ok, yes}, {ok, no}}, false, []string{"rejected 2-1"}},
		{"tie with a failed reviewer rejects", []rv{{ok, yes}, {failed, ""}, {ok, no}}, false,
			[]string{"tied 1-1", "reviewer 2: no vote (", "500"}},
		{"a failed reviewer casts no vote", []rv{{ok, yes}, {failed, ""}, {failed, ""}}, true, []string{"approved 1-0"}},
		{"all reviewers failing rejects", []rv{{failed, ""}, {failed, ""}, {failed, ""}}, false, []string{"no reviewer voted"}},
		{"a malformed vote is no vote", []rv{{ok, `{"reason":"forgot"}`}, {ok, `{"approve":"yes"}`}}, false,
			[]string{"no reviewer voted", "vote without approve", "malformed vote"}},
		{"no reviewers rejects", nil, false, []string{"no reviewers are configured"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var q approve.Quorum
			for _, r := range tt.reviewers {
				q.Reviewers = append(q.Reviewers, reviewer(t, r.status, r.vote))
			}
			a, err := q.Approve(context.Background(), reviewRequest())
			if err != nil {
				t.Fatal(err)
			}
			if a.Approved != tt.approved || a.By != "quorum" {
				t.Errorf("approved %v by %q, want %v by quorum; reason %q", a.Approved, a.By, tt.approved, a.Reason)
			}
			rest := a.Reason
			for _, want := range tt.reason {
				i := strings.Index(rest, want)
				if i < 0 {
					t.Fatalf("reason %q lacks %q (in order)", a.Reason, want)
				}
				rest = rest[i+len(want):]
			}
		})
	}
}

// A reviewer that does not answer within the timeout casts no vote; the
// others decide.
func TestQuorumTimeout(t *testing.T) {
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		<-r.Context().Done()
	}))
	t.Cleanup(hang.Close)
	slow := openai.NewChat(oai.NewClient(option.WithBaseURL(hang.URL), option.WithAPIKey("k"), option.WithMaxRetries(0)), "slow")
	q := approve.Quorum{Reviewers: []driver.Model{slow, reviewer(t, http.StatusOK, no)}, Timeout: 200 * time.Millisecond}

	a, err := q.Approve(context.Background(), reviewRequest())
	if err != nil {
		t.Fatal(err)
	}
	if a.Approved || !strings.Contains(a.Reason, "rejected 1-0") || !strings.Contains(a.Reason, "reviewer 1: no vote") {
		t.Errorf("approval %+v, want rejected 1-0 with reviewer 1 silent", a)
	}
}

func reviewRequest() policy.Request {
	return policy.Request{Tool: "exec_command", CallID: "call_1", Risk: tool.RiskHigh, Rule: `ask: exec_command`,
		Arguments: json.RawMessage(`{"command":"rm -rf build"}`)}
}

// Reviewers think before they vote when the quorum asks them to: the
// thinking budget reaches a thinking reviewer (here Anthropic's API, whose
// reply opens with thinking blocks), the vote is asked for rather than
// forced (a forced choice is refused with thinking on), and the vote after
// the thinking is read.
func TestQuorumReviewersThink(t *testing.T) {
	srv := drivertest.New(t, drivertest.Anthropic, drivertest.Call{Name: "vote", Arguments: `{"approve":true,"reason":"a build directory"}`}, "")
	q := approve.Quorum{Reviewers: []driver.Model{srv.Model(t)}, Reasoning: driver.ReasoningConfig{BudgetTokens: 2048}}
	a, err := q.Approve(context.Background(), policy.Request{Tool: "exec_command", Arguments: []byte(`{"command":"rm -rf build"}`), Risk: tool.RiskHigh})
	if err != nil || !a.Approved || !strings.Contains(a.Reason, "a build directory") {
		t.Fatalf("Approve = %+v, %v", a, err)
	}
	req := srv.Requests()[0]
	if !strings.Contains(req, `"thinking":{"budget_tokens":2048,"type":"enabled"}`) || !strings.Contains(req, `"tool_choice":{"type":"auto"}`) {
		t.Errorf("reviewer request: %.300s", req[strings.Index(req, `"thinking"`):])
	}
}
