package quiver_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/quiverkit/quiver"
	"github.com/quiverkit/quiver/audit"
	"github.com/quiverkit/quiver/driver"
	"github.com/quiverkit/quiver/hooks"
	"github.com/quiverkit/quiver/policy"
	"github.com/quiverkit/quiver/telemetry"
	"github.com/quiverkit/quiver/tool"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

type benchInput struct {
	Name  string `json:"name"`
	Count int    `json:"count"`
	Loud  bool   `json:"loud,omitempty"`
}

type benchOutput struct {
	Greeting string `json:"greeting"`
}

func greet(_ context.Context, _ tool.Context, in benchInput) (benchOutput, error) {
	return benchOutput{Greeting: in.Name}, nil
}

var benchArgs = json.RawMessage(`{"name":"quiver","count":3,"loud":true}`)

// BenchmarkInvoke is a typed tool with three fields through the whole
// pipeline: resolve, gate, check, validate, decide (allow policy), execute,
// render, cache step, and audit to a discarding sink.
func BenchmarkInvoke(b *testing.B) { benchInvoke(b) }

// BenchmarkInvokeTraced is BenchmarkInvoke with tracing and metrics on: the
// OpenTelemetry SDK's providers, spans batched to an exporter that drops
// them, metrics aggregated for a reader.
func BenchmarkInvokeTraced(b *testing.B) {
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(tracetest.NewNoopExporter()))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
	defer tp.Shutdown(context.Background())
	defer mp.Shutdown(context.Background())
	tel, err := telemetry.New(telemetry.Options{TracerProvider: tp, MeterProvider: mp})
	if err != nil {
		b.Fatal(err)
	}
	benchInvoke(b, quiver.WithTelemetry(tel))
}

func benchInvoke(b *testing.B, opts ...quiver.Option) {
	tk, err := quiver.New(append([]quiver.Option{quiver.WithRoot(b.TempDir()),
		quiver.WithTools(tool.Func("greet", "Greets.", greet, tool.ReadOnly())),
		quiver.WithPolicy(policy.AllowAll()), quiver.WithAudit(audit.Discard)}, opts...)...)
	if err != nil {
		b.Fatal(err)
	}
	defer tk.Close()
	ctx := context.Background()
	call := driver.ToolCall{ID: "c1", Name: "greet", Arguments: benchArgs}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := tk.InvokeCall(ctx, call); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkInvokeBaseline is the floor: the same JSON decoded with
// encoding/json into the same struct, the function called, and its output
// rendered as JSON for the model.
func BenchmarkInvokeBaseline(b *testing.B) {
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		var in benchInput
		if err := json.Unmarshal(benchArgs, &in); err != nil {
			b.Fatal(err)
		}
		out, err := greet(ctx, tool.Context{}, in)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := json.Marshal(out); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkInvokeHook is BenchmarkInvoke with one empty PreToolUse hook
// (`true`: /bin/sh and nothing else, started under the write scope's
// sandbox profile): what a hook adds to every call is a confined process
// start. Run it with a small -benchtime (a start is milliseconds) and
// compare with BenchmarkInvoke; sub-benchmark none is the same call, no hook.
func BenchmarkInvokeHook(b *testing.B) {
	for _, bc := range []struct {
		name string
		cfg  hooks.Config
	}{
		{"none", hooks.Config{}},
		{"empty", hooks.Config{PreToolUse: []hooks.Hook{{Command: "true"}}}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			tk, err := quiver.New(quiver.WithRoot(b.TempDir()),
				quiver.WithTools(tool.Func("greet", "Greets.", greet, tool.ReadOnly())),
				quiver.WithPolicy(policy.AllowAll()), quiver.WithAudit(audit.Discard), quiver.WithHooks(bc.cfg, nil))
			if err != nil {
				b.Fatal(err)
			}
			defer tk.Close()
			if err := tk.Sandbox().Check(); err != nil {
				b.Skipf("no sandbox: %v", err)
			}
			ctx := context.Background()
			call := driver.ToolCall{ID: "c1", Name: "greet", Arguments: benchArgs}
			b.ReportAllocs()
			for b.Loop() {
				out, err := tk.InvokeCall(ctx, call)
				if err != nil {
					b.Fatal(err)
				}
				_ = out
			}
		})
	}
}
