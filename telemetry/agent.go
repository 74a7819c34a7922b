package telemetry

import (
	"context"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// Model names the model an agent run talks to, as the spans report it.
type Model struct {
	// Provider is Quiver's name for the provider (openai, anthropic,
	// gemini), reported as the conventions' gen_ai.provider.name.
	Provider string
	Name     string // gen_ai.request.model
}

// providerName maps Quiver's provider names to the conventions' values.
func (m Model) providerName() string {
	if m.Provider == "gemini" {
		return "gcp.gemini"
	}
	return m.Provider
}

func (m Model) attributes() []attribute.KeyValue {
	var attrs []attribute.KeyValue
	if p := m.providerName(); p != "" {
		attrs = append(attrs, keyProvider.String(p))
	}
	if m.Name != "" {
		attrs = append(attrs, keyRequestModel.String(m.Name))
	}
	return attrs
}

// Usage is what a model call, or a run, cost in tokens.
type Usage struct {
	Input, Output, CacheRead, Reasoning int64
}

func (u Usage) attributes() []attribute.KeyValue {
	return []attribute.KeyValue{keyInputTokens.Int64(u.Input), keyOutputTokens.Int64(u.Output),
		keyCacheRead.Int64(u.CacheRead), keyReasoning.Int64(u.Reasoning)}
}

// Span is an agent run or a model call being recorded. A nil *Span records
// nothing.
type Span struct{ span trace.Span }

// StartAgent starts the invoke_agent span of one run of the agent loop.
func (t *Telemetry) StartAgent(ctx context.Context, m Model) (context.Context, *Span) {
	if t == nil {
		return ctx, nil
	}
	attrs := append([]attribute.KeyValue{keyOperation.String("invoke_agent")}, m.attributes()...)
	ctx, span := t.tracer.Start(ctx, "invoke_agent",
		trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(attrs...))
	return ctx, &Span{span}
}

// EndAgent ends a run's span with the tokens it spent over its turns, and
// errorType (a tool.Error code such as BUDGET_EXCEEDED, or [Other]) when
// it failed with err.
func (s *Span) EndAgent(turns int, u Usage, errorType string, err error) {
	if s == nil {
		return
	}
	if s.span.IsRecording() {
		s.span.SetAttributes(u.attributes()...)
		s.span.SetAttributes(keyTurns.Int(turns))
		s.fail(errorType, err)
	}
	s.span.End()
}

// chatKey marks a context whose model call a chat span already records.
type chatKey struct{}

// StartChat starts the chat span of one model call. The returned context
// says so to the drivers ([ModelCallTraced]), so that an SDK that would
// record the same call does not.
func (t *Telemetry) StartChat(ctx context.Context, m Model) (context.Context, *Span) {
	if t == nil {
		return ctx, nil
	}
	attrs := append([]attribute.KeyValue{keyOperation.String("chat")}, m.attributes()...)
	name := "chat"
	if m.Name != "" {
		name += " " + m.Name
	}
	ctx, span := t.tracer.Start(ctx, name, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
	if span.IsRecording() {
		ctx = context.WithValue(ctx, chatKey{}, true)
	}
	return ctx, &Span{span}
}

// ModelCallTraced reports whether ctx is a model call's whose chat span
// Quiver records: a driver whose SDK records its calls itself (the
// Anthropic SDK's chat spans) turns that off, so that no call is counted
// twice.
func ModelCallTraced(ctx context.Context) bool {
	v, _ := ctx.Value(chatKey{}).(bool)
	return v
}

// ChatResponse is what a model call returned, as its span records it.
type ChatResponse struct {
	ID, Model    string
	FinishReason string
	Usage        Usage
}

// EndChat ends a model call's span: with the response when there is one,
// and errorType when the call failed with err.
func (s *Span) EndChat(r *ChatResponse, errorType string, err error) {
	if s == nil {
		return
	}
	if s.span.IsRecording() {
		if r != nil {
			var attrs []attribute.KeyValue
			if r.ID != "" {
				attrs = append(attrs, keyResponseID.String(r.ID))
			}
			if r.Model != "" {
				attrs = append(attrs, keyResponseModel.String(r.Model))
			}
			if r.FinishReason != "" {
				attrs = append(attrs, keyFinishReasons.StringSlice([]string{r.FinishReason}))
			}
			s.span.SetAttributes(append(attrs, r.Usage.attributes()...)...)
		}
		s.fail(errorType, err)
	}
	s.span.End()
}

func (s *Span) fail(errorType string, err error) {
	if err == nil {
		return
	}
	if errorType == "" {
		errorType = Other
	}
	s.span.SetAttributes(keyErrorType.String(errorType))
	s.span.SetStatus(codes.Error, strings.TrimSpace(err.Error()))
}
