package mcpserver_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/trace"

	"github.com/quiverkit/quiver"
	"github.com/quiverkit/quiver/mcpserver"
	"github.com/quiverkit/quiver/telemetry/telemetrytest"
)

// The client's span, as its traceparent names it.
const (
	clientTrace = "4bf92f3577b34da6a3ce929d0e0e4736"
	clientSpan  = "00f067aa0ba902b7"
	traceparent = "00-" + clientTrace + "-" + clientSpan + "-01"
)

// idRecorder is an HTTP client transport that notes the JSON-RPC id of
// every tools/call the client posts, to hold the server's spans to it.
type idRecorder struct {
	mu  sync.Mutex
	ids []string
}

func (r *idRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil && req.Method == http.MethodPost {
		body, err := io.ReadAll(req.Body)
		if err != nil {
			return nil, err
		}
		req.Body = io.NopCloser(bytes.NewReader(body))
		var m struct {
			Method string          `json:"method"`
			ID     json.RawMessage `json:"id"`
		}
		if json.Unmarshal(body, &m) == nil && m.Method == "tools/call" {
			r.mu.Lock()
			r.ids = append(r.ids, string(m.ID))
			r.mu.Unlock()
		}
	}
	return http.DefaultTransport.RoundTrip(req)
}

// TestHTTPTraceContinuesFromTheClient: a go-sdk client over streamable
// HTTP sends its traceparent in params._meta; the server's span is its
// child, with the MCP attributes, and the call's execute_tool span is the
// server span's child.
func TestHTTPTraceContinuesFromTheClient(t *testing.T) {
	rec := telemetrytest.New(t, false)
	f := newFixture(t, quiver.WithTelemetry(rec.Telemetry))
	url, _ := serveHTTP(t, newServer(t, f, mcpserver.Options{}))
	ids := &idRecorder{}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(t.Context(),
		&mcp.StreamableClientTransport{Endpoint: url, DisableStandaloneSSE: true, HTTPClient: &http.Client{Transport: ids}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hi"},
		Meta: mcp.Meta{"traceparent": traceparent, "tracestate": "rojo=1"}})
	if err != nil || res.IsError {
		t.Fatalf("tools/call: %v %v", res, err)
	}

	servers := rec.Named("tools/call echo")
	if len(servers) != 1 {
		t.Fatalf("spans %v, want one tools/call echo", names(rec))
	}
	s := servers[0]
	if s.SpanKind != trace.SpanKindServer || s.Parent.TraceID().String() != clientTrace || s.Parent.SpanID().String() != clientSpan {
		t.Errorf("server span kind %v parent %v, want server, child of the client's %s/%s", s.SpanKind, s.Parent, clientTrace, clientSpan)
	}
	ids.mu.Lock()
	want := map[string]string{"mcp.method.name": "tools/call", "gen_ai.tool.name": "echo", "gen_ai.operation.name": "execute_tool",
		"mcp.session.id": cs.ID(), "jsonrpc.request.id": ids.ids[0], "mcp.protocol.version": mcpserver.ProtocolVersions[0],
		"network.transport": "tcp", "network.protocol.name": "http"}
	ids.mu.Unlock()
	if diff := cmp.Diff(want, telemetrytest.Attrs(s)); diff != "" {
		t.Errorf("server span attributes (-want +got):\n%s", diff)
	}
	calls := rec.Named("execute_tool echo")
	if len(calls) != 1 || calls[0].Parent.SpanID() != s.SpanContext.SpanID() || calls[0].SpanContext.TraceID().String() != clientTrace {
		t.Fatalf("execute_tool spans %v, want one, the server span's child in the client's trace", calls)
	}
	if got := telemetrytest.Attrs(calls[0])["gen_ai.tool.call.id"]; got == "" {
		t.Error("execute_tool has no gen_ai.tool.call.id")
	}
	if len(rec.Named("initialize")) != 1 {
		t.Errorf("spans %v, want the initialize request's", names(rec))
	}
	var toolCalls int
	for _, p := range rec.Points(t, "mcp.server.operation.duration") {
		if p.Attrs["mcp.method.name"] == "tools/call" {
			toolCalls += int(p.Value)
		}
	}
	if toolCalls != 1 {
		t.Errorf("mcp.server.operation.duration counts %d tools/call, want 1", toolCalls)
	}
}

// TestStdioSpans: over stdio the request's id, whatever its type, is the
// span's jsonrpc.request.id, the transport is a pipe, there is no session
// id, and the answer still carries the client's own id and no trace of
// the copy the transport made.
func TestStdioSpans(t *testing.T) {
	rec := telemetrytest.New(t, false)
	f := newFixture(t, quiver.WithTelemetry(rec.Telemetry))
	r := startRaw(t, newServer(t, f, mcpserver.Options{}))
	r.initialize()
	r.send(`{"jsonrpc":"2.0","id":"req-7","method":"tools/call","params":{"name":"boom","arguments":{},"_meta":{"traceparent":"` + traceparent + `"}}}`)
	got := r.recv()
	if got["id"] != "req-7" {
		t.Errorf("answer %v, want id req-7", got)
	}
	if bytes.Contains(mustJSON(t, got), []byte("jsonrpc.request.id")) {
		t.Errorf("the answer carries the transport's copy of the id: %v", got)
	}
	s := rec.Named("tools/call boom")
	if len(s) != 1 {
		t.Fatalf("spans %v, want one tools/call boom", names(rec))
	}
	want := map[string]string{"mcp.method.name": "tools/call", "gen_ai.tool.name": "boom", "gen_ai.operation.name": "execute_tool",
		"jsonrpc.request.id": "req-7", "mcp.protocol.version": "2025-06-18", "network.transport": "pipe", "error.type": "tool_error"}
	if diff := cmp.Diff(want, telemetrytest.Attrs(s[0])); diff != "" {
		t.Errorf("attributes (-want +got):\n%s", diff)
	}
	if s[0].Parent.SpanID().String() != clientSpan {
		t.Errorf("parent %v, want the client's span", s[0].Parent)
	}
	tool := rec.Named("execute_tool boom")
	if len(tool) != 1 || telemetrytest.Attrs(tool[0])["error.type"] != "INTERNAL" {
		t.Errorf("execute_tool boom = %v, want one, error.type INTERNAL", tool)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func names(rec *telemetrytest.Recorder) []string {
	var out []string
	for _, s := range rec.Spans() {
		out = append(out, s.Name)
	}
	return out
}
