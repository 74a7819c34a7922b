package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/quiverkit/quiver/agent"
	"github.com/quiverkit/quiver/audit"
	"github.com/quiverkit/quiver/driver"
	"github.com/quiverkit/quiver/internal/visible"
	"github.com/quiverkit/quiver/tool"
)

// runView is what `quiver run` shows while the agent works, after the CLIs
// people already use (Claude Code, Codex): the model's text on standard
// output as it streams, with control and invisible characters written as
// escapes (internal/visible), never passed to the terminal; on standard error its thinking (dimmed on a
// terminal), each tool call when the model has written it ("⏺ name(summary)")
// and when it has run ("  ⎿ ok · 12ms", or the error code). With --json every
// one of these is a JSON object on its own line of standard output, ending
// with a "result" event.
//
// Calls end from the toolkit's audit records: one per call, whatever its
// outcome, with the pipeline's own duration. The view is an audit.Sink, and
// safe for the concurrent records of parallel calls.
type runView struct {
	mu             sync.Mutex
	out, errw      io.Writer
	json, quiet    bool
	dim            bool // stderr is a terminal: thinking is dimmed
	midText        bool // the last text written to out did not end a line
	thinking       bool // thinking is being written to errw
	streamedAnswer bool // some text reached out
	enc            *json.Encoder
	// summaryArgs names the arguments that sum up a call of the named
	// tool, as the tool's view says ([tool.View].Summary); nil, or a nil
	// answer, leaves it to commonSummaryArgs. Set once the toolkit is
	// built, before the run starts.
	summaryArgs func(name string) []string
}

func newRunView(out, errw io.Writer, asJSON, quiet, dim bool) *runView {
	return &runView{out: out, errw: errw, json: asJSON, quiet: quiet, dim: dim, enc: json.NewEncoder(out)}
}

// runEvent is one line of `quiver run --json`.
type runEvent struct {
	Type       string          `json:"type"` // text, thinking, tool_call, tool_result, result
	Text       string          `json:"text,omitempty"`
	ID         string          `json:"id,omitempty"`
	Name       string          `json:"name,omitempty"`
	Arguments  json.RawMessage `json:"arguments,omitempty"`
	Outcome    string          `json:"outcome,omitempty"` // ok, or the error code
	DurationMS float64         `json:"duration_ms,omitempty"`
}

// runResult is the last line of `quiver run --json`: how the run ended.
type runResult struct {
	Type       string       `json:"type"` // result
	Text       string       `json:"text"`
	Done       bool         `json:"done"`
	Summary    string       `json:"summary,omitempty"`
	Turns      int          `json:"turns"`
	Usage      driver.Usage `json:"usage"`
	Incomplete bool         `json:"incomplete"`
	Error      *errorJSON   `json:"error,omitempty"`
}

// event shows one event of a streamed reply.
func (v *runView) event(ev driver.Event) {
	v.mu.Lock()
	defer v.mu.Unlock()
	switch ev.Type {
	case driver.EventReasoningDelta:
		if v.quiet || ev.Delta == "" {
			return
		}
		if v.json {
			v.enc.Encode(runEvent{Type: "thinking", Text: ev.Delta})
			return
		}
		if !v.thinking {
			v.endText()
			v.thinking = true
			if v.dim {
				io.WriteString(v.errw, "\x1b[2m")
			}
		}
		io.WriteString(v.errw, visible.String(ev.Delta))
	case driver.EventTextDelta:
		if v.json {
			v.enc.Encode(runEvent{Type: "text", Text: ev.Delta})
			return
		}
		v.endThinking()
		io.WriteString(v.out, visible.String(ev.Delta))
		v.midText = !strings.HasSuffix(ev.Delta, "\n")
		v.streamedAnswer = true
	case driver.EventToolCallDone:
		c := ev.ToolCall
		if v.json {
			v.enc.Encode(runEvent{Type: "tool_call", ID: c.ID, Name: c.Name, Arguments: c.Arguments})
			return
		}
		v.endThinking()
		v.endText()
		fmt.Fprintf(v.errw, "⏺ %s(%s)\n", visible.String(c.Name), summarize(v.summaryKeys(c.Name), c.Arguments))
	case driver.EventDone:
		if !v.json {
			v.endThinking()
			v.endText()
		}
	}
}

// Record implements audit.Sink: a call has ended.
func (v *runView) Record(_ context.Context, r audit.Record) error {
	if r.Tool == "" {
		return nil // a provider's own record (provider.Audited), not a call's result
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.json {
		return v.enc.Encode(runEvent{Type: "tool_result", ID: r.CallID, Name: r.Tool, Outcome: r.Outcome, DurationMS: r.DurationMS})
	}
	v.endThinking()
	v.endText()
	_, err := fmt.Fprintf(v.errw, "  ⎿  %s · %s\n", r.Outcome, duration(r.DurationMS))
	return err
}

// duration is a call's duration as people read it: 12ms, 3.4s.
func duration(ms float64) string {
	if ms < 1000 {
		return fmt.Sprintf("%.0fms", ms)
	}
	return fmt.Sprintf("%.1fs", ms/1000)
}

func (v *runView) endThinking() {
	if !v.thinking {
		return
	}
	v.thinking = false
	if v.dim {
		io.WriteString(v.errw, "\x1b[0m")
	}
	io.WriteString(v.errw, "\n")
}

func (v *runView) endText() {
	if v.midText {
		io.WriteString(v.out, "\n")
		v.midText = false
	}
}

// finish prints the end of the run and maps its outcome to the exit status:
// 0 answered or done, 1 failed, 3 cut off by the output token limit.
func (v *runView) finish(res *agent.Result, err error) error {
	v.mu.Lock()
	defer v.mu.Unlock()
	if res == nil {
		return &exitError{code: exitUsage, msg: "quiver: " + err.Error()}
	}
	incomplete := errors.Is(err, agent.ErrIncomplete)
	if v.json {
		j := runResult{Type: "result", Text: res.Text, Done: res.Done, Summary: res.Summary, Turns: res.Turns, Usage: res.Usage, Incomplete: incomplete}
		if err != nil && !incomplete {
			te := tool.AsError(err)
			j.Error = newErrorJSON(te)
		}
		if werr := v.enc.Encode(j); werr != nil {
			return werr
		}
	} else {
		v.endThinking()
		v.endText()
		if res.Text == "" && res.Done && res.Summary != "" {
			fmt.Fprintln(v.out, visible.String(res.Summary))
		}
	}
	switch {
	case incomplete:
		return &exitError{code: exitIncomplete, msg: "quiver: incomplete: " + err.Error() +
			"; raise the limit with --max-output-tokens (or max_output_tokens in quiver.toml's [run])"}
	case err != nil:
		return &exitError{code: exitTool, msg: "quiver: " + err.Error()}
	}
	return nil
}

// commonSummaryArgs sum up a call of a tool whose view names none (an MCP
// server's, a custom tool): the arguments that, in any tool, say most
// about what a call does, in the order they are looked for.
var commonSummaryArgs = []string{"command", "argv", "path", "pattern", "query", "url"}

// summaryKeys are the arguments that sum up a call of the tool name.
func (v *runView) summaryKeys(name string) []string {
	if v.summaryArgs != nil {
		if keys := v.summaryArgs(name); keys != nil {
			return keys
		}
	}
	return commonSummaryArgs
}

// summarize is a call's arguments on one short line: the first of keys
// it has, not empty, else its JSON, clipped.
func summarize(keys []string, args json.RawMessage) string {
	var m map[string]any
	if json.Unmarshal(args, &m) != nil {
		return clipLine(string(args))
	}
	for _, k := range keys {
		switch v := m[k].(type) {
		case string:
			if v != "" {
				return clipLine(v)
			}
		case []any:
			parts := make([]string, len(v))
			for i, p := range v {
				parts[i] = fmt.Sprint(p)
			}
			return clipLine(strings.Join(parts, " "))
		}
	}
	if len(m) == 0 {
		return ""
	}
	return clipLine(string(args))
}

// clipLine keeps a summary on one line of at most 80 characters, control
// and invisible characters written as escapes first (so a carriage return
// shows, rather than vanishing among the spaces).
func clipLine(s string) string {
	s = strings.Join(strings.Fields(visible.String(s)), " ")
	if r := []rune(s); len(r) > 80 {
		return string(r[:79]) + "…"
	}
	return s
}
