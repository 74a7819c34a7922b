package openai

import (
	"errors"
	"fmt"
	"strings"

	oai "github.com/openai/openai-go/v3"
	"github.com/quiverkit/quiver/driver"
)

// ChatAccumulator turns a Chat Completions stream's chunks into one
// [driver.Response], emitting stream events as it goes. The zero value is
// ready to use; it is not safe for concurrent use.
//
// Only the first choice (index 0) is followed: drivers never ask for n > 1.
type ChatAccumulator struct {
	id, model string
	text      strings.Builder
	reasoning strings.Builder
	reasoned  bool // the server sent reasoning_content, even empty
	calls     []chatCall
	byIndex   map[int64]int
	byID      map[string]int
	last      int // position of the call the latest fragment went to, or -1
	started   bool
	finish    string
	usage     driver.Usage

	done  []driver.ToolCall // set when finish_reason arrives
	errs  error
	final bool
}

type chatCall struct {
	id, name string
	args     []byte
}

func noEmit(driver.Event) {}

// Add folds one chunk in. emit (which may be nil) receives the events the
// chunk produced: text deltas, call starts and argument deltas, and — when
// finish_reason arrives — every call's done event.
func (a *ChatAccumulator) Add(chunk *oai.ChatCompletionChunk, emit func(driver.Event)) error {
	if emit == nil {
		emit = noEmit
	}
	if !a.started {
		a.started, a.last = true, -1
		a.byIndex, a.byID = map[int64]int{}, map[string]int{}
	}
	if a.id == "" {
		a.id = chunk.ID
	}
	if a.model == "" {
		a.model = chunk.Model
	}
	if chunk.JSON.Usage.Valid() {
		a.usage = chatUsage(chunk.Usage)
	}
	for i := range chunk.Choices {
		ch := &chunk.Choices[i]
		if ch.Index != 0 {
			continue
		}
		if r, ok := reasoningContent(ch.Delta.JSON.ExtraFields); ok {
			a.reasoned = true
			if r != "" {
				a.reasoning.WriteString(r)
				emit(driver.Event{Type: driver.EventReasoningDelta, Delta: r})
			}
		}
		if d := ch.Delta.Content; d != "" {
			a.text.WriteString(d)
			emit(driver.Event{Type: driver.EventTextDelta, Delta: d})
		}
		for j := range ch.Delta.ToolCalls {
			a.addToolDelta(&ch.Delta.ToolCalls[j], emit)
		}
		if ch.FinishReason != "" && a.finish == "" {
			a.finish = ch.FinishReason
			a.finalize(emit)
		}
	}
	return nil
}

func (a *ChatAccumulator) addToolDelta(tc *oai.ChatCompletionChunkChoiceDeltaToolCall, emit func(driver.Event)) {
	pos := -1
	switch {
	case tc.JSON.Index.Valid():
		if p, ok := a.byIndex[tc.Index]; ok && !(tc.ID != "" && a.calls[p].id != "" && tc.ID != a.calls[p].id) {
			pos = p
		}
	case tc.ID != "":
		if p, ok := a.byID[tc.ID]; ok {
			pos = p
		}
	default:
		pos = a.last // a fragment with neither index nor id continues the previous call
	}
	if pos < 0 {
		pos = len(a.calls)
		a.calls = append(a.calls, chatCall{})
		if tc.JSON.Index.Valid() {
			a.byIndex[tc.Index] = pos
		}
	}
	c := &a.calls[pos]
	isNew := c.id == "" && c.name == "" && c.args == nil
	if c.id == "" && tc.ID != "" {
		c.id = tc.ID
		a.byID[tc.ID] = pos
	}
	if c.name == "" {
		c.name = tc.Function.Name
	}
	if isNew {
		c.args = make([]byte, 0, len(tc.Function.Arguments))
		emit(driver.Event{Type: driver.EventToolCallStart, Index: pos, ToolCall: driver.ToolCall{ID: c.id, Name: c.name}})
	}
	if frag := tc.Function.Arguments; frag != "" {
		c.args = append(c.args, frag...)
		emit(driver.Event{Type: driver.EventToolCallDelta, Index: pos, Delta: frag})
	}
	a.last = pos
}

// finalize parses every call's arguments once the model has finished.
func (a *ChatAccumulator) finalize(emit func(driver.Event)) {
	a.final = true
	a.done = make([]driver.ToolCall, len(a.calls))
	var errs []error
	for i, c := range a.calls {
		args, err := driver.ParseArguments(c.id, c.name, string(c.args))
		if err != nil {
			errs = append(errs, err)
		}
		a.done[i] = driver.ToolCall{ID: c.id, Name: c.name, Arguments: args}
	}
	if err := driver.CheckIDs(a.done, "call"); err != nil {
		errs = append(errs, err)
	}
	a.errs = errors.Join(errs...)
	for i, c := range a.done {
		emit(driver.Event{Type: driver.EventToolCallDone, Index: i, ToolCall: c})
	}
}

// Response returns the whole reply. Before a finish_reason has arrived it
// fails with driver.ErrTruncated; with unusable calls it returns the
// Response and their *driver.CallErrors.
func (a *ChatAccumulator) Response() (*driver.Response, error) {
	if !a.final {
		return nil, a.truncated()
	}
	resp := &driver.Response{
		ID:                 a.id,
		Model:              a.model,
		Text:               a.text.String(),
		ToolCalls:          a.done,
		StopReason:         chatStop(a.finish),
		ProviderStopReason: a.finish,
		Usage:              a.usage,
	}
	if a.reasoned {
		resp.Reasoning = []driver.Reasoning{{Format: driver.ReasoningChat, Text: a.reasoning.String()}}
	}
	return resp, a.errs
}

func (a *ChatAccumulator) truncated() error {
	if n := len(a.calls); n > 0 {
		c := a.calls[n-1]
		return fmt.Errorf("%w: no finish_reason; tool call %q (%s) may be incomplete: %s", driver.ErrTruncated, c.id, c.name, clip(string(c.args)))
	}
	return fmt.Errorf("%w: no finish_reason", driver.ErrTruncated)
}

func clip(s string) string {
	if len(s) > 120 {
		return s[:120] + "..."
	}
	return s
}
