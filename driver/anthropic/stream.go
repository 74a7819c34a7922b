package anthropic

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/quiverkit/quiver/driver"
)

// Accumulator turns a Messages stream's events into one [driver.Response],
// emitting stream events as it goes. The zero value is ready to use; it is
// not safe for concurrent use.
type Accumulator struct {
	id, model     string
	text          strings.Builder
	blocks        map[int64]*block
	order         []*block // blocks in the order they started, for deterministic settling
	calls, server []driver.ToolCall
	reasoning     []driver.Reasoning
	errs          []error
	stop          sdk.StopReason
	usage         driver.Usage
	stopped       bool
}

type block struct {
	kind   string // text, tool_use, server_tool_use, thinking, redacted_thinking, or another type this driver does not read
	pos    int    // position in calls, server or reasoning
	id     string
	name   string
	start  any // the input of content_block_start: the arguments when no fragment follows
	args   []byte
	meta   map[string]string
	raw    int // server_tool_use: its place in reasoning
	closed bool
}

func noEmit(driver.Event) {}

// Add folds one event in; emit (which may be nil) receives the events it
// produced. A delta or stop for a block that never started, or a block that
// starts twice, is an error.
func (a *Accumulator) Add(ev *sdk.MessageStreamEventUnion, emit func(driver.Event)) error {
	if emit == nil {
		emit = noEmit
	}
	if a.blocks == nil {
		a.blocks = map[int64]*block{}
	}
	switch ev.Type {
	case "message_start":
		m := &ev.Message
		a.id, a.model = m.ID, string(m.Model)
		a.usage = usage(m.Usage.InputTokens, m.Usage.OutputTokens, m.Usage.CacheReadInputTokens)
	case "content_block_start":
		return a.start(ev, emit)
	case "content_block_delta":
		b := a.blocks[ev.Index]
		if b == nil {
			return fmt.Errorf("delta for content block %d, which never started", ev.Index)
		}
		switch ev.Delta.Type {
		case "text_delta":
			if b.kind == "text" && ev.Delta.Text != "" {
				a.text.WriteString(ev.Delta.Text)
				emit(driver.Event{Type: driver.EventTextDelta, Delta: ev.Delta.Text})
			}
		case "thinking_delta":
			if b.kind == "thinking" && ev.Delta.Thinking != "" {
				a.reasoning[b.pos].Text += ev.Delta.Thinking
				emit(driver.Event{Type: driver.EventReasoningDelta, Delta: ev.Delta.Thinking})
			}
		case "signature_delta":
			if b.kind == "thinking" {
				a.reasoning[b.pos].Signature += ev.Delta.Signature
			}
		case "input_json_delta":
			b.args = append(b.args, ev.Delta.PartialJSON...)
			if b.kind == "tool_use" && ev.Delta.PartialJSON != "" {
				emit(driver.Event{Type: driver.EventToolCallDelta, Index: b.pos, Delta: ev.Delta.PartialJSON})
			}
		}
	case "content_block_stop":
		b := a.blocks[ev.Index]
		if b == nil {
			return fmt.Errorf("stop for content block %d, which never started", ev.Index)
		}
		a.close(b, emit)
	case "message_delta":
		a.stop = ev.Delta.StopReason
		u := ev.Usage
		if u.InputTokens > 0 {
			a.usage.InputTokens = u.InputTokens
		}
		if u.CacheReadInputTokens > 0 {
			a.usage.CacheReadTokens = u.CacheReadInputTokens
		}
		if t := u.OutputTokensDetails.ThinkingTokens; t > 0 {
			a.usage.ReasoningTokens = t
		}
		a.usage.OutputTokens = u.OutputTokens
		a.usage.TotalTokens = a.usage.InputTokens + a.usage.OutputTokens
	case "message_stop":
		a.stopped = true
	}
	return nil
}

func (a *Accumulator) start(ev *sdk.MessageStreamEventUnion, emit func(driver.Event)) error {
	if b := a.blocks[ev.Index]; b != nil {
		return fmt.Errorf("content block %d started twice", ev.Index)
	}
	cb := &ev.ContentBlock
	b := &block{kind: cb.Type, id: cb.ID, name: cb.Name, start: cb.Input}
	a.blocks[ev.Index] = b
	a.order = append(a.order, b)
	switch cb.Type {
	case "thinking", "redacted_thinking":
		b.pos = len(a.reasoning)
		r := driver.Reasoning{Format: driver.ReasoningAnthropic, Text: cb.Thinking, Signature: cb.Signature, Before: len(a.calls)}
		if cb.Type == "redacted_thinking" {
			r = driver.Reasoning{Format: driver.ReasoningAnthropic, Redacted: true, Data: cb.Data, Before: len(a.calls)}
		}
		a.reasoning = append(a.reasoning, r)
		if r.Text != "" {
			emit(driver.Event{Type: driver.EventReasoningDelta, Delta: r.Text})
		}
	case "text":
		if cb.Text != "" {
			a.text.WriteString(cb.Text)
			emit(driver.Event{Type: driver.EventTextDelta, Delta: cb.Text})
		}
	case "tool_search_tool_result":
		a.reasoning = append(a.reasoning, driver.Reasoning{Format: driver.ReasoningAnthropic, Raw: json.RawMessage(cb.RawJSON()), Before: len(a.calls)})
	case "tool_use", "server_tool_use":
		if t := cb.Caller.Type; t != "" && t != "direct" {
			b.meta = map[string]string{driver.MetaCallerType: t, driver.MetaCallerID: cb.Caller.ToolID}
		}
		c := driver.ToolCall{ID: cb.ID, Name: cb.Name}
		if cb.Type == "server_tool_use" {
			b.pos = len(a.server)
			a.server = append(a.server, c)
			b.raw = -1
			if !isSearchBlock(cb.Type, cb.Name) {
				return nil
			}
			// Kept in place, to be sent back with its result (see searchBlocks);
			// its input is settled when the block closes.
			b.raw = len(a.reasoning)
			a.reasoning = append(a.reasoning, driver.Reasoning{Format: driver.ReasoningAnthropic, Before: len(a.calls)})
			return nil
		}
		b.pos = len(a.calls)
		a.calls = append(a.calls, c)
		emit(driver.Event{Type: driver.EventToolCallStart, Index: b.pos, ToolCall: c})
	}
	return nil
}

// close settles a tool block's arguments: the fragments if there were any
// that are not blank, else the start input ({} for a call without arguments).
func (a *Accumulator) close(b *block, emit func(driver.Event)) {
	if b.closed || (b.kind != "tool_use" && b.kind != "server_tool_use") {
		b.closed = true
		return
	}
	b.closed = true
	c := driver.ToolCall{ID: b.id, Name: b.name, Metadata: b.meta}
	var err error
	if strings.TrimSpace(string(b.args)) != "" {
		c.Arguments, err = driver.ParseArguments(b.id, b.name, string(b.args))
	} else {
		c.Arguments, err = driver.ObjectArguments(b.id, b.name, b.start)
	}
	if err != nil {
		a.errs = append(a.errs, err)
	}
	if b.kind == "server_tool_use" {
		a.server[b.pos] = c
		if c.Arguments != nil && b.raw >= 0 {
			raw, _ := json.Marshal(struct {
				Type  string          `json:"type"`
				ID    string          `json:"id"`
				Name  string          `json:"name"`
				Input json.RawMessage `json:"input"`
			}{"server_tool_use", c.ID, c.Name, c.Arguments})
			a.reasoning[b.raw].Raw = raw
		}
		return
	}
	a.calls[b.pos] = c
	emit(driver.Event{Type: driver.EventToolCallDone, Index: b.pos, ToolCall: c})
}

// Response returns the whole reply, or driver.ErrTruncated if message_stop
// never arrived.
func (a *Accumulator) Response() (*driver.Response, error) {
	if !a.stopped {
		for _, b := range a.order {
			if !b.closed && b.kind == "tool_use" {
				return nil, fmt.Errorf("%w: no message_stop; tool call %q (%s) is incomplete: %s", driver.ErrTruncated, b.id, b.name, clip(string(b.args)))
			}
		}
		return nil, fmt.Errorf("%w: no message_stop", driver.ErrTruncated)
	}
	for _, b := range a.order {
		a.close(b, noEmit)
	}
	errs := a.errs
	if err := driver.CheckIDs(a.calls, "toolu"); err != nil {
		errs = append(errs, err)
	}
	return &driver.Response{
		ID:                 a.id,
		Model:              a.model,
		Text:               a.text.String(),
		Reasoning:          a.reasoning,
		ToolCalls:          a.calls,
		ServerToolCalls:    a.server,
		StopReason:         stopReason(a.stop),
		ProviderStopReason: string(a.stop),
		Usage:              a.usage,
	}, errors.Join(errs...)
}

func clip(s string) string {
	if len(s) > 120 {
		return s[:120] + "..."
	}
	return s
}
