package agent

import (
	"context"
	"errors"

	"github.com/quiverkit/quiver/driver"
	"github.com/quiverkit/quiver/telemetry"
	"github.com/quiverkit/quiver/tool"
)

// askTraced is ask inside the reply's chat span, when the toolkit records
// telemetry. A reply some of whose calls were unusable is a reply: its
// span is not a failure (the calls' own results say what went wrong).
func askTraced(ctx context.Context, cfg *Config, req driver.Request) (*driver.Response, error) {
	ctx, span := cfg.Toolkit.Telemetry().StartChat(ctx, cfg.Traced)
	if span == nil {
		return ask(ctx, cfg, req)
	}
	resp, err := ask(ctx, cfg, req)
	var r *telemetry.ChatResponse
	if resp != nil {
		reason := resp.ProviderStopReason
		if reason == "" {
			reason = string(resp.StopReason)
		}
		r = &telemetry.ChatResponse{ID: resp.ID, Model: resp.Model, FinishReason: reason, Usage: spanUsage(resp.Usage)}
	}
	failed := err
	if driver.IsCallError(err) {
		failed = nil
	}
	span.EndChat(r, errorType(ctx, failed), failed)
	return resp, err
}

func spanUsage(u driver.Usage) telemetry.Usage {
	return telemetry.Usage{Input: u.InputTokens, Output: u.OutputTokens, CacheRead: u.CacheReadTokens, Reasoning: u.ReasoningTokens}
}

// errorType is error.type for a run or a reply that failed with err: its
// tool.Error code (BUDGET_EXCEEDED), the context's end (TIMEOUT,
// CANCELLED), an incomplete or truncated reply, or _OTHER.
func errorType(ctx context.Context, err error) string {
	switch {
	case err == nil:
		return ""
	case tool.CodeOf(err) != "":
		return string(tool.CodeOf(err))
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded):
		return string(tool.CodeTimeout)
	case errors.Is(err, context.Canceled) || errors.Is(ctx.Err(), context.Canceled):
		return string(tool.CodeCancelled)
	case errors.Is(err, ErrIncomplete):
		return "incomplete"
	case errors.Is(err, driver.ErrTruncated):
		return "truncated"
	}
	return telemetry.Other
}
