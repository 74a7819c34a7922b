package telemetry

import (
	"context"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// The values of network.transport an MCP server reports.
const (
	TransportTCP  = "tcp"  // streamable HTTP
	TransportPipe = "pipe" // stdio
)

// MCPRequest is one MCP request or notification a server received.
type MCPRequest struct {
	Method string // mcp.method.name
	// Target is the tool (or prompt) the request is about, when it is one
	// the server offers; it completes the span's name. Leave it empty for
	// a name the server does not know, which would make names unbounded.
	Target          string
	SessionID       string // mcp.session.id; empty over stdio
	RequestID       string // jsonrpc.request.id; empty for a notification
	ProtocolVersion string // mcp.protocol.version
	Transport       string // network.transport: TransportTCP or TransportPipe
	// Meta is the request's params._meta, where a client puts its trace
	// context (traceparent, tracestate, baggage).
	Meta map[string]any
}

// MCPOperation is one MCP request being recorded, from
// [Telemetry.StartMCP] to [MCPOperation.End]. A nil *MCPOperation records
// nothing.
type MCPOperation struct {
	t     *Telemetry
	span  trace.Span
	start time.Time
	attrs []attribute.KeyValue // the metric's
}

// StartMCP starts the server span of r. Its parent is the trace context in
// r.Meta; a span already in ctx (the transport's) is linked to it instead.
// The returned context carries the span.
func (t *Telemetry) StartMCP(ctx context.Context, r MCPRequest) (context.Context, *MCPOperation) {
	if t == nil {
		return ctx, nil
	}
	name := r.Method
	common := []attribute.KeyValue{keyMCPMethod.String(r.Method)}
	if r.Target != "" {
		name += " " + r.Target
		if r.Method == "tools/call" {
			common = append(common, keyToolName.String(r.Target))
		}
	}
	if r.Method == "tools/call" {
		common = append(common, keyOperation.String("execute_tool"))
	}
	if r.ProtocolVersion != "" {
		common = append(common, keyMCPProtocol.String(r.ProtocolVersion))
	}
	if r.Transport != "" {
		common = append(common, keyNetTransport.String(r.Transport))
	}
	if r.Transport == TransportTCP {
		common = append(common, keyNetProtocol.String("http"))
	}
	attrs := common
	if r.SessionID != "" {
		attrs = append(attrs[:len(attrs):len(attrs)], keyMCPSession.String(r.SessionID))
	}
	if r.RequestID != "" {
		attrs = append(attrs[:len(attrs):len(attrs)], keyJSONRPCID.String(r.RequestID))
	}
	opts := []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(attrs...)}
	ambient := trace.SpanContextFromContext(ctx)
	parent := t.propagator.Extract(ctx, metaCarrier(r.Meta))
	if remote := trace.SpanContextFromContext(parent); remote.IsValid() && ambient.IsValid() && !remote.Equal(ambient) {
		opts = append(opts, trace.WithLinks(trace.Link{SpanContext: ambient}))
	}
	ctx, span := t.tracer.Start(parent, name, opts...)
	return ctx, &MCPOperation{t: t, span: span, start: time.Now(), attrs: common}
}

// MCPResult is how an MCP request ended: ErrorType is empty for success,
// the JSON-RPC error code (RPCCode too) for an error answer, and "tool_error"
// for a tool result with isError; Message is the error's text.
type MCPResult struct {
	ErrorType, RPCCode, Message string
}

// End ends the request's span and records its duration.
func (o *MCPOperation) End(r MCPResult) {
	if o == nil {
		return
	}
	elapsed := time.Since(o.start).Seconds()
	attrs := o.attrs
	if r.ErrorType != "" {
		attrs = append(attrs[:len(attrs):len(attrs)], keyErrorType.String(r.ErrorType))
	}
	if r.RPCCode != "" {
		attrs = append(attrs[:len(attrs):len(attrs)], keyRPCStatus.String(r.RPCCode))
	}
	if o.span.IsRecording() {
		if r.ErrorType != "" {
			o.span.SetAttributes(keyErrorType.String(r.ErrorType))
			o.span.SetStatus(codes.Error, r.Message)
		}
		if r.RPCCode != "" {
			o.span.SetAttributes(keyRPCStatus.String(r.RPCCode))
		}
	}
	o.span.End()
	o.t.mcpDuration.Record(context.Background(), elapsed, metric.WithAttributes(attrs...))
}

// metaCarrier reads the string values of params._meta as a propagation
// carrier. The conventions write the W3C keys unprefixed.
type metaCarrier map[string]any

var _ propagation.TextMapCarrier = metaCarrier(nil)

func (m metaCarrier) Get(key string) string {
	s, _ := m[key].(string)
	return s
}

func (m metaCarrier) Set(key, value string) { m[key] = value }

func (m metaCarrier) Keys() []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	return keys
}

// Inject writes ctx's trace context into meta, as an MCP client puts it
// in a request's params._meta.
func (t *Telemetry) Inject(ctx context.Context, meta map[string]any) {
	if t == nil || meta == nil {
		return
	}
	t.propagator.Inject(ctx, metaCarrier(meta))
}
