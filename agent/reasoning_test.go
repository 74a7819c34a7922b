package agent_test

import (
	"context"
	"errors"
	"maps"
	"strings"
	"testing"

	"github.com/quiverkit/quiver/agent"
	"github.com/quiverkit/quiver/driver"
	"github.com/quiverkit/quiver/driver/drivertest"
)

// sentReasoning is what the first request must carry for thinking to be on.
var sentReasoning = map[drivertest.Provider][]string{
	drivertest.Anthropic: {`"thinking":{"budget_tokens":2048,"type":"enabled"}`},
	drivertest.Responses: {`"effort":"high"`, `"store":false`, `"include":["reasoning.encrypted_content"]`},
	drivertest.DeepSeek:  {`"reasoning_effort":"high"`},
	drivertest.Gemini:    {`"thinkingBudget":2048`, `"includeThoughts":true`},
}

// Each provider's loopback API refuses the second request, with the real
// API's error, unless the first turn's reasoning comes back byte for byte.
// The run must get through it, streaming and not, and must fail against it
// when the reasoning is dropped (which shows the rule is enforced).
func TestRunSendsReasoningBackAsEachAPIRequires(t *testing.T) {
	for _, p := range drivertest.Providers {
		for _, stream := range []bool{false, true} {
			name := string(p)
			if stream {
				name += "/stream"
			}
			t.Run(name, func(t *testing.T) {
				srv := drivertest.New(t, p, drivertest.Call{Name: "read_file", Arguments: `{"path":"todo.txt"}`}, "The list has one item: ship it.")
				cfg := agent.Config{Model: srv.Model(t), Toolkit: newToolkit(t, map[string]string{"todo.txt": "ship it\n"}),
					Reasoning: driver.ReasoningConfig{BudgetTokens: 2048, Effort: "high"}}
				var thinking strings.Builder
				if stream {
					cfg.OnEvent = func(ev driver.Event) {
						if ev.Type == driver.EventReasoningDelta {
							thinking.WriteString(ev.Delta)
						}
					}
				}
				res, err := agent.Run(context.Background(), cfg, "What is on the list?")
				if err != nil {
					t.Fatalf("run: %v\nlast request: %.600s", err, lastMessages(srv.Requests()))
				}
				if res.Text != "The list has one item: ship it." || res.Turns != 2 || res.Usage.ReasoningTokens == 0 {
					t.Errorf("result: text %q, %d turns, usage %+v", res.Text, res.Turns, res.Usage)
				}
				if stream && thinking.Len() == 0 {
					t.Errorf("no thinking streamed")
				}
				for _, want := range sentReasoning[p] {
					if reqs := srv.Requests(); !strings.Contains(reqs[0], want) {
						t.Errorf("the first request lacks %s", want)
					}
				}
				if r := res.Messages[1].Reasoning; len(r) == 0 {
					t.Errorf("the first reply's reasoning is not in the conversation: %+v", res.Messages[1])
				}
			})
		}
	}
}

// stripReasoning is a model that forgets every turn's reasoning, and the
// thought signatures on its calls, before it asks: what a driver that
// ignored reasoning sent.
type stripReasoning struct{ driver.Model }

func (m stripReasoning) strip(req driver.Request) driver.Request {
	msgs := make([]driver.Message, len(req.Messages))
	for i, msg := range req.Messages {
		msg.Reasoning = nil
		msg.ToolCalls = append([]driver.ToolCall(nil), msg.ToolCalls...)
		for j, c := range msg.ToolCalls {
			c.Metadata = maps.Clone(c.Metadata)
			delete(c.Metadata, driver.MetaThoughtSignature)
			msg.ToolCalls[j] = c
		}
		msgs[i] = msg
	}
	req.Messages = msgs
	return req
}

func (m stripReasoning) Generate(ctx context.Context, req driver.Request) (*driver.Response, error) {
	return m.Model.Generate(ctx, m.strip(req))
}

func (m stripReasoning) Stream(ctx context.Context, req driver.Request) (driver.Stream, error) {
	return m.Model.Stream(ctx, m.strip(req))
}

func TestRunFailsWhereReasoningIsDropped(t *testing.T) {
	want := map[drivertest.Provider]string{
		drivertest.Anthropic: "Expected `thinking` or `redacted_thinking`, but found `tool_use`",
		drivertest.Responses: "without its required 'reasoning' item",
		drivertest.DeepSeek:  "The reasoning_content in the thinking mode must be passed back to the API.",
		drivertest.Gemini:    "Function call is missing a thought_signature",
	}
	for _, p := range drivertest.Providers {
		t.Run(string(p), func(t *testing.T) {
			srv := drivertest.New(t, p, drivertest.Call{Name: "read_file", Arguments: `{"path":"todo.txt"}`}, "unreachable")
			cfg := agent.Config{Model: stripReasoning{srv.Model(t)}, Toolkit: newToolkit(t, map[string]string{"todo.txt": "ship it\n"}),
				Reasoning: driver.ReasoningConfig{BudgetTokens: 2048}}
			_, err := agent.Run(context.Background(), cfg, "What is on the list?")
			if err == nil || !strings.Contains(err.Error(), "400") || len(srv.Refused()) != 1 || !strings.Contains(srv.Refused()[0], want[p]) {
				t.Fatalf("run: %v; refused %q; want a 400 with %q", err, srv.Refused(), want[p])
			}
		})
	}
}

// lastMessages is the conversation part of the last request, for failure
// messages (the tool catalogue would drown it).
func lastMessages(reqs []string) string {
	if len(reqs) == 0 {
		return "(no request)"
	}
	last := reqs[len(reqs)-1]
	for _, key := range []string{`"messages":`, `"input":`, `"contents":`} {
		if i := strings.Index(last, key); i >= 0 {
			return last[i:]
		}
	}
	return last
}

// A reply cut off by the output limit ends the run as incomplete, on every
// provider, and the limit asked for is the one sent.
func TestRunReportsACutOffReplyAsIncomplete(t *testing.T) {
	for _, p := range drivertest.Providers {
		t.Run(string(p), func(t *testing.T) {
			srv := drivertest.CutOff(t, p, "The list has one item, and it is")
			res, err := agent.Run(context.Background(), agent.Config{Model: srv.Model(t), Toolkit: newToolkit(t, nil), MaxOutputTokens: 64}, "What is on the list?")
			if !errors.Is(err, agent.ErrIncomplete) || res == nil || res.Turns != 1 || res.Text != "The list has one item, and it is" {
				t.Fatalf("run: %v, result %+v", err, res)
			}
		})
	}
}
