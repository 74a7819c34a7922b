package telemetry

import (
	"fmt"
	"os"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"
)

// ScopeName is the instrumentation scope of every span and metric Quiver
// records.
const ScopeName = "github.com/quiverkit/quiver"

// SemConvVersion is the release of open-telemetry/semantic-conventions-genai
// whose names this package follows.
const SemConvVersion = "0.1.0"

// CaptureContentEnv is the conventions' content-capture setting.
const CaptureContentEnv = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"

// Options configure [New].
type Options struct {
	// TracerProvider makes the spans; nil records none.
	TracerProvider trace.TracerProvider
	// MeterProvider makes the metrics; nil records none.
	MeterProvider metric.MeterProvider
	// CaptureContent records calls' arguments and results on their spans,
	// redacted (see the package documentation). Off by default.
	CaptureContent bool
	// Propagator reads the trace context a client sends in an MCP
	// request's params._meta; nil is W3C Trace Context with W3C Baggage.
	Propagator propagation.TextMapPropagator
	// Version is the instrumentation scope's version (Quiver's).
	Version string
}

// Telemetry records Quiver's spans and metrics. A nil *Telemetry records
// nothing; its methods are safe for concurrent use, and on nil.
type Telemetry struct {
	tracer     trace.Tracer
	content    bool
	propagator propagation.TextMapPropagator

	toolDuration metric.Float64Histogram
	toolCalls    metric.Int64Counter
	mcpDuration  metric.Float64Histogram
}

// Bucket boundaries the conventions give, in seconds.
var (
	toolBuckets = []float64{0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92}
	mcpBuckets  = []float64{0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300}
)

// New returns a Telemetry recording through o's providers.
func New(o Options) (*Telemetry, error) {
	tp, mp := o.TracerProvider, o.MeterProvider
	if tp == nil {
		tp = tracenoop.NewTracerProvider()
	}
	if mp == nil {
		mp = metricnoop.NewMeterProvider()
	}
	t := &Telemetry{
		tracer:     tp.Tracer(ScopeName, trace.WithInstrumentationVersion(o.Version), trace.WithSchemaURL(schemaURL)),
		content:    o.CaptureContent,
		propagator: o.Propagator,
	}
	if t.propagator == nil {
		t.propagator = propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})
	}
	m := mp.Meter(ScopeName, metric.WithInstrumentationVersion(o.Version), metric.WithSchemaURL(schemaURL))
	var err error
	if t.toolDuration, err = m.Float64Histogram("gen_ai.execute_tool.duration", metric.WithUnit("s"),
		metric.WithDescription("The duration of a single tool execution."),
		metric.WithExplicitBucketBoundaries(toolBuckets...)); err != nil {
		return nil, fmt.Errorf("telemetry: gen_ai.execute_tool.duration: %w", err)
	}
	if t.toolCalls, err = m.Int64Counter("quiver.tool.calls", metric.WithUnit("{call}"),
		metric.WithDescription("Tool calls, by tool, outcome (ok or error) and error code.")); err != nil {
		return nil, fmt.Errorf("telemetry: quiver.tool.calls: %w", err)
	}
	if t.mcpDuration, err = m.Float64Histogram("mcp.server.operation.duration", metric.WithUnit("s"),
		metric.WithDescription("MCP request or notification duration as observed on the receiver from the time it was received until the result or ack is sent."),
		metric.WithExplicitBucketBoundaries(mcpBuckets...)); err != nil {
		return nil, fmt.Errorf("telemetry: mcp.server.operation.duration: %w", err)
	}
	return t, nil
}

// schemaURL names the general conventions the GenAI release builds on.
const schemaURL = "https://opentelemetry.io/schemas/1.45.0"

// CapturesContent reports whether spans carry arguments and results, so
// that a caller redacts them only when they will be recorded.
func (t *Telemetry) CapturesContent() bool { return t != nil && t.content }

// CaptureContentFromEnv reads the conventions' content-capture setting,
// OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT, with getenv
// (os.Getenv when nil). "true" and the span modes of the newer spelling
// (SPAN_ONLY, SPAN_AND_EVENT) turn capture on; unset, "false", NO_CONTENT
// and EVENT_ONLY (Quiver records no events) leave it off. Any other value
// is an error naming the variable, so a typo does not silently record, or
// silently not record, what the operator meant.
func CaptureContentFromEnv(getenv func(string) string) (bool, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	v := strings.TrimSpace(getenv(CaptureContentEnv))
	switch strings.ToLower(v) {
	case "", "false", "no_content", "event_only":
		return false, nil
	case "true", "span_only", "span_and_event":
		return true, nil
	}
	return false, fmt.Errorf("%s=%q: want true or false (or NO_CONTENT, SPAN_ONLY, EVENT_ONLY, SPAN_AND_EVENT)", CaptureContentEnv, v)
}

// Attribute keys of the conventions, spelled here rather than imported from
// a semconv package, whose GenAI names have moved to another repository.
const (
	keyOperation      = attribute.Key("gen_ai.operation.name")
	keyToolName       = attribute.Key("gen_ai.tool.name")
	keyToolCallID     = attribute.Key("gen_ai.tool.call.id")
	keyToolType       = attribute.Key("gen_ai.tool.type")
	keyToolArguments  = attribute.Key("gen_ai.tool.call.arguments")
	keyToolResult     = attribute.Key("gen_ai.tool.call.result")
	keyErrorType      = attribute.Key("error.type")
	keyProvider       = attribute.Key("gen_ai.provider.name")
	keyRequestModel   = attribute.Key("gen_ai.request.model")
	keyResponseModel  = attribute.Key("gen_ai.response.model")
	keyResponseID     = attribute.Key("gen_ai.response.id")
	keyFinishReasons  = attribute.Key("gen_ai.response.finish_reasons")
	keyInputTokens    = attribute.Key("gen_ai.usage.input_tokens")
	keyOutputTokens   = attribute.Key("gen_ai.usage.output_tokens")
	keyCacheRead      = attribute.Key("gen_ai.usage.cache_read.input_tokens")
	keyReasoning      = attribute.Key("gen_ai.usage.reasoning.output_tokens")
	keyMCPMethod      = attribute.Key("mcp.method.name")
	keyMCPSession     = attribute.Key("mcp.session.id")
	keyMCPProtocol    = attribute.Key("mcp.protocol.version")
	keyJSONRPCID      = attribute.Key("jsonrpc.request.id")
	keyRPCStatus      = attribute.Key("rpc.response.status_code")
	keyNetTransport   = attribute.Key("network.transport")
	keyNetProtocol    = attribute.Key("network.protocol.name")
	keyPolicyDecision = attribute.Key("quiver.policy.decision")
	keyPolicyRule     = attribute.Key("quiver.policy.rule")
	keyApprover       = attribute.Key("quiver.approval.by")
	keyRisk           = attribute.Key("quiver.tool.risk")
	keyToolProvider   = attribute.Key("quiver.tool.provider")
	keyErrorCode      = attribute.Key("quiver.error.code")
	keySandbox        = attribute.Key("quiver.sandbox.profile")
	keyOutputRef      = attribute.Key("quiver.output.ref")
	keyBytesStored    = attribute.Key("quiver.output.bytes_stored")
	keyOutcome        = attribute.Key("quiver.outcome")
	keyTurns          = attribute.Key("quiver.agent.turns")
)

// Other is the conventions' fallback value: for error.type when nothing
// better names the error, and for gen_ai.tool.name in metrics when the
// name is not a tool's.
const Other = "_OTHER"
