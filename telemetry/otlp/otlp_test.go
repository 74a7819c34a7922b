package otlp_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/quiverkit/quiver/telemetry"
	"github.com/quiverkit/quiver/telemetry/otlp"
	"github.com/quiverkit/quiver/telemetry/telemetrytest"
)

// variables are every variable the tests set, cleared first so that the
// environment the tests run in does not leak into them.
var variables = []string{
	"OTEL_SDK_DISABLED", "OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
	"OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", "OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL",
	"OTEL_EXPORTER_OTLP_METRICS_PROTOCOL", "OTEL_TRACES_EXPORTER", "OTEL_METRICS_EXPORTER", "OTEL_SERVICE_NAME",
	"OTEL_RESOURCE_ATTRIBUTES", "OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_COMPRESSION", telemetry.CaptureContentEnv,
}

func setEnv(t *testing.T, kv map[string]string) {
	for _, v := range variables {
		t.Setenv(v, "")
	}
	for k, v := range kv {
		t.Setenv(k, v)
	}
}

// TestNothingWhenUnset: without the variables there is no telemetry, and so
// no provider, exporter or connection; a disabled SDK or an exporter set to
// none is the same.
func TestNothingWhenUnset(t *testing.T) {
	for _, env := range []map[string]string{
		{},
		{"OTEL_SDK_DISABLED": "true", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1"},
		{"OTEL_TRACES_EXPORTER": "none", "OTEL_METRICS_EXPORTER": "none", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1"},
		{"OTEL_SERVICE_NAME": "svc", telemetry.CaptureContentEnv: "true"}, // no endpoint
	} {
		setEnv(t, env)
		tel, shutdown, err := otlp.Setup(context.Background(), otlp.Options{})
		if err != nil || tel != nil {
			t.Errorf("%v: Setup = %v, %v; want nil telemetry and no error", env, tel, err)
		}
		if err := shutdown(context.Background()); err != nil {
			t.Errorf("%v: shutdown: %v", env, err)
		}
	}
}

func TestRefused(t *testing.T) {
	for _, tt := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://x", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, "OTEL_EXPORTER_OTLP_PROTOCOL"},
		{map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://x", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http/json"}, "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://x", "OTEL_TRACES_EXPORTER": "console"}, "OTEL_TRACES_EXPORTER"},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://x", telemetry.CaptureContentEnv: "maybe"}, telemetry.CaptureContentEnv},
	} {
		setEnv(t, tt.env)
		_, _, err := otlp.Setup(context.Background(), otlp.Options{})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v: error %v, want one naming %s", tt.env, err, tt.want)
		}
	}
}

// TestExportOverOTLPHTTP: spans and metrics reach an OTLP/HTTP receiver, as
// the protobuf a collector decodes, with the resource, the scope, the span's
// name and attributes, and the metrics' names.
func TestExportOverOTLPHTTP(t *testing.T) {
	rc := telemetrytest.NewReceiver(t)
	setEnv(t, map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": rc.URL, "OTEL_RESOURCE_ATTRIBUTES": "deployment.environment=test"})
	tel, shutdown, err := otlp.Setup(context.Background(), otlp.Options{ServiceVersion: "v9"})
	if err != nil || tel == nil {
		t.Fatalf("Setup = %v, %v", tel, err)
	}
	if tel.CapturesContent() {
		t.Error("content is captured without the opt-in")
	}
	_, call := tel.StartTool(context.Background(), "read_file", "call_1")
	call.End(telemetry.ToolOutcome{Resolved: true, Type: telemetry.ToolTypeFunction, Code: "EXECUTION_FAILED", Message: "no such file"})
	if err := shutdown(context.Background()); err != nil {
		t.Fatalf("shutdown: %v", err)
	}

	spans := rc.Spans()
	if len(spans) != 1 {
		t.Fatalf("received %v, want one span", rc.Paths())
	}
	span := spans[0]
	if res := span.Resource; res["service.name"] != "quiver" || res["service.version"] != "v9" || res["deployment.environment"] != "test" {
		t.Errorf("resource %v, want service.name quiver, service.version v9 and OTEL_RESOURCE_ATTRIBUTES", res)
	}
	if span.Scope != telemetry.ScopeName || span.Name != "execute_tool read_file" {
		t.Errorf("span %q of scope %q, want execute_tool read_file of %q", span.Name, span.Scope, telemetry.ScopeName)
	}
	want := map[string]string{"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "read_file", "gen_ai.tool.call.id": "call_1",
		"gen_ai.tool.type": "function", "error.type": "EXECUTION_FAILED", "quiver.error.code": "EXECUTION_FAILED"}
	if diff := cmp.Diff(want, span.Attrs()); diff != "" {
		t.Errorf("span attributes (-want +got):\n%s", diff)
	}
	if span.Status.Message != "no such file" {
		t.Errorf("status %v, want the error's message", span.Status)
	}
	names := rc.MetricNames()
	for _, n := range []string{"gen_ai.execute_tool.duration", "quiver.tool.calls"} {
		if !slices.Contains(names, n) {
			t.Errorf("metrics %v lack %s", names, n)
		}
	}
}

// TestTracesOnly: an endpoint for traces alone exports no metrics.
func TestTracesOnly(t *testing.T) {
	rc := telemetrytest.NewReceiver(t)
	setEnv(t, map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": rc.URL + "/v1/traces"})
	tel, shutdown, err := otlp.Setup(context.Background(), otlp.Options{})
	if err != nil || tel == nil {
		t.Fatalf("Setup = %v, %v", tel, err)
	}
	_, call := tel.StartTool(context.Background(), "tree", "")
	call.End(telemetry.ToolOutcome{Resolved: true})
	if err := shutdown(context.Background()); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	if diff := cmp.Diff([]string{"/v1/traces"}, rc.Paths()); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
}
