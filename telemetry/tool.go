package telemetry

import (
	"context"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"
)

// The values of gen_ai.tool.type Quiver reports.
const (
	ToolTypeFunction  = "function"  // a tool Quiver runs itself
	ToolTypeExtension = "extension" // a tool an MCP server runs for Quiver
)

// ToolCall is one tool call being recorded, from [Telemetry.StartTool] to
// [ToolCall.End]. A nil *ToolCall records nothing.
type ToolCall struct {
	t     *Telemetry
	span  trace.Span
	start time.Time
	name  string
}

// StartTool starts the span of a call of the tool called name (as the
// caller spelled it) with the call's id. The returned context carries the
// span, so that what the tool does is recorded under it.
func (t *Telemetry) StartTool(ctx context.Context, name, callID string) (context.Context, *ToolCall) {
	if t == nil {
		return ctx, nil
	}
	attrs := []attribute.KeyValue{keyOperation.String("execute_tool"), keyToolName.String(name)}
	if callID != "" {
		attrs = append(attrs, keyToolCallID.String(callID))
	}
	ctx, span := t.tracer.Start(ctx, "execute_tool "+name,
		trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(attrs...))
	return ctx, &ToolCall{t: t, span: span, start: time.Now(), name: name}
}

// ToolOutcome is what became of a call, as its span and metrics record it.
// Empty fields are left out.
type ToolOutcome struct {
	// Resolved is set when a provider serves the name; an unresolved name
	// is counted as [Other] in metrics.
	Resolved bool
	Type     string // gen_ai.tool.type: ToolTypeFunction or ToolTypeExtension
	Provider string // quiver.tool.provider: who served the call
	Risk     string // quiver.tool.risk: low or high
	Decision string // quiver.policy.decision: allow, ask or deny
	Rule     string // quiver.policy.rule: the rule that decided
	Approver string // quiver.approval.by: who approved or refused an ask
	// Code is the tool.Error code of a failed call (error.type and
	// quiver.error.code); Message its message (the span's status).
	Code, Message string
	Sandbox       string // quiver.sandbox.profile: the profile its processes ran under
	OutputRef     string // quiver.output.ref: the stored output's ref
	BytesStored   int64  // quiver.output.bytes_stored: the size of what was stored
	// Arguments and Result are recorded as gen_ai.tool.call.arguments and
	// gen_ai.tool.call.result, already redacted; a caller sets them only
	// when [Telemetry.CapturesContent].
	Arguments, Result string
}

// End ends the call's span and records its metrics.
func (c *ToolCall) End(o ToolOutcome) {
	if c == nil {
		return
	}
	elapsed := time.Since(c.start).Seconds()
	if c.span.IsRecording() {
		c.span.SetAttributes(o.spanAttributes()...)
		if o.Code != "" {
			c.span.SetStatus(codes.Error, o.Message)
		}
	}
	c.span.End()

	name := c.name
	if !o.Resolved {
		name = Other
	}
	attrs := make([]attribute.KeyValue, 0, 3)
	attrs = append(attrs, keyToolName.String(name))
	if o.Type != "" {
		attrs = append(attrs, keyToolType.String(o.Type))
	}
	outcome := "ok"
	if o.Code != "" {
		attrs = append(attrs, keyErrorType.String(o.Code))
		outcome = "error"
	}
	c.t.toolDuration.Record(context.Background(), elapsed, metric.WithAttributes(attrs...))
	counted := []attribute.KeyValue{keyToolName.String(name), keyOutcome.String(outcome)}
	if o.Code != "" {
		counted = append(counted, keyErrorCode.String(o.Code))
	}
	c.t.toolCalls.Add(context.Background(), 1, metric.WithAttributes(counted...))
}

func (o ToolOutcome) spanAttributes() []attribute.KeyValue {
	var attrs []attribute.KeyValue
	add := func(k attribute.Key, v string) {
		if v != "" {
			attrs = append(attrs, k.String(v))
		}
	}
	add(keyToolType, o.Type)
	add(keyToolProvider, o.Provider)
	add(keyRisk, o.Risk)
	add(keyPolicyDecision, o.Decision)
	add(keyPolicyRule, o.Rule)
	add(keyApprover, o.Approver)
	add(keyErrorType, o.Code)
	add(keyErrorCode, o.Code)
	add(keySandbox, o.Sandbox)
	add(keyOutputRef, o.OutputRef)
	if o.BytesStored > 0 {
		attrs = append(attrs, keyBytesStored.Int64(o.BytesStored))
	}
	add(keyToolArguments, o.Arguments)
	if o.Code == "" { // the conventions record the result of a call that succeeded
		add(keyToolResult, o.Result)
	}
	return attrs
}
