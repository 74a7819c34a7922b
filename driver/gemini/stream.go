package gemini

import (
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	"github.com/quiverkit/quiver/driver"
	"google.golang.org/genai"
)

// Accumulator turns a stream of GenerateContentResponse chunks into one
// [driver.Response], emitting stream events as it goes. It reads the first
// candidate. The zero value is ready to use; it is not safe for concurrent
// use.
//
// A functionCall part is read as:
//   - a whole call when it has args, or a name and neither willContinue nor
//     partialArgs (a call without arguments: {});
//   - the start of a streamed call when it has a name and willContinue;
//     partialArgs parts then set values by JSON path until a part without
//     willContinue (often {}, sometimes the last partialArgs part) ends it. A
//     call that is still open when another call starts or the candidate
//     finishes ends there.
//
// Gemini sends values, not JSON text, so no argument-delta events are
// emitted; a call's done event carries its arguments.
type Accumulator struct {
	id, model string
	text      strings.Builder
	calls     []driver.ToolCall
	reasoning []driver.Reasoning
	thinking  bool // the last part was a thought: the next one continues it
	errs      []error
	open      *streamCall
	finish    genai.FinishReason
	message   string // FinishMessage, or the prompt's block reason
	usage     driver.Usage
	finished  bool
}

type streamCall struct {
	pos   int
	id    string
	name  string
	sig   []byte
	args  node
	paths map[string][]segment // parsed once per path: a long string arrives as many values on one path
	cont  map[string]bool      // paths whose last value said willContinue
	left  int                  // values the call may still create (see maxNodes)
	err   error
}

func noEmit(driver.Event) {}

// Add folds one chunk in; emit (which may be nil) receives the events it
// produced. A partialArgs fragment with no call open is an error.
func (a *Accumulator) Add(resp *genai.GenerateContentResponse, emit func(driver.Event)) error {
	if emit == nil {
		emit = noEmit
	}
	if resp == nil {
		return nil
	}
	if a.id == "" {
		a.id = resp.ResponseID
	}
	if a.model == "" {
		a.model = resp.ModelVersion
	}
	if u := resp.UsageMetadata; u != nil {
		a.usage = driver.Usage{
			InputTokens:     int64(u.PromptTokenCount),
			OutputTokens:    int64(u.CandidatesTokenCount + u.ThoughtsTokenCount),
			CacheReadTokens: int64(u.CachedContentTokenCount),
			ReasoningTokens: int64(u.ThoughtsTokenCount),
			TotalTokens:     int64(u.TotalTokenCount),
		}
	}
	if len(resp.Candidates) == 0 {
		if pf := resp.PromptFeedback; pf != nil && pf.BlockReason != "" {
			a.finish, a.message, a.finished = genai.FinishReasonSafety, string(pf.BlockReason), true
		}
		return nil
	}
	cand := resp.Candidates[0]
	if cand.Content != nil {
		for _, p := range cand.Content.Parts {
			if err := a.part(p, emit); err != nil {
				return err
			}
		}
	}
	if cand.FinishReason != "" && cand.FinishReason != genai.FinishReasonUnspecified {
		a.finish, a.message, a.finished = cand.FinishReason, cand.FinishMessage, true
		a.closeOpen(emit)
	}
	return nil
}

func (a *Accumulator) part(p *genai.Part, emit func(driver.Event)) error {
	if p == nil {
		return nil
	}
	if fc := p.FunctionCall; fc != nil {
		a.thinking = false
		return a.functionCall(fc, p.ThoughtSignature, emit)
	}
	if p.Thought {
		a.thought(p, emit)
		return nil
	}
	a.thinking = false
	if p.Text != "" {
		a.text.WriteString(p.Text)
		emit(driver.Event{Type: driver.EventTextDelta, Delta: p.Text})
	}
	return nil
}

// thought folds a thought part into the turn's reasoning: consecutive
// thought parts (a streamed thought arrives in pieces) are one, and the
// signature that closes it is kept as it came.
func (a *Accumulator) thought(p *genai.Part, emit func(driver.Event)) {
	if !a.thinking {
		a.reasoning = append(a.reasoning, driver.Reasoning{Format: driver.ReasoningGemini, Before: len(a.calls)})
		a.thinking = true
	}
	r := &a.reasoning[len(a.reasoning)-1]
	r.Text += p.Text
	if len(p.ThoughtSignature) > 0 {
		r.Signature = base64.StdEncoding.EncodeToString(p.ThoughtSignature)
	}
	if p.Text != "" {
		emit(driver.Event{Type: driver.EventReasoningDelta, Delta: p.Text})
	}
}

func (a *Accumulator) functionCall(fc *genai.FunctionCall, sig []byte, emit func(driver.Event)) error {
	if a.open != nil && fc.Name != "" {
		a.closeOpen(emit) // a new call ends one that never got its terminator
	}
	if a.open == nil {
		switch {
		case fc.Name == "" && fc.Args == nil && len(fc.PartialArgs) == 0:
			return nil // a terminator with nothing open: nothing to end
		case fc.Name == "":
			return fmt.Errorf("function call arguments with no call open (no name was sent)")
		case fc.Args != nil || (!isTrue(fc.WillContinue) && len(fc.PartialArgs) == 0):
			a.whole(fc, sig, emit)
			return nil
		}
		a.open = &streamCall{pos: len(a.calls), id: fc.ID, name: fc.Name, sig: sig, paths: map[string][]segment{}, cont: map[string]bool{}, left: maxNodes}
		a.calls = append(a.calls, driver.ToolCall{ID: fc.ID, Name: fc.Name})
		emit(driver.Event{Type: driver.EventToolCallStart, Index: a.open.pos, ToolCall: driver.ToolCall{ID: fc.ID, Name: fc.Name}})
	}
	c := a.open
	if c.sig == nil {
		c.sig = sig
	}
	if c.id == "" {
		c.id = fc.ID
	}
	for _, pa := range fc.PartialArgs {
		c.apply(pa)
	}
	if !isTrue(fc.WillContinue) {
		a.closeOpen(emit)
	}
	return nil
}

// apply sets one partial argument. An unusable path is kept as the call's
// error (reported when the call closes) rather than ending the stream.
func (c *streamCall) apply(pa *genai.PartialArg) {
	if pa == nil || c.err != nil {
		return
	}
	segs, ok := c.paths[pa.JsonPath]
	if !ok {
		var err error
		if segs, err = parsePath(pa.JsonPath); err != nil {
			c.err = err
			return
		}
		c.paths[pa.JsonPath] = segs
	}
	n, err := c.args.lookup(segs, &c.left)
	if err != nil {
		c.err = fmt.Errorf("json path %q: %w", pa.JsonPath, err)
		return
	}
	n.set(pa, c.cont[pa.JsonPath])
	c.cont[pa.JsonPath] = isTrue(pa.WillContinue)
}

func (a *Accumulator) whole(fc *genai.FunctionCall, sig []byte, emit func(driver.Event)) {
	pos := len(a.calls)
	emit(driver.Event{Type: driver.EventToolCallStart, Index: pos, ToolCall: driver.ToolCall{ID: fc.ID, Name: fc.Name}})
	var args any
	if fc.Args != nil {
		args = fc.Args
	}
	c := driver.ToolCall{ID: fc.ID, Name: fc.Name, Metadata: sigMeta(sig)}
	var err error
	c.Arguments, err = driver.ObjectArguments(fc.ID, fc.Name, args)
	if err != nil {
		a.errs = append(a.errs, err)
	}
	a.calls = append(a.calls, c)
	a.done(pos, emit)
}

func (a *Accumulator) closeOpen(emit func(driver.Event)) {
	c := a.open
	if c == nil {
		return
	}
	a.open = nil
	call := driver.ToolCall{ID: c.id, Name: c.name, Metadata: sigMeta(c.sig)}
	if c.err != nil {
		a.errs = append(a.errs, &driver.CallError{ID: c.id, Name: c.name, Err: fmt.Errorf("%w: %w", driver.ErrInvalidArguments, c.err)})
	} else if c.args.kind == 0 {
		call.Arguments = []byte("{}")
	} else {
		call.Arguments = c.args.appendJSON(make([]byte, 0, 64))
	}
	a.calls[c.pos] = call
	a.done(c.pos, emit)
}

// done gives a call without an id one now (ids of calls already done never
// change) and emits its done event.
func (a *Accumulator) done(pos int, emit func(driver.Event)) {
	if a.calls[pos].ID == "" {
		_ = driver.CheckIDs(a.calls[pos:pos+1], "call")
	}
	emit(driver.Event{Type: driver.EventToolCallDone, Index: pos, ToolCall: a.calls[pos]})
}

// Response returns the whole reply, or driver.ErrTruncated if no chunk
// carried a finish reason.
func (a *Accumulator) Response() (*driver.Response, error) {
	if !a.finished {
		if c := a.open; c != nil {
			return nil, fmt.Errorf("%w: no finish reason; tool call %q is incomplete", driver.ErrTruncated, c.name)
		}
		return nil, fmt.Errorf("%w: no finish reason", driver.ErrTruncated)
	}
	a.closeOpen(noEmit)
	errs := a.errs
	if err := driver.CheckIDs(a.calls, "call"); err != nil {
		errs = append(errs, err)
	}
	resp := &driver.Response{
		ID:                 a.id,
		Model:              a.model,
		Text:               a.text.String(),
		Reasoning:          a.reasoning,
		ToolCalls:          a.calls,
		StopReason:         stopReason(a.finish, len(a.calls) > 0),
		ProviderStopReason: string(a.finish),
		Usage:              a.usage,
	}
	if a.finish == genai.FinishReasonMalformedFunctionCall {
		errs = append(errs, fmt.Errorf("gemini: the model produced a malformed function call: %s", a.message))
		return nil, errors.Join(errs...)
	}
	return resp, errors.Join(errs...)
}

func stopReason(r genai.FinishReason, calls bool) driver.StopReason {
	switch r {
	case genai.FinishReasonStop, "":
		if calls {
			return driver.StopToolCalls
		}
		return driver.StopEnd
	case genai.FinishReasonMaxTokens:
		return driver.StopLength
	case genai.FinishReasonSafety, genai.FinishReasonRecitation, genai.FinishReasonBlocklist,
		genai.FinishReasonProhibitedContent, genai.FinishReasonSPII, genai.FinishReasonImageSafety,
		genai.FinishReasonImageProhibitedContent, genai.FinishReasonImageRecitation:
		return driver.StopContentFilter
	}
	return driver.StopOther
}

func sigMeta(sig []byte) map[string]string {
	if len(sig) == 0 {
		return nil
	}
	return map[string]string{driver.MetaThoughtSignature: base64.StdEncoding.EncodeToString(sig)}
}

func isTrue(b *bool) bool { return b != nil && *b }
