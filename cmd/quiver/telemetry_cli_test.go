//go:build unix

package main

import (
	"context"
	"encoding/hex"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/quiverkit/quiver/telemetry/telemetrytest"
)

// otelEnv points the commands at a loopback OTLP/HTTP receiver, with
// content capture on; the variables the environment of the tests may hold
// are cleared.
func otelEnv(t *testing.T, rc *telemetrytest.Receiver) {
	for _, v := range []string{"OTEL_SDK_DISABLED", "OTEL_TRACES_EXPORTER", "OTEL_METRICS_EXPORTER", "OTEL_EXPORTER_OTLP_PROTOCOL",
		"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", "OTEL_SERVICE_NAME", "OTEL_RESOURCE_ATTRIBUTES"} {
		t.Setenv(v, "")
	}
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", rc.URL)
	t.Setenv("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "true")
}

// TestCallExportsItsSpan: `quiver call` with the OTLP variables sends the
// call's span to the collector before it exits, its arguments redacted.
func TestCallExportsItsSpan(t *testing.T) {
	rc := telemetrytest.NewReceiver(t)
	otelEnv(t, rc)
	dir := workdir(t, map[string]string{"notes.txt": "hello\n"})
	res := runCLI(t, dir, "", "call", "read_file", `{"path":"notes.txt","api_key":"sk-should-not-leak"}`)
	if res.code == 0 {
		t.Fatalf("read_file with an unknown field succeeded: %+v", res)
	}
	res = runCLI(t, dir, "", "call", "read_file", `{"path":"notes.txt"}`)
	if res.code != 0 {
		t.Fatalf("quiver call: %+v", res)
	}
	spans := rc.Spans()
	if len(spans) != 2 {
		t.Fatalf("received %d spans (%v), want the two calls'", len(spans), rc.Paths())
	}
	for _, s := range spans {
		if s.Name != "execute_tool read_file" || s.Resource["service.name"] != "quiver" {
			t.Errorf("span %q, resource %v; want execute_tool read_file from service quiver", s.Name, s.Resource)
		}
	}
	bad, good := spans[0].Attrs(), spans[1].Attrs()
	if bad["error.type"] != "INVALID_ARGUMENTS" || !strings.Contains(bad["gen_ai.tool.call.arguments"], `"api_key":"[REDACTED]"`) ||
		strings.Contains(bad["gen_ai.tool.call.arguments"], "sk-should-not-leak") {
		t.Errorf("the refused call's span: %v", bad)
	}
	if good["gen_ai.tool.call.arguments"] != `{"path":"notes.txt"}` || !strings.Contains(good["gen_ai.tool.call.result"], "hello") {
		t.Errorf("the call's span: %v", good)
	}
}

// TestServeExportsTheClientsTrace: `quiver serve --http` continues the
// trace an MCP client sends in params._meta, and exports the server span and
// the call's span, its child, over OTLP/HTTP.
func TestServeExportsTheClientsTrace(t *testing.T) {
	rc := telemetrytest.NewReceiver(t)
	otelEnv(t, rc)
	dir := workdir(t, map[string]string{"notes.txt": "hello\n"})
	s := startServe(t, dir)
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: s.url, DisableStandaloneSSE: true, HTTPClient: http.DefaultClient}, nil)
	if err != nil {
		t.Fatal(err)
	}
	const trace, parent = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	out, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "read_file", Arguments: map[string]any{"path": "notes.txt"},
		Meta: mcp.Meta{"traceparent": "00-" + trace + "-" + parent + "-01"}})
	if err != nil || out.IsError {
		t.Fatalf("tools/call: %v %v", out, err)
	}
	session := cs.ID()
	cs.Close()
	// SIGTERM: the server flushes what it buffered as it ends.
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-s.done:
	case <-time.After(60 * time.Second):
		t.Fatal("quiver serve did not end within 60s of SIGTERM")
	}
	byName := map[string]telemetrytest.WireSpan{}
	for _, sp := range rc.Spans() {
		byName[sp.Name] = sp
	}
	server, ok := byName["tools/call read_file"]
	if !ok {
		t.Fatalf("no tools/call read_file span among %v", keys(byName))
	}
	if got := hex.EncodeToString(server.TraceId); got != trace || hex.EncodeToString(server.ParentSpanId) != parent {
		t.Errorf("server span in trace %s under %s, want the client's %s under %s", got, hex.EncodeToString(server.ParentSpanId), trace, parent)
	}
	a := server.Attrs()
	want := map[string]string{"mcp.method.name": "tools/call", "mcp.session.id": session, "network.transport": "tcp", "gen_ai.tool.name": "read_file"}
	for k, v := range want {
		if a[k] != v {
			t.Errorf("server span %s = %q, want %q", k, a[k], v)
		}
	}
	if a["jsonrpc.request.id"] == "" || a["mcp.protocol.version"] == "" {
		t.Errorf("server span lacks jsonrpc.request.id or mcp.protocol.version: %v", a)
	}
	call, ok := byName["execute_tool read_file"]
	if !ok || hex.EncodeToString(call.ParentSpanId) != hex.EncodeToString(server.SpanId) {
		t.Errorf("execute_tool read_file %v, want the server span's child", call.Span)
	}
	if got := call.Attrs()["error.type"]; got != "" {
		t.Errorf("the call failed (%s): %v", got, call.Attrs())
	}
}

func keys(m map[string]telemetrytest.WireSpan) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
