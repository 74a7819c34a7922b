package telemetry_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/quiverkit/quiver/telemetry"
	"github.com/quiverkit/quiver/telemetry/telemetrytest"
)

func TestToolSpan(t *testing.T) {
	tests := []struct {
		name      string
		called    string
		outcome   telemetry.ToolOutcome
		wantName  string
		wantAttrs map[string]string
		wantError bool
		// the metrics' gen_ai.tool.name
		metricName string
	}{{
		name:   "ok",
		called: "read_file",
		outcome: telemetry.ToolOutcome{Resolved: true, Type: telemetry.ToolTypeFunction, Provider: "builtin", Risk: "low",
			Decision: "allow", Rule: "read_file", Sandbox: "read-only", OutputRef: "out_1", BytesStored: 70000,
			Arguments: `{"path":"a"}`, Result: "1\tx"},
		wantName: "execute_tool read_file",
		wantAttrs: map[string]string{
			"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "read_file", "gen_ai.tool.call.id": "call_1",
			"gen_ai.tool.type": "function", "quiver.tool.provider": "builtin", "quiver.tool.risk": "low",
			"quiver.policy.decision": "allow", "quiver.policy.rule": "read_file", "quiver.sandbox.profile": "read-only",
			"quiver.output.ref": "out_1", "quiver.output.bytes_stored": "70000",
			"gen_ai.tool.call.arguments": `{"path":"a"}`, "gen_ai.tool.call.result": "1\tx",
		},
		metricName: "read_file",
	}, {
		name:   "refused",
		called: "exec_command",
		outcome: telemetry.ToolOutcome{Resolved: true, Type: telemetry.ToolTypeFunction, Risk: "high", Decision: "deny",
			Rule: "exec_command(rm *)", Code: "TOOL_NOT_ALLOWED", Message: "call refused by policy",
			Arguments: `{"command":"rm -rf x"}`, Result: "Error executing tool"},
		wantName: "execute_tool exec_command",
		wantAttrs: map[string]string{
			"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "exec_command", "gen_ai.tool.call.id": "call_1",
			"gen_ai.tool.type": "function", "quiver.tool.risk": "high", "quiver.policy.decision": "deny",
			"quiver.policy.rule": "exec_command(rm *)", "error.type": "TOOL_NOT_ALLOWED", "quiver.error.code": "TOOL_NOT_ALLOWED",
			"gen_ai.tool.call.arguments": `{"command":"rm -rf x"}`, // no result: the call failed
		},
		wantError:  true,
		metricName: "exec_command",
	}, {
		name:       "an unknown name is _OTHER in metrics",
		called:     "invented_tool",
		outcome:    telemetry.ToolOutcome{Code: "TOOL_NOT_FOUND", Message: "no such tool"},
		wantName:   "execute_tool invented_tool",
		wantAttrs:  map[string]string{"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "invented_tool", "gen_ai.tool.call.id": "call_1", "error.type": "TOOL_NOT_FOUND", "quiver.error.code": "TOOL_NOT_FOUND"},
		wantError:  true,
		metricName: telemetry.Other,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := telemetrytest.New(t, true)
			ctx, call := rec.StartTool(context.Background(), tt.called, "call_1")
			if !trace.SpanFromContext(ctx).IsRecording() {
				t.Error("the context StartTool returns carries no recording span")
			}
			call.End(tt.outcome)
			spans := rec.Spans()
			if len(spans) != 1 {
				t.Fatalf("%d spans, want 1", len(spans))
			}
			s := spans[0]
			if s.Name != tt.wantName || s.SpanKind != trace.SpanKindInternal {
				t.Errorf("span %q kind %v, want %q internal", s.Name, s.SpanKind, tt.wantName)
			}
			if diff := cmp.Diff(tt.wantAttrs, telemetrytest.Attrs(s)); diff != "" {
				t.Errorf("attributes (-want +got):\n%s", diff)
			}
			if got := s.Status.Code == codes.Error; got != tt.wantError {
				t.Errorf("status %v, want error %v", s.Status, tt.wantError)
			}
			outcome, code := "ok", ""
			if tt.outcome.Code != "" {
				outcome, code = "error", tt.outcome.Code
			}
			wantCalls := map[string]string{"gen_ai.tool.name": tt.metricName, "quiver.outcome": outcome}
			if code != "" {
				wantCalls["quiver.error.code"] = code
			}
			if diff := cmp.Diff([]telemetrytest.Point{{Attrs: wantCalls, Value: 1}}, rec.Points(t, "quiver.tool.calls")); diff != "" {
				t.Errorf("quiver.tool.calls (-want +got):\n%s", diff)
			}
			durations := rec.Points(t, "gen_ai.execute_tool.duration")
			if len(durations) != 1 || durations[0].Value != 1 || durations[0].Attrs["gen_ai.tool.name"] != tt.metricName ||
				durations[0].Attrs["error.type"] != code {
				t.Errorf("gen_ai.execute_tool.duration = %+v, want one point for %s with error.type %q", durations, tt.metricName, code)
			}
		})
	}
}

// TestMCPSpanParent: the trace context a client puts in params._meta is the
// server span's parent; a span the request's context already holds is
// linked, not the parent.
func TestMCPSpanParent(t *testing.T) {
	rec := telemetrytest.New(t, false)
	const traceID, spanID = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	meta := map[string]any{"traceparent": "00-" + traceID + "-" + spanID + "-01", "tracestate": "rojo=00f067aa0ba902b7"}
	ambientCtx, ambient := rec.StartTool(context.Background(), "transport", "")
	ctx, op := rec.StartMCP(ambientCtx, telemetry.MCPRequest{Method: "tools/call", Target: "read_file", SessionID: "S1",
		RequestID: "7", ProtocolVersion: "2025-06-18", Transport: telemetry.TransportTCP, Meta: meta})
	_, child := rec.StartTool(ctx, "read_file", "mcp_1")
	child.End(telemetry.ToolOutcome{Resolved: true})
	op.End(telemetry.MCPResult{ErrorType: "tool_error", Message: "it failed"})
	ambient.End(telemetry.ToolOutcome{Resolved: true})

	server := rec.Named("tools/call read_file")
	if len(server) != 1 {
		t.Fatalf("spans %v, want one tools/call read_file", rec.Spans())
	}
	s := server[0]
	if s.SpanKind != trace.SpanKindServer {
		t.Errorf("kind %v, want server", s.SpanKind)
	}
	if got := s.Parent.TraceID().String(); got != traceID || s.Parent.SpanID().String() != spanID || !s.Parent.IsRemote() {
		t.Errorf("parent %v, want the client's remote span %s/%s", s.Parent, traceID, spanID)
	}
	if got := s.SpanContext.TraceState().Get("rojo"); got != spanID {
		t.Errorf("tracestate rojo = %q, want it carried over", got)
	}
	if len(s.Links) != 1 || s.Links[0].SpanContext.SpanID() != ambientSpanID(rec) {
		t.Errorf("links %v, want the ambient span", s.Links)
	}
	want := map[string]string{"mcp.method.name": "tools/call", "gen_ai.tool.name": "read_file", "gen_ai.operation.name": "execute_tool",
		"mcp.session.id": "S1", "jsonrpc.request.id": "7", "mcp.protocol.version": "2025-06-18", "network.transport": "tcp",
		"network.protocol.name": "http", "error.type": "tool_error"}
	if diff := cmp.Diff(want, telemetrytest.Attrs(s)); diff != "" {
		t.Errorf("attributes (-want +got):\n%s", diff)
	}
	tool := rec.Named("execute_tool read_file")[0]
	if tool.Parent.SpanID() != s.SpanContext.SpanID() {
		t.Errorf("execute_tool's parent %v, want the server span %v", tool.Parent.SpanID(), s.SpanContext.SpanID())
	}
	points := rec.Points(t, "mcp.server.operation.duration")
	if len(points) != 1 || points[0].Attrs["mcp.method.name"] != "tools/call" || points[0].Attrs["error.type"] != "tool_error" ||
		points[0].Attrs["mcp.session.id"] != "" {
		t.Errorf("mcp.server.operation.duration = %+v, want one tools/call point, error.type tool_error, no session id", points)
	}
}

func ambientSpanID(rec *telemetrytest.Recorder) trace.SpanID {
	return rec.Named("execute_tool transport")[0].SpanContext.SpanID()
}

// TestMCPSpanWithoutContext: with no trace context in _meta the server span
// starts its own trace, and a notification has no request id.
func TestMCPSpanWithoutContext(t *testing.T) {
	rec := telemetrytest.New(t, false)
	_, op := rec.StartMCP(context.Background(), telemetry.MCPRequest{Method: "notifications/initialized",
		Transport: telemetry.TransportPipe, Meta: map[string]any{"traceparent": 42}})
	op.End(telemetry.MCPResult{})
	s := rec.Named("notifications/initialized")
	if len(s) != 1 || s[0].Parent.IsValid() {
		t.Fatalf("spans %v, want one root span notifications/initialized", rec.Spans())
	}
	want := map[string]string{"mcp.method.name": "notifications/initialized", "network.transport": "pipe"}
	if diff := cmp.Diff(want, telemetrytest.Attrs(s[0])); diff != "" {
		t.Errorf("attributes (-want +got):\n%s", diff)
	}
}

func TestAgentSpans(t *testing.T) {
	rec := telemetrytest.New(t, false)
	m := telemetry.Model{Provider: "gemini", Name: "gemini-2.5-pro"}
	ctx, run := rec.StartAgent(context.Background(), m)
	if telemetry.ModelCallTraced(ctx) {
		t.Error("the run's context says a model call is traced")
	}
	chatCtx, chat := rec.StartChat(ctx, m)
	if !telemetry.ModelCallTraced(chatCtx) {
		t.Error("the chat's context does not say the model call is traced")
	}
	chat.EndChat(&telemetry.ChatResponse{ID: "r1", Model: "gemini-2.5-pro-001", FinishReason: "tool_calls",
		Usage: telemetry.Usage{Input: 10, Output: 5}}, "", nil)
	_, failed := rec.StartChat(ctx, m)
	failed.EndChat(nil, "", errors.New("connection reset"))
	run.EndAgent(2, telemetry.Usage{Input: 10, Output: 5}, "BUDGET_EXCEEDED", errors.New("the turn budget is spent"))

	chats := rec.Named("chat gemini-2.5-pro")
	if len(chats) != 2 {
		t.Fatalf("spans %v, want two chat spans", rec.Spans())
	}
	want := map[string]string{"gen_ai.operation.name": "chat", "gen_ai.provider.name": "gcp.gemini", "gen_ai.request.model": "gemini-2.5-pro",
		"gen_ai.response.id": "r1", "gen_ai.response.model": "gemini-2.5-pro-001", "gen_ai.response.finish_reasons": `["tool_calls"]`,
		"gen_ai.usage.input_tokens": "10", "gen_ai.usage.output_tokens": "5", "gen_ai.usage.cache_read.input_tokens": "0",
		"gen_ai.usage.reasoning.output_tokens": "0"}
	if diff := cmp.Diff(want, telemetrytest.Attrs(chats[0])); diff != "" {
		t.Errorf("chat attributes (-want +got):\n%s", diff)
	}
	if chats[0].SpanKind != trace.SpanKindClient {
		t.Errorf("chat kind %v, want client", chats[0].SpanKind)
	}
	if got := telemetrytest.Attrs(chats[1])["error.type"]; got != telemetry.Other || chats[1].Status.Code != codes.Error {
		t.Errorf("failed chat: error.type %q status %v, want _OTHER and an error", got, chats[1].Status)
	}
	agent := rec.Named("invoke_agent")
	if len(agent) != 1 {
		t.Fatalf("spans %v, want one invoke_agent", rec.Spans())
	}
	a := telemetrytest.Attrs(agent[0])
	if a["gen_ai.operation.name"] != "invoke_agent" || a["error.type"] != "BUDGET_EXCEEDED" || a["quiver.agent.turns"] != "2" {
		t.Errorf("invoke_agent attributes %v", a)
	}
	if chats[0].Parent.SpanID() != agent[0].SpanContext.SpanID() {
		t.Error("a chat span is not the run's child")
	}
}

// TestNilTelemetry: every method is safe on nil, and records nothing.
func TestNilTelemetry(t *testing.T) {
	var tel *telemetry.Telemetry
	ctx := context.Background()
	c2, call := tel.StartTool(ctx, "x", "1")
	call.End(telemetry.ToolOutcome{})
	c3, op := tel.StartMCP(ctx, telemetry.MCPRequest{Method: "ping"})
	op.End(telemetry.MCPResult{})
	c4, run := tel.StartAgent(ctx, telemetry.Model{})
	run.EndAgent(0, telemetry.Usage{}, "", nil)
	c5, chat := tel.StartChat(ctx, telemetry.Model{})
	chat.EndChat(nil, "", nil)
	tel.Inject(ctx, map[string]any{})
	for _, c := range []context.Context{c2, c3, c4, c5} {
		if c != ctx {
			t.Error("a nil Telemetry changed the context")
		}
	}
	if tel.CapturesContent() || telemetry.ModelCallTraced(c5) {
		t.Error("a nil Telemetry captures content or traces a model call")
	}
}

func TestInjectRoundTrip(t *testing.T) {
	rec := telemetrytest.New(t, false)
	ctx, call := rec.StartTool(context.Background(), "client", "")
	meta := map[string]any{}
	rec.Inject(ctx, meta)
	_, op := rec.StartMCP(context.Background(), telemetry.MCPRequest{Method: "ping", Meta: meta})
	op.End(telemetry.MCPResult{})
	call.End(telemetry.ToolOutcome{})
	if got, want := rec.Named("ping")[0].Parent.SpanID(), rec.Named("execute_tool client")[0].SpanContext.SpanID(); got != want {
		t.Errorf("parent %v, want the injecting span %v", got, want)
	}
}

func TestCaptureContentFromEnv(t *testing.T) {
	tests := []struct {
		value   string
		want    bool
		wantErr bool
	}{
		{"", false, false}, {"false", false, false}, {"NO_CONTENT", false, false}, {"EVENT_ONLY", false, false},
		{"true", true, false}, {"TRUE", true, false}, {"SPAN_ONLY", true, false}, {"span_and_event", true, false},
		{"yes", false, true}, {"1", false, true},
	}
	for _, tt := range tests {
		got, err := telemetry.CaptureContentFromEnv(func(k string) string {
			if k == telemetry.CaptureContentEnv {
				return tt.value
			}
			return ""
		})
		if got != tt.want || (err != nil) != tt.wantErr {
			t.Errorf("%q: %v, %v; want %v, error %v", tt.value, got, err, tt.want, tt.wantErr)
		}
	}
}
