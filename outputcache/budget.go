package outputcache

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/quiverkit/quiver/tool"
)

// Message is one message of a conversation as [TrimToBudget] sees it: a
// tool output (Result set), or any other message, counted by Size.
type Message struct {
	Size   int          // bytes of a message that is not a tool output
	Tool   string       // for a tool output: the tool that produced it
	CallID string       // and its call id
	Result *tool.Result // a tool output; TrimToBudget replaces it in place
}

// TrimToBudget replaces the oldest tool outputs in msgs, in order, with a
// one-line stub naming their ref, until the conversation's total size is
// within maxBytes. An output without a ref is stored first (so nothing is
// lost), and an answer of [ReadTool] or [GrepTool] is dropped without
// storing (it is a view of a stored output already). It returns how many
// outputs it replaced; an error stops it, leaving what it replaced so far.
//
// It is off by default in the agent loop, and should stay off unless the
// context window is the hard limit: model providers cache a prompt by its
// exact prefix, and replacing an earlier message changes the prefix from
// that message on, so every later turn pays for (and waits on) the whole
// conversation again instead of reading it from the provider's cache.
func TrimToBudget(ctx context.Context, store Store, msgs []Message, maxBytes int) (int, error) {
	if store == nil {
		return 0, errors.New("outputcache: TrimToBudget needs a store to keep what it removes")
	}
	total := 0
	for _, m := range msgs {
		total += messageSize(m)
	}
	replaced := 0
	for i := 0; i < len(msgs) && total > maxBytes; i++ {
		m := msgs[i]
		if m.Result == nil || isStub(*m.Result) {
			continue
		}
		before := messageSize(m)
		stub, err := stubFor(ctx, store, m)
		if err != nil {
			return replaced, err
		}
		*m.Result = stub
		total += messageSize(m) - before
		replaced++
	}
	return replaced, nil
}

// stubPrefix starts every stub, so that a stub is never stubbed again.
const stubPrefix = "[earlier output of "

func isStub(res tool.Result) bool {
	return len(res.Parts) == 1 && res.Parts[0].Type == tool.PartText &&
		strings.HasPrefix(res.Parts[0].Text, stubPrefix) && len(res.Parts[0].Text) < 400
}

// stubFor returns the stub that replaces m's output, storing the output
// first if it has no ref.
func stubFor(ctx context.Context, store Store, m Message) (tool.Result, error) {
	res := *m.Result
	if m.Tool == ReadTool || m.Tool == GrepTool {
		return tool.Result{Parts: []tool.Part{{Type: tool.PartText, Text: fmt.Sprintf(
			"%s%s removed to fit the context budget; call it again if you need it]", stubPrefix, m.Tool)}},
			IsError: res.IsError, Output: res.Output}, nil
	}
	ref := res.OutputRef
	if ref == "" {
		var err error
		if ref, err = storeResult(ctx, store, Info{Tool: m.Tool, CallID: m.CallID}, res); err != nil {
			return res, err
		}
	}
	text := fmt.Sprintf("%s%s removed to fit the context budget; full output: ref=%s, read it with %s or search it with %s]",
		stubPrefix, m.Tool, ref, ReadTool, GrepTool)
	return tool.Result{Parts: []tool.Part{{Type: tool.PartText, Text: text}},
		IsError: res.IsError, OutputRef: ref, Output: res.Output}, nil
}

// messageSize is what a message takes in the context: text and JSON bytes,
// and image bytes.
func messageSize(m Message) int {
	if m.Result == nil {
		return m.Size
	}
	n := 0
	for _, p := range m.Result.Parts {
		n += len(p.Text) + len(p.JSON) + len(p.Data)
	}
	return n
}
