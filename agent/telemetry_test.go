package agent_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"go.opentelemetry.io/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/quiverkit/quiver"
	"github.com/quiverkit/quiver/agent"
	"github.com/quiverkit/quiver/driver"
	"github.com/quiverkit/quiver/driver/drivertest"
	"github.com/quiverkit/quiver/provider/builtin"
	"github.com/quiverkit/quiver/telemetry"
	"github.com/quiverkit/quiver/telemetry/telemetrytest"
)

// TestRunSpans: a run is an invoke_agent span, each reply a chat span
// under it and each call an execute_tool span under it; and the Anthropic
// SDK, which records every request through the global tracer provider, does
// not record the run's replies a second time.
func TestRunSpans(t *testing.T) {
	global := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(global))
	prev := otel.GetTracerProvider()
	otel.SetTracerProvider(tp)
	t.Cleanup(func() { otel.SetTracerProvider(prev); tp.Shutdown(context.Background()) })

	srv := drivertest.New(t, drivertest.Anthropic, drivertest.Call{Name: "read_file", Arguments: `{"path":"todo.txt"}`}, "Ship it.")
	model := srv.Model(t)
	rec := telemetrytest.New(t, false)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "todo.txt"), []byte("ship it\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tk, err := quiver.New(quiver.WithRoot(dir), builtin.Standard(),
		quiver.WithTelemetry(rec.Telemetry))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tk.Close() })
	name := drivertest.ModelName[drivertest.Anthropic]
	cfg := agent.Config{Model: model, Toolkit: tk, Traced: telemetry.Model{Provider: "anthropic", Name: name},
		Reasoning: driver.ReasoningConfig{BudgetTokens: 2048}}
	if _, err := agent.Run(context.Background(), cfg, "What is on the list?"); err != nil {
		t.Fatal(err)
	}

	runs, chats, calls := rec.Named("invoke_agent"), rec.Named("chat "+name), rec.Named("execute_tool read_file")
	if len(runs) != 1 || len(chats) != 2 || len(calls) != 1 {
		t.Fatalf("spans %v, want one invoke_agent, two chat %s, one execute_tool read_file", spanNames(rec.Spans()), name)
	}
	run := runs[0].SpanContext.SpanID()
	for _, s := range append(chats, calls...) {
		if s.Parent.SpanID() != run {
			t.Errorf("%s is not the run's child", s.Name)
		}
	}
	a := telemetrytest.Attrs(chats[0])
	if a["gen_ai.provider.name"] != "anthropic" || a["gen_ai.request.model"] != name || a["gen_ai.response.id"] == "" ||
		a["gen_ai.usage.output_tokens"] == "0" || a["gen_ai.response.finish_reasons"] != `["tool_use"]` {
		t.Errorf("first chat span's attributes: %v", a)
	}
	if r := telemetrytest.Attrs(runs[0]); r["quiver.agent.turns"] != "2" || r["error.type"] != "" {
		t.Errorf("invoke_agent attributes: %v", r)
	}
	if n := len(global.GetSpans()); n != 0 {
		t.Errorf("the SDK recorded %d spans of the run's replies as well: %v", n, spanNames(global.GetSpans()))
	}

	// The control: outside a chat span, the SDK does record its request.
	if _, err := model.Generate(context.Background(), driver.Request{Messages: []driver.Message{driver.UserMessage("hi")}}); err != nil {
		t.Fatal(err)
	}
	if n := len(global.GetSpans()); n != 1 {
		t.Errorf("the SDK recorded %d spans of a request made outside the agent loop, want 1 (else this test proves nothing)", n)
	}
}

func spanNames(spans tracetest.SpanStubs) []string {
	var out []string
	for _, s := range spans {
		out = append(out, s.Name)
	}
	return out
}
