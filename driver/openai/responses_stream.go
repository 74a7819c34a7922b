package openai

import (
	"errors"
	"fmt"
	"strings"

	"github.com/openai/openai-go/v3/responses"
	"github.com/quiverkit/quiver/driver"
)

// ResponsesAccumulator turns a Responses API event stream into one
// [driver.Response], emitting stream events as it goes. Argument deltas are
// keyed by item id; the call's id is the item's call_id. The zero value is
// ready to use; it is not safe for concurrent use.
type ResponsesAccumulator struct {
	id, model string
	text      strings.Builder
	calls     []responsesCallState
	reasoning []driver.Reasoning
	byItem    map[string]int
	final     *responses.Response // from response.completed or response.incomplete
}

type responsesCallState struct {
	item     responses.ResponseOutputItemUnion // as added; replaced by the done item
	args     []byte                            // the deltas so far
	doneArgs string                            // from function_call_arguments.done
	closed   bool
	call     driver.ToolCall
	err      error
}

// Add folds one event in; emit (which may be nil) receives the events it
// produced. A failed response, an error event, or a delta for an item never
// announced is an error.
func (a *ResponsesAccumulator) Add(ev *responses.ResponseStreamEventUnion, emit func(driver.Event)) error {
	if emit == nil {
		emit = noEmit
	}
	if a.byItem == nil {
		a.byItem = map[string]int{}
	}
	switch ev.Type {
	case "response.created", "response.in_progress", "response.queued":
		a.id, a.model = ev.Response.ID, string(ev.Response.Model)
	case "response.output_item.added":
		if ev.Item.Type == "function_call" {
			a.open(&ev.Item, emit)
		}
	case "response.function_call_arguments.delta":
		pos, ok := a.byItem[ev.ItemID]
		if !ok {
			return fmt.Errorf("responses stream: argument delta for item %q, which was never added", ev.ItemID)
		}
		a.calls[pos].args = append(a.calls[pos].args, ev.Delta...)
		emit(driver.Event{Type: driver.EventToolCallDelta, Index: pos, Delta: ev.Delta})
	case "response.function_call_arguments.done":
		if pos, ok := a.byItem[ev.ItemID]; ok {
			a.calls[pos].doneArgs = ev.Arguments
		}
	case "response.output_item.done":
		if ev.Item.Type == "reasoning" {
			// The done item is the whole one: its encrypted_content may be
			// incomplete in output_item.added.
			a.reasoning = append(a.reasoning, responsesReasoning(ev.Item, len(a.calls)))
		}
		if ev.Item.Type == "function_call" {
			pos, ok := a.byItem[ev.Item.ID]
			if !ok {
				pos = a.open(&ev.Item, emit) // a whole call announced only when done
			}
			a.calls[pos].item = ev.Item
			a.close(pos, emit)
		}
	case "response.reasoning_summary_text.delta", "response.reasoning_text.delta":
		emit(driver.Event{Type: driver.EventReasoningDelta, Delta: ev.Delta})
	case "response.reasoning_summary_part.added":
		if ev.SummaryIndex > 0 {
			emit(driver.Event{Type: driver.EventReasoningDelta, Delta: "\n\n"})
		}
	case "response.output_text.delta":
		a.text.WriteString(ev.Delta)
		emit(driver.Event{Type: driver.EventTextDelta, Delta: ev.Delta})
	case "response.completed", "response.incomplete":
		r := ev.Response
		a.final = &r
	case "response.failed":
		return fmt.Errorf("response %s failed: %s: %s", ev.Response.ID, ev.Response.Error.Code, ev.Response.Error.Message)
	case "error":
		return fmt.Errorf("responses stream error %s: %s", ev.Code, ev.Message)
	}
	return nil
}

func (a *ResponsesAccumulator) open(item *responses.ResponseOutputItemUnion, emit func(driver.Event)) int {
	pos := len(a.calls)
	a.calls = append(a.calls, responsesCallState{item: *item, args: []byte(item.Arguments.OfString)})
	a.byItem[item.ID] = pos
	emit(driver.Event{Type: driver.EventToolCallStart, Index: pos, ToolCall: driver.ToolCall{ID: item.CallID, Name: item.Name}})
	return pos
}

// close settles a call's arguments: the done item's, else the done event's,
// else the deltas — the later sources are the server's own final word.
func (a *ResponsesAccumulator) close(pos int, emit func(driver.Event)) {
	c := &a.calls[pos]
	if c.closed {
		return
	}
	args := c.item.Arguments.OfString
	if args == "" {
		args = c.doneArgs
	}
	if args == "" {
		args = string(c.args)
	}
	c.call, c.err = responsesCall(c.item, args)
	c.closed = true
	emit(driver.Event{Type: driver.EventToolCallDone, Index: pos, ToolCall: c.call})
}

// Response returns the whole reply, or driver.ErrTruncated if the stream
// ended before response.completed (or response.incomplete).
func (a *ResponsesAccumulator) Response() (*driver.Response, error) {
	if a.final == nil {
		for i := range a.calls {
			if c := &a.calls[i]; !c.closed {
				return nil, fmt.Errorf("%w: no response.completed; tool call %q (%s) is incomplete: %s",
					driver.ErrTruncated, c.item.CallID, c.item.Name, clip(string(c.args)))
			}
		}
		return nil, fmt.Errorf("%w: no response.completed", driver.ErrTruncated)
	}
	calls := make([]driver.ToolCall, len(a.calls))
	var errs []error
	for i := range a.calls {
		a.close(i, noEmit) // a call the server never marked done is settled from what arrived
		calls[i] = a.calls[i].call
		if a.calls[i].err != nil {
			errs = append(errs, a.calls[i].err)
		}
	}
	search, err := searchCalls(a.final)
	calls = append(calls, search...)
	errs = append(errs, err)
	if err := driver.CheckIDs(calls, "call"); err != nil {
		errs = append(errs, err)
	}
	if a.reasoning == nil {
		a.reasoning = ResponsesReasoning(a.final) // a stream that announced no items
	}
	resp := &driver.Response{
		ID:        firstNonEmpty(a.final.ID, a.id),
		Model:     firstNonEmpty(string(a.final.Model), a.model),
		Text:      a.text.String(),
		Reasoning: a.reasoning,
		ToolCalls: calls,
		Usage:     responsesUsage(a.final.Usage),
	}
	resp.StopReason, resp.ProviderStopReason = responsesStop(a.final, len(calls) > 0)
	return resp, errors.Join(errs...)
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
