// Package agent is the conversation loop: it offers a toolkit's tools to a
// model, runs the calls the model makes through the toolkit's whole
// pipeline, sends the results back, and stops when the model answers without
// calling a tool, when it calls done, or when a budget is spent.
//
// The loop decides nothing about safety itself. Review of high-risk calls is
// the toolkit's: its policy refers them to its Approver (a person, or
// approve.Quorum of reviewer models), and a refusal reaches the model as an
// APPROVAL_DENIED result it can act on. Keeping that in one place means a
// call is judged the same way whether an agent, a CLI user or an MCP client
// made it.
//
// Reasoning models. Each reply's reasoning (Anthropic thinking blocks,
// OpenAI reasoning items, DeepSeek reasoning_content, Gemini thoughts) stays
// in the conversation beside the calls it led to, exactly as the provider
// sent it, and goes back with the results: the drivers decide what each
// provider must see (see package driver's Reasoning). Reasoning tokens are
// part of the output tokens every provider reports, so MaxTokens counts
// them. Config.Reasoning turns thinking on, and OnEvent receives it as
// driver.EventReasoningDelta while it streams.
//
// A reply cut off by the token limit is not an answer: the run ends with
// [ErrIncomplete] and the partial Result, and its calls are not run (a call
// cut mid-arguments would run with half of them).
package agent

import (
	"context"
	"errors"
	"fmt"

	"github.com/quiverkit/quiver"
	"github.com/quiverkit/quiver/driver"
	"github.com/quiverkit/quiver/telemetry"
	"github.com/quiverkit/quiver/tool"
)

// DefaultMaxTurns is the turn budget of a Config that sets none.
const DefaultMaxTurns = 20

// Config is what one run needs.
type Config struct {
	Model   driver.Model    // required
	Toolkit *quiver.Toolkit // required; its AllowedTools are offered every turn
	System  string          // instructions; none when empty
	// MaxTurns bounds the model's replies; 0 means DefaultMaxTurns.
	MaxTurns int
	// MaxTokens bounds the tokens the run spends, as the provider reports
	// them (total, else input plus output); 0 means no bound. It is checked
	// between turns, so one reply may take the run past it.
	MaxTokens int64
	// ToolChoice is sent with every request; the zero value is the
	// provider's default (auto). A forced choice means the run can end only
	// through done or a budget.
	ToolChoice driver.ToolChoice
	// Strict asks for strict (constrained) argument decoding where the
	// provider has it.
	Strict bool
	// ParallelToolCalls, when set, allows or forbids several calls per turn.
	ParallelToolCalls *bool
	// MaxOutputTokens caps each reply (driver.Request.MaxTokens); 0 leaves
	// the driver's default.
	MaxOutputTokens int
	// Reasoning is sent with every request: a thinking budget (Anthropic,
	// Gemini) or a reasoning effort (OpenAI, Gemini).
	Reasoning driver.ReasoningConfig
	// TrimOutputs, when above 0, bounds the conversation's size in bytes:
	// before each request the oldest tool outputs are replaced by a stub
	// naming where the toolkit's output cache keeps them
	// (outputcache.TrimToBudget). Off by default: replacing an earlier
	// message defeats the provider's prompt cache from that message on.
	TrimOutputs int
	// JSONAnswer, when set, says the final answer must be JSON: Result.Text
	// is cut down to its JSON value with [ExtractJSON] (a fence, prose
	// around it), and an answer holding none ends the run with an error
	// wrapping [ErrNoJSON]. The conversation keeps the reply as written.
	// done's summary is not an answer and is left alone.
	JSONAnswer bool
	// OnEvent, when set, makes the run stream each reply and receive its
	// events (text deltas, tool calls) as they arrive.
	OnEvent func(driver.Event)
	// Traced names the model in the run's spans, which the toolkit's
	// telemetry records (quiver.WithTelemetry): the run as invoke_agent,
	// each reply as chat {model}. Without telemetry it is not looked at.
	Traced telemetry.Model
	// Defer, when set, holds back the tools it defers behind tool search:
	// each request marks them Deferred, and the driver offers them the
	// provider's way (Anthropic's tool search tool, an OpenAI Responses
	// namespace and client tool_search, else Quiver's tool_search, which
	// this loop answers: the tools it finds are shown from the next turn
	// on). Nil: every allowed tool is shown every turn.
	Defer *driver.Deferral
}

// Result is what a run produced, whole or, beside an error, as far as it got.
type Result struct {
	Text     string           // the model's last text
	Messages []driver.Message // the whole conversation, system message first
	Turns    int              // replies received
	Usage    driver.Usage     // summed over the replies
	Done     bool             // the model called done and it succeeded
	Summary  string           // done's summary
}

// ErrIncomplete is the cause of the error of a run whose last reply was cut
// off by the token limit (finish_reason "length", Anthropic "max_tokens",
// Gemini MAX_TOKENS, Responses incomplete for max_output_tokens). Raise
// Config.MaxOutputTokens, or the thinking budget's share of it.
var ErrIncomplete = errors.New("the reply was cut off by the output token limit")

// Run gives task to the model and runs the conversation to its end. A spent
// budget returns the partial Result with a *tool.Error of code
// BUDGET_EXCEEDED; a model or transport failure, or ctx ending, returns the
// partial Result with that error. Tool failures never end the run: they go
// back to the model as error results.
func Run(ctx context.Context, cfg Config, task string) (*Result, error) {
	if cfg.Model == nil || cfg.Toolkit == nil {
		return nil, errors.New("agent: Config needs a Model and a Toolkit")
	}
	ctx, span := cfg.Toolkit.Telemetry().StartAgent(ctx, cfg.Traced)
	res, err := run(ctx, cfg, task)
	span.EndAgent(res.Turns, spanUsage(res.Usage), errorType(ctx, err), err)
	return res, err
}

func run(ctx context.Context, cfg Config, task string) (*Result, error) {
	maxTurns := cfg.MaxTurns
	if maxTurns <= 0 {
		maxTurns = DefaultMaxTurns
	}
	res := &Result{}
	if cfg.System != "" {
		res.Messages = append(res.Messages, driver.SystemMessage(cfg.System))
	}
	res.Messages = append(res.Messages, driver.UserMessage(task))
	refs := map[string]string{} // call id -> output ref, so that trimming stores nothing twice
	loaded := map[string]bool{} // deferred tools a search of Quiver's found, shown from then on
	for {
		if err := ctx.Err(); err != nil {
			return res, fmt.Errorf("agent: stopped after %d turns: %w", res.Turns, err)
		}
		if res.Turns >= maxTurns {
			return res, budgetError("the turn budget (%d) is spent and the task is not done", maxTurns)
		}
		if spent := tokens(res.Usage); cfg.MaxTokens > 0 && spent >= cfg.MaxTokens {
			return res, budgetError("the token budget (%d) is spent (%d used) and the task is not done", cfg.MaxTokens, spent)
		}
		if cfg.TrimOutputs > 0 {
			if err := trim(ctx, cfg.Toolkit, res.Messages, refs, cfg.TrimOutputs); err != nil {
				return res, err
			}
		}
		finished, err := turn(ctx, &cfg, res, refs, loaded)
		if err != nil {
			return res, err
		}
		if finished && cfg.JSONAnswer && !res.Done {
			return res, cutToJSON(res)
		}
		if finished {
			return res, nil
		}
	}
}

// turn asks the model once and runs what it called. It reports whether the
// run is over.
func turn(ctx context.Context, cfg *Config, res *Result, refs map[string]string, loaded map[string]bool) (bool, error) {
	allowed, err := cfg.Toolkit.AllowedTools(ctx)
	if err != nil {
		return false, fmt.Errorf("agent: list the tools: %w", err)
	}
	defs := driver.Definitions(allowed, cfg.Strict)
	if cfg.Defer != nil {
		defs = cfg.Defer.Mark(defs, loaded)
	}
	req := driver.Request{
		Messages:          res.Messages,
		Tools:             defs,
		ToolChoice:        cfg.ToolChoice,
		ParallelToolCalls: cfg.ParallelToolCalls,
		MaxTokens:         cfg.MaxOutputTokens,
		Reasoning:         cfg.Reasoning,
	}
	resp, err := askTraced(ctx, cfg, req)
	if err != nil && !driver.IsCallError(err) {
		if cerr := ctx.Err(); cerr != nil {
			return false, fmt.Errorf("agent: turn %d: %w", res.Turns+1, errors.Join(cerr, err))
		}
		return false, fmt.Errorf("agent: turn %d: %w", res.Turns+1, err)
	}
	res.Turns++
	addUsage(&res.Usage, resp.Usage)
	res.Text = resp.Text
	res.Messages = append(res.Messages, resp.Message())
	if resp.StopReason == driver.StopLength {
		return false, fmt.Errorf("agent: turn %d: %w (%s, %d output tokens)", res.Turns, ErrIncomplete, resp.ProviderStopReason, resp.Usage.OutputTokens)
	}
	if len(resp.ToolCalls) == 0 {
		return true, nil
	}
	var searches searchAnswers
	if driver.HasDeferred(defs) {
		searches = searchAnswers{defs: defs, loaded: loaded}
	}
	results, summary, done := runCalls(ctx, cfg.Toolkit, resp.ToolCalls, refs, searches)
	res.Messages = append(res.Messages, driver.ToolMessage(results...))
	if done {
		res.Done, res.Summary = true, summary
	}
	return done, nil
}

// ask sends req, streaming when the caller wants the events.
func ask(ctx context.Context, cfg *Config, req driver.Request) (*driver.Response, error) {
	if cfg.OnEvent == nil {
		return cfg.Model.Generate(ctx, req)
	}
	s, err := cfg.Model.Stream(ctx, req)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	var resp *driver.Response
	for s.Next() {
		ev := s.Event()
		if ev.Type == driver.EventDone {
			resp = ev.Response
		}
		cfg.OnEvent(ev)
	}
	err = s.Err()
	if err == nil && resp == nil {
		err = driver.ErrTruncated
	}
	if err != nil && (resp == nil || !driver.IsCallError(err)) {
		return nil, err
	}
	return resp, err
}

// runCalls runs one turn's calls through the toolkit (read-only low-risk
// calls concurrently, the rest in order) and returns their results in call
// order, with done's summary if a done call succeeded. A call whose
// arguments did not parse is answered without running anything.
func runCalls(ctx context.Context, tk *quiver.Toolkit, calls []driver.ToolCall, refs map[string]string, searches searchAnswers) ([]driver.ToolResult, string, bool) {
	results := make([]driver.ToolResult, len(calls))
	var runnable []driver.ToolCall
	var index []int
	for i, c := range calls {
		if c.Arguments == nil {
			results[i] = driver.UnparsedResult(c)
			continue
		}
		if r, ok := searches.answer(c); ok {
			results[i] = r
			continue
		}
		runnable = append(runnable, c)
		index = append(index, i)
	}
	var summary string
	var done bool
	for j, out := range tk.InvokeAll(ctx, runnable) {
		c := calls[index[j]]
		var err error
		if out.Err != nil {
			err = out.Err
		}
		results[index[j]] = driver.ResultFor(c, out.Content, err)
		if out.Content.OutputRef != "" {
			refs[c.ID] = out.Content.OutputRef
		}
		if s, ok := tool.IsDone(out.Content); ok && err == nil {
			summary, done = s, true
		}
	}
	return results, summary, done
}

func budgetError(format string, args ...any) error {
	return tool.Errorf(tool.CodeBudgetExceeded, format, args...)
}

// tokens is what u counts against MaxTokens: the total when the provider
// reports one, else input plus output.
func tokens(u driver.Usage) int64 {
	if u.TotalTokens > 0 {
		return u.TotalTokens
	}
	return u.InputTokens + u.OutputTokens
}

func addUsage(sum *driver.Usage, u driver.Usage) {
	if u.TotalTokens == 0 {
		u.TotalTokens = u.InputTokens + u.OutputTokens
	}
	sum.InputTokens += u.InputTokens
	sum.OutputTokens += u.OutputTokens
	sum.CacheReadTokens += u.CacheReadTokens
	sum.ReasoningTokens += u.ReasoningTokens
	sum.TotalTokens += u.TotalTokens
}
