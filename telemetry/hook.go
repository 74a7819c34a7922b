package telemetry

import (
	"context"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// The attributes of a hook's span.
const (
	keyHookName     = attribute.Key("quiver.hook.name")
	keyHookEvent    = attribute.Key("quiver.hook.event")
	keyHookDecision = attribute.Key("quiver.hook.decision")
	keyHookExit     = attribute.Key("quiver.hook.exit_code")
	keyHookDuration = attribute.Key("quiver.hook.duration_ms")
	keyHookRewrote  = attribute.Key("quiver.hook.rewrote")
	keyHookError    = attribute.Key("quiver.hook.error")
)

// HookRun is one hook being recorded, from [Telemetry.StartHook] to
// [HookRun.End]. A nil *HookRun records nothing.
type HookRun struct {
	span  trace.Span
	start time.Time
}

// StartHook starts the span of one hook (package hooks) run for event
// (PreToolUse...) under the span ctx carries: the call's execute_tool
// span, so that a trace shows what each hook cost the call it ran for.
func (t *Telemetry) StartHook(ctx context.Context, event, name string) *HookRun {
	if t == nil {
		return nil
	}
	_, span := t.tracer.Start(ctx, "hook "+event+" "+name, trace.WithSpanKind(trace.SpanKindInternal),
		trace.WithAttributes(keyHookName.String(name), keyHookEvent.String(event)))
	return &HookRun{span: span, start: time.Now()}
}

// HookOutcome is how a hook ended, as its span records it.
type HookOutcome struct {
	// Decision is what the hook decided: allow, ask, deny, block, or ""
	// for none (recorded as "none").
	Decision string
	// Exit is the process's exit status; Exited is false when it has none
	// (it could not start, or was killed).
	Exit    int
	Exited  bool
	Rewrote bool // it replaced the call's input
	// Error is why the hook failed; it makes the span's status an error.
	Error string
}

// End ends the hook's span.
func (h *HookRun) End(o HookOutcome) {
	if h == nil {
		return
	}
	if h.span.IsRecording() {
		decision := o.Decision
		if decision == "" {
			decision = "none"
		}
		attrs := []attribute.KeyValue{keyHookDecision.String(decision),
			keyHookDuration.Float64(float64(time.Since(h.start).Microseconds()) / 1000)}
		if o.Exited {
			attrs = append(attrs, keyHookExit.Int(o.Exit))
		}
		if o.Rewrote {
			attrs = append(attrs, keyHookRewrote.Bool(true))
		}
		if o.Error != "" {
			attrs = append(attrs, keyHookError.String(o.Error))
			h.span.SetStatus(codes.Error, o.Error)
		}
		h.span.SetAttributes(attrs...)
	}
	h.span.End()
}
