package quiver_test

import (
	"context"
	"os/exec"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.opentelemetry.io/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/quiverkit/quiver"
	"github.com/quiverkit/quiver/outputcache"
	"github.com/quiverkit/quiver/policy"
	"github.com/quiverkit/quiver/sandbox"
	"github.com/quiverkit/quiver/telemetry/telemetrytest"
	"github.com/quiverkit/quiver/tool"
)

type echoArgs struct {
	Text   string            `json:"text"`
	APIKey string            `json:"api_key,omitempty"`
	Env    map[string]string `json:"env,omitempty"`
	Lines  int               `json:"lines,omitempty"`
}

type echoResult struct {
	Text     string `json:"text"`
	Password string `json:"password"`
}

// shouted is a text output.
type shouted string

func (s shouted) Render() tool.Result { return tool.Text(string(s)) }

// telemetryToolkit is a toolkit with an echo tool (JSON out), a shout
// tool (text out, Lines lines of it) and a deny rule, recording into rec.
func telemetryToolkit(t *testing.T, opts ...quiver.Option) *quiver.Toolkit {
	t.Helper()
	echo := tool.Func("echo", "Echoes.", func(_ context.Context, _ tool.Context, in echoArgs) (echoResult, error) {
		return echoResult{Text: in.Text, Password: "hunter2"}, nil
	}, tool.ReadOnly())
	shout := tool.Func("shout", "Shouts.", func(_ context.Context, _ tool.Context, in echoArgs) (shouted, error) {
		return shouted(strings.Repeat("TOKEN=abc123 "+in.Text+"\n", max(in.Lines, 1))), nil
	}, tool.ReadOnly())
	p, err := policy.New(policy.Config{Deny: []string{"shout"}, Allow: []string{"echo"}}, sandbox.WorkspaceWrite)
	if err != nil {
		t.Fatal(err)
	}
	tk, err := quiver.New(append([]quiver.Option{quiver.WithRoot(t.TempDir()), quiver.WithTools(echo, shout), quiver.WithPolicy(p)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tk.Close() })
	return tk
}

// TestCallSpans: a call's execute_tool span carries the conventions'
// attributes and Quiver's, whatever became of the call; the metrics count
// it by outcome and code, an unknown name as _OTHER.
func TestCallSpans(t *testing.T) {
	rec := telemetrytest.New(t, false)
	tk := telemetryToolkit(t, quiver.WithTelemetry(rec.Telemetry))
	ctx := context.Background()
	if _, err := tk.Invoke(ctx, "echo", map[string]any{"text": "hi", "api_key": "sk-1"}); err != nil {
		t.Fatal(err)
	}
	tk.Invoke(ctx, "shout", map[string]any{"text": "hi"})
	tk.Invoke(ctx, "no_such_tool", map[string]any{})
	tk.Invoke(ctx, "echo", "[1]")

	tests := []struct {
		span string
		want map[string]string
	}{{"execute_tool echo", map[string]string{
		"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "echo", "gen_ai.tool.call.id": "call_1",
		"gen_ai.tool.type": "function", "quiver.tool.provider": "host", "quiver.tool.risk": "low",
		"quiver.policy.decision": "allow", "quiver.policy.rule": "allow: echo", "quiver.sandbox.profile": "workspace-write",
	}}, {"execute_tool shout", map[string]string{
		"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "shout", "gen_ai.tool.call.id": "call_2",
		"gen_ai.tool.type": "function", "quiver.tool.provider": "host", "error.type": "TOOL_NOT_ALLOWED", "quiver.error.code": "TOOL_NOT_ALLOWED",
	}}, {"execute_tool no_such_tool", map[string]string{
		"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "no_such_tool", "gen_ai.tool.call.id": "call_3",
		"error.type": "TOOL_NOT_FOUND", "quiver.error.code": "TOOL_NOT_FOUND",
	}}}
	for _, tt := range tests {
		spans := rec.Named(tt.span)
		if len(spans) == 0 {
			t.Errorf("no %s span among %d", tt.span, len(rec.Spans()))
			continue
		}
		if diff := cmp.Diff(tt.want, telemetrytest.Attrs(spans[0])); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.span, diff)
		}
	}
	counts := map[string]float64{}
	for _, p := range rec.Points(t, "quiver.tool.calls") {
		counts[p.Attrs["gen_ai.tool.name"]+" "+p.Attrs["quiver.outcome"]+" "+p.Attrs["quiver.error.code"]] += p.Value
	}
	want := map[string]float64{"echo ok ": 1, "shout error TOOL_NOT_ALLOWED": 1, "_OTHER error TOOL_NOT_FOUND": 1,
		"echo error INVALID_TOOL_ARGUMENTS_TYPE": 1}
	if diff := cmp.Diff(want, counts); diff != "" {
		t.Errorf("quiver.tool.calls (-want +got):\n%s", diff)
	}
}

// TestCallSpanStoredOutput: an output the cache stores gives the span its
// ref and the bytes stored.
func TestCallSpanStoredOutput(t *testing.T) {
	rec := telemetrytest.New(t, false)
	store := outputcache.NewMemoryStore(outputcache.MemoryOptions{})
	p := quiver.WithPolicy(policy.AllowAll())
	tk := telemetryToolkit(t, quiver.WithTelemetry(rec.Telemetry), quiver.WithOutputCache(store, outputcache.Budget{MaxLines: 10}), p)
	out, err := tk.Invoke(context.Background(), "shout", map[string]any{"text": "x", "lines": 100})
	if err != nil || out.Content.OutputRef == "" {
		t.Fatalf("shout: %v, ref %q; want a stored output", err, out.Content.OutputRef)
	}
	a := telemetrytest.Attrs(rec.Named("execute_tool shout")[0])
	if a["quiver.output.ref"] != out.Content.OutputRef || a["quiver.output.bytes_stored"] != "1500" {
		t.Errorf("ref %q bytes %q, want %q and 1500 (100 lines of 15 bytes)", a["quiver.output.ref"], a["quiver.output.bytes_stored"], out.Content.OutputRef)
	}
}

// TestCallSpanContentIsRedacted: captured arguments and results go through
// the audit record's Redactor; without the opt-in there are none.
func TestCallSpanContentIsRedacted(t *testing.T) {
	for _, capture := range []bool{true, false} {
		rec := telemetrytest.New(t, capture)
		tk := telemetryToolkit(t, quiver.WithTelemetry(rec.Telemetry), quiver.WithPolicy(policy.AllowAll()), quiver.WithAuditRedact("sesame"))
		args := map[string]any{"text": "open sesame=letmein", "api_key": "sk-live-1", "env": map[string]any{"GITHUB_TOKEN": "ghp_x"}}
		tk.Invoke(context.Background(), "echo", args)
		tk.Invoke(context.Background(), "shout", map[string]any{"text": "--password hunter3"})
		var all []string
		for _, s := range rec.Spans() {
			a := telemetrytest.Attrs(s)
			all = append(all, a["gen_ai.tool.call.arguments"], a["gen_ai.tool.call.result"])
		}
		joined := strings.Join(all, "\n")
		for _, secret := range []string{"sk-live-1", "ghp_x", "letmein", "hunter2", "hunter3", "abc123"} {
			if strings.Contains(joined, secret) {
				t.Errorf("capture %v: a span quotes %q:\n%s", capture, secret, joined)
			}
		}
		if !capture {
			if strings.TrimSpace(joined) != "" {
				t.Errorf("content recorded without the opt-in:\n%s", joined)
			}
			continue
		}
		echo := telemetrytest.Attrs(rec.Named("execute_tool echo")[0])
		if want := `{"api_key":"[REDACTED]","env":{"GITHUB_TOKEN":"[REDACTED]"},"text":"open sesame=[REDACTED]"}`; echo["gen_ai.tool.call.arguments"] != want {
			t.Errorf("arguments %s, want %s", echo["gen_ai.tool.call.arguments"], want)
		}
		if want := `{"password":"[REDACTED]","text":"open sesame=[REDACTED]"}`; echo["gen_ai.tool.call.result"] != want {
			t.Errorf("result %s, want %s", echo["gen_ai.tool.call.result"], want)
		}
		shout := telemetrytest.Attrs(rec.Named("execute_tool shout")[0])
		if want := "TOKEN=[REDACTED] --password [REDACTED]\n"; shout["gen_ai.tool.call.result"] != want {
			t.Errorf("text result %q, want %q", shout["gen_ai.tool.call.result"], want)
		}
	}
}

// TestNoSpansWithoutTelemetry: a toolkit without WithTelemetry records
// nothing, even where a host registered a global tracer provider.
func TestNoSpansWithoutTelemetry(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	prev := otel.GetTracerProvider()
	otel.SetTracerProvider(tp)
	t.Cleanup(func() { otel.SetTracerProvider(prev); tp.Shutdown(context.Background()) })
	tk := telemetryToolkit(t)
	if tk.Telemetry() != nil {
		t.Fatal("a toolkit without WithTelemetry has telemetry")
	}
	tk.Invoke(context.Background(), "echo", map[string]any{"text": "hi"})
	tk.Invoke(context.Background(), "shout", map[string]any{"text": "hi"})
	if n := len(exp.GetSpans()); n != 0 {
		t.Errorf("%d spans recorded without telemetry", n)
	}
}

// TestRootLinksNoOpenTelemetrySDK: the root package links the
// OpenTelemetry API only; the SDK and the exporters are package
// telemetry/otlp's, for hosts that export.
func TestRootLinksNoOpenTelemetrySDK(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, pkg := range strings.Fields(string(out)) {
		if strings.HasPrefix(pkg, "go.opentelemetry.io/otel/sdk") || strings.HasPrefix(pkg, "go.opentelemetry.io/otel/exporters") ||
			strings.HasPrefix(pkg, "google.golang.org/grpc") || strings.HasPrefix(pkg, "google.golang.org/protobuf") {
			t.Errorf("the root package links %s", pkg)
		}
	}
}
