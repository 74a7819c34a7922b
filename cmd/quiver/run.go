package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"

	"github.com/quiverkit/quiver"
	"github.com/quiverkit/quiver/agent"
	"github.com/quiverkit/quiver/audit"
	"github.com/quiverkit/quiver/config"
	"github.com/quiverkit/quiver/driver"
	"github.com/quiverkit/quiver/policy/approve"
	"github.com/quiverkit/quiver/telemetry"
	"github.com/quiverkit/quiver/tools"
	"github.com/spf13/cobra"
	"golang.org/x/term"
)

// exitIncomplete is `quiver run`'s exit status when the model's last reply
// was cut off by the output token limit: not an answer, and not a failure
// of a tool either.
const exitIncomplete = 3

// runFlags are the settings of `quiver run`: the flags, over the [run]
// section of quiver.toml.
type runFlags struct {
	provider, model, baseURL, api   string
	system, systemAppend            string
	maxTurns                        int
	maxTokens                       int64
	thinkingBudget, maxOutputTokens int
	reasoningEffort, toolChoice     string
	parallel, quietThinking         bool
	trimOutputs                     int
	jsonOutput                      bool
}

func (a *app) runCommand() *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:   "run TASK",
		Short: "Run an agent on a task with the toolkit's tools",
		Long: "Give TASK to a model and run the tool calls it makes through the whole pipeline (policy, approval,\n" +
			"workspace) until it answers, calls done, or spends its budget. The model's text streams to standard\n" +
			"output as it is written; its thinking (dimmed) and each tool call, as it starts and as it ends, go\n" +
			"to standard error. --json prints one JSON event per line instead.\n" +
			"The API key comes from OPENAI_API_KEY, ANTHROPIC_API_KEY or GEMINI_API_KEY; with --base-url\n" +
			"(Ollama, vLLM, another OpenAI-compatible server) the key may be absent. Every flag has a default in\n" +
			"quiver.toml's [run] section, checked when the file is loaded; all are checked before the first request.\n" +
			"The model gets a short system prompt, the guidance every tool shares: --system replaces it (--system ''\n" +
			"sends none), --system-append adds to it (or to --system), keeping it.\n" +
			"--json-output cuts the final answer down to its JSON value (a fence, prose around it) and prints\n" +
			"only that on standard output, the model's other text going to standard error; an answer with no\n" +
			"JSON is a failure. --trim-outputs bounds the conversation: older tool outputs give way to a stub\n" +
			"naming their ref in the output cache (it defeats the provider's prompt cache; use it when the\n" +
			"context window is the limit).\n" +
			"Exit status: 0 answered or done, 1 the run failed (a budget, the model's API), 2 usage,\n" +
			"3 the reply was cut off by the output token limit (raise --max-output-tokens).",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			cfg, err := a.loadConfig()
			if err != nil {
				return err
			}
			f.merge(cmd, cfg.Run)
			if err := f.check(cmd); err != nil {
				return usageError(err)
			}
			ac, err := f.agentConfig()
			if err != nil {
				return usageError(err)
			}
			ac.ParallelToolCalls = f.parallelFlag(cmd)
			ac.Defer = deferral(cfg, ac.ToolChoice)
			if ac.Model, err = a.model(cfg, f.spec()); err != nil {
				return usageError(err)
			}
			ac.Traced = telemetry.Model{Provider: f.spec().Provider, Name: f.spec().Model}
			view := newRunView(f.textOut(cmd, a.flags.json), cmd.ErrOrStderr(), a.flags.json, f.quietThinking, colour(os.Stderr))
			sinks, err := a.runAudit(view)
			if err != nil {
				return usageError(err)
			}
			opts, err := a.telemetry(stderrLogger())
			if err != nil {
				return err
			}
			opts = append(opts, quiver.WithAudit(sinks))
			if !a.flags.yes {
				opts = append(opts, quiver.WithApprover(approve.Prompt{In: os.Stdin, Out: os.Stderr, Remember: &approve.SessionRules{}}))
			}
			if ac.Toolkit, err = a.toolkit(opts...); err != nil {
				return err
			}
			defer a.close()
			if err := f.checkToolChoice(ctx, cmd, ac.Toolkit); err != nil {
				return usageError(err)
			}
			view.summaryArgs = func(name string) []string {
				if t, err := ac.Toolkit.Lookup(ctx, name); err == nil {
					return t.View.Summary
				}
				return nil
			}
			ac.OnEvent = view.event
			res, err := agent.Run(ctx, ac, args[0])
			if err == nil && f.jsonOutput && !a.flags.json && !res.Done {
				fmt.Fprintln(cmd.OutOrStdout(), res.Text)
			}
			return view.finish(res, err)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.provider, "provider", "openai", "openai, anthropic or gemini")
	fl.StringVar(&f.model, "model", "", "the model's name (required)")
	fl.StringVar(&f.baseURL, "base-url", "", "the API's base URL, for Ollama and other compatible servers")
	fl.StringVar(&f.api, "api", "", "OpenAI's API: responses or chat (default: responses for OpenAI's reasoning models, chat otherwise and with --base-url)")
	fl.StringVar(&f.system, "system", "", "replace the default system prompt (the guidance every tool shares) with TEXT; '' sends none")
	fl.StringVar(&f.systemAppend, "system-append", "", "add TEXT after the system prompt, keeping the default guidance")
	fl.IntVar(&f.maxTurns, "max-turns", agent.DefaultMaxTurns, "the most replies the model may give")
	fl.Int64Var(&f.maxTokens, "max-tokens", 0, "the most tokens the run may spend, thinking included (0: no limit)")
	fl.IntVar(&f.maxOutputTokens, "max-output-tokens", 0, "the most tokens one reply may take (0: the provider's default)")
	fl.IntVar(&f.thinkingBudget, "thinking-budget", 0, "extended thinking: tokens a reply may think with (Anthropic, at least 1024; Gemini)")
	fl.StringVar(&f.reasoningEffort, "reasoning-effort", "", "low, medium or high (OpenAI reasoning models; Gemini thinking level)")
	fl.BoolVar(&f.quietThinking, "quiet-thinking", false, "do not show the model's thinking")
	fl.StringVar(&f.toolChoice, "tool-choice", "", "auto, none, required, or a tool's name to force it (default: the provider's, auto)")
	fl.BoolVar(&f.parallel, "parallel-tool-calls", true, "let the model make several calls per reply (sent only when given)")
	fl.IntVar(&f.trimOutputs, "trim-outputs", 0, "bound the conversation to BYTES by replacing the oldest tool outputs with their ref (0: off)")
	fl.BoolVar(&f.jsonOutput, "json-output", false, "the answer must be JSON: print only its JSON value, cut from any fence or prose")
	return cmd
}

// merge fills what no flag set from quiver.toml's [run] section.
func (f *runFlags) merge(cmd *cobra.Command, c config.Run) {
	unset := func(name string) bool { return !cmd.Flags().Changed(name) }
	pick := func(name string, dst *string, v string) {
		if unset(name) && v != "" {
			*dst = v
		}
	}
	pick("provider", &f.provider, c.Provider)
	pick("model", &f.model, c.Model)
	pick("base-url", &f.baseURL, c.BaseURL)
	pick("api", &f.api, c.API)
	pick("reasoning-effort", &f.reasoningEffort, c.ReasoningEffort)
	pick("tool-choice", &f.toolChoice, c.ToolChoice)
	pick("system-append", &f.systemAppend, c.SystemAppend)
	if unset("system") {
		f.system = agent.DefaultSystem
		if c.System != "" {
			f.system = c.System
		}
	}
	if unset("thinking-budget") && c.ThinkingBudget != 0 {
		f.thinkingBudget = c.ThinkingBudget
	}
	if unset("max-output-tokens") && c.MaxOutputTokens != 0 {
		f.maxOutputTokens = c.MaxOutputTokens
	}
	if unset("quiet-thinking") && c.QuietThinking {
		f.quietThinking = true
	}
	if unset("parallel-tool-calls") && c.ParallelToolCalls != nil {
		f.parallel = *c.ParallelToolCalls
		cmd.Flags().Lookup("parallel-tool-calls").Changed = true // the file said it: send it
	}
}

// check holds the settings, the flags over the file's, to the check
// quiver.toml's [run] section has at load (config.Run.Check), naming the
// flag, or the key when the file set it.
func (f *runFlags) check(cmd *cobra.Command) error {
	err := config.Run{Provider: f.provider, Model: f.model, BaseURL: f.baseURL, API: f.api, ThinkingBudget: f.thinkingBudget,
		ReasoningEffort: f.reasoningEffort, MaxOutputTokens: f.maxOutputTokens, ToolChoice: f.toolChoice}.Check()
	var ke *config.RunKeyError
	if !errors.As(err, &ke) {
		return err
	}
	return fmt.Errorf("%s: %s", f.origin(cmd, ke.Key), ke.Msg)
}

// origin names where the setting key came from: its flag, or quiver.toml.
func (f *runFlags) origin(cmd *cobra.Command, key string) string {
	flag := strings.ReplaceAll(key, "_", "-")
	if cmd.Flags().Changed(flag) {
		return "--" + flag
	}
	return "[run] " + key
}

// checkToolChoice holds a tool_choice naming a tool to the catalogue: the
// API would take an unknown name and fail the first request, or worse,
// force a call to a tool the model cannot have.
func (f *runFlags) checkToolChoice(ctx context.Context, cmd *cobra.Command, tk *quiver.Toolkit) error {
	switch f.toolChoice {
	case "", "auto", "none", "required":
		return nil
	}
	where := f.origin(cmd, "tool_choice")
	t, err := tk.Lookup(ctx, f.toolChoice)
	if err != nil {
		return fmt.Errorf("%s: %q names no tool of the catalogue (quiver tools lists them); want auto, none, required or a tool's name", where, f.toolChoice)
	}
	if t.Name != f.toolChoice {
		return fmt.Errorf("%s: %q is another name of %s, and the model is offered the tool by its own: name %s", where, f.toolChoice, t.Name, t.Name)
	}
	offered, err := tk.AllowedTools(ctx)
	if err != nil {
		return err
	}
	for _, o := range offered {
		if o.Name == t.Name {
			return nil
		}
	}
	return fmt.Errorf("%s: %q: the policy refuses every call of it, so the model is not offered it", where, f.toolChoice)
}

// agentConfig checks the settings and turns them into the run's budget and
// request options.
func (f *runFlags) agentConfig() (agent.Config, error) {
	c := agent.Config{System: joinPrompt(f.system, f.systemAppend), MaxTurns: f.maxTurns, MaxTokens: f.maxTokens, MaxOutputTokens: f.maxOutputTokens,
		Reasoning:   driver.ReasoningConfig{BudgetTokens: f.thinkingBudget, Effort: f.reasoningEffort},
		TrimOutputs: f.trimOutputs, JSONAnswer: f.jsonOutput}
	if f.trimOutputs < 0 {
		return c, errors.New("--trim-outputs cannot be negative")
	}
	switch f.toolChoice {
	case "":
	case "auto", "none", "required":
		c.ToolChoice = driver.ToolChoice{Mode: driver.ToolChoiceMode(f.toolChoice)}
	default:
		c.ToolChoice = driver.Choose(f.toolChoice)
	}
	return c, nil
}

// deferral is what the configuration holds back behind tool search; a tool
// --tool-choice forces is always shown, since a forced call of a tool the
// model is not shown would be refused by the API.
func deferral(cfg *config.Config, choice driver.ToolChoice) *driver.Deferral {
	d := &driver.Deferral{Core: tools.Core, Defer: cfg.Tools.Defer, AlwaysLoad: cfg.Tools.AlwaysLoad}
	if choice.Mode == driver.ToolChoiceTool {
		d.AlwaysLoad = append(slices.Clone(d.AlwaysLoad), choice.Name)
	}
	return d
}

// joinPrompt is the system prompt, then the text added after it.
func joinPrompt(system, appended string) string {
	if system == "" || appended == "" {
		return system + appended
	}
	return strings.TrimRight(system, "\n") + "\n\n" + appended
}

// textOut is where the model's streamed text goes: standard output, but
// standard error under --json-output, where standard output holds only the
// answer's JSON value (for jq and other programs). --json keeps its events
// on standard output, the result event carrying the cut answer.
func (f *runFlags) textOut(cmd *cobra.Command, asJSON bool) io.Writer {
	if f.jsonOutput && !asJSON {
		return cmd.ErrOrStderr()
	}
	return cmd.OutOrStdout()
}

// parallelFlag is the parallel_tool_calls to send: nil unless the flag or
// quiver.toml set it.
func (f *runFlags) parallelFlag(cmd *cobra.Command) *bool {
	if !cmd.Flags().Changed("parallel-tool-calls") {
		return nil
	}
	return &f.parallel
}

// spec is the model the flags name.
func (f *runFlags) spec() driver.Spec {
	return driver.Spec{Provider: f.provider, Model: f.model, BaseURL: f.baseURL, API: f.api}
}

// runAudit is the run's audit sink: the view, which shows each call's end,
// and the --audit file when there is one. It takes the file over from the
// toolkit's base options, which would otherwise be the only sink.
func (a *app) runAudit(view *runView) (audit.Sink, error) {
	sinks := teeSink{view}
	if path := a.flags.audit; path != "" {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			return nil, fmt.Errorf("--audit: %w", err)
		}
		a.closer = append(a.closer, f)
		a.flags.audit = ""
		sinks = append(sinks, audit.NewJSONLines(f))
	}
	return sinks, nil
}

// teeSink hands each record to every sink; the first error is returned.
type teeSink []audit.Sink

func (t teeSink) Record(ctx context.Context, r audit.Record) error {
	var first error
	for _, s := range t {
		if err := s.Record(ctx, r); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// colour reports whether what goes to f may be styled with escape
// sequences: they are for people, not for files and pipes, and not for
// people who set NO_COLOR (no-color.org: present and not empty). The dimmed
// thinking of quiver run is the only styling Quiver writes.
func colour(f *os.File) bool {
	return os.Getenv("NO_COLOR") == "" && term.IsTerminal(int(f.Fd()))
}
