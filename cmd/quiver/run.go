package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	anthropicsdk "github.com/anthropics/anthropic-sdk-go"
	anthropicopt "github.com/anthropics/anthropic-sdk-go/option"
	oai "github.com/openai/openai-go/v3"
	oaiopt "github.com/openai/openai-go/v3/option"
	"github.com/quiverkit/quiver/agent"
	"github.com/quiverkit/quiver/driver"
	"github.com/quiverkit/quiver/driver/anthropic"
	"github.com/quiverkit/quiver/driver/gemini"
	"github.com/quiverkit/quiver/driver/openai"
	"github.com/quiverkit/quiver/tool"
	"github.com/spf13/cobra"
	"google.golang.org/genai"
)

func init() { commands = append(commands, (*app).runCommand) }

// runFlags are the flags of `quiver run`.
type runFlags struct {
	provider, model, baseURL, system string
	maxTurns                         int
	maxTokens                        int64
}

// apiKeyEnv names the environment variable each provider's key is read from,
// the one its own SDK and CLI use.
var apiKeyEnv = map[string][]string{
	"openai":    {"OPENAI_API_KEY"},
	"anthropic": {"ANTHROPIC_API_KEY"},
	"gemini":    {"GEMINI_API_KEY", "GOOGLE_API_KEY"},
}

func (a *app) runCommand() *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:   "run TASK",
		Short: "Run an agent on a task with the toolkit's tools",
		Long: "Give TASK to a model and run the tool calls it makes through the whole pipeline (policy, approval,\n" +
			"workspace) until it answers, calls done, or spends its budget. The final text is printed.\n" +
			"The API key comes from OPENAI_API_KEY, ANTHROPIC_API_KEY or GEMINI_API_KEY; with --base-url\n" +
			"(Ollama, vLLM, another OpenAI-compatible server) the key may be absent.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			model, err := f.newModel(ctx)
			if err != nil {
				return &exitError{code: exitUsage, msg: "quiver: " + err.Error()}
			}
			tk, err := a.toolkit()
			if err != nil {
				return err
			}
			defer a.close()
			res, err := agent.Run(ctx, agent.Config{Model: model, Toolkit: tk, System: f.system,
				MaxTurns: f.maxTurns, MaxTokens: f.maxTokens}, args[0])
			return a.printRun(cmd, res, err)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.provider, "provider", "openai", "openai, anthropic or gemini")
	fl.StringVar(&f.model, "model", "", "the model's name (required)")
	fl.StringVar(&f.baseURL, "base-url", "", "the API's base URL, for Ollama and other compatible servers")
	fl.StringVar(&f.system, "system", "", "system instructions")
	fl.IntVar(&f.maxTurns, "max-turns", agent.DefaultMaxTurns, "the most replies the model may give")
	fl.Int64Var(&f.maxTokens, "max-tokens", 0, "the most tokens the run may spend (0: no limit)")
	return cmd
}

// newModel builds the driver for the chosen provider on its SDK's client.
func (f runFlags) newModel(ctx context.Context) (driver.Model, error) {
	envs, ok := apiKeyEnv[f.provider]
	if !ok {
		return nil, fmt.Errorf("--provider %q: want openai, anthropic or gemini", f.provider)
	}
	if f.model == "" {
		return nil, fmt.Errorf("--model is required (the %s model to run)", f.provider)
	}
	var key string
	for _, e := range envs {
		if key = os.Getenv(e); key != "" {
			break
		}
	}
	if key == "" && f.baseURL == "" {
		return nil, fmt.Errorf("no API key: set %s (or --base-url for a server that needs none)", envs[0])
	}
	switch f.provider {
	case "anthropic":
		opts := []anthropicopt.RequestOption{anthropicopt.WithAPIKey(key)}
		if f.baseURL != "" {
			opts = append(opts, anthropicopt.WithBaseURL(f.baseURL))
		}
		return anthropic.New(anthropicsdk.NewClient(opts...), f.model), nil
	case "gemini":
		client, err := genai.NewClient(ctx, &genai.ClientConfig{APIKey: key, Backend: genai.BackendGeminiAPI,
			HTTPOptions: genai.HTTPOptions{BaseURL: f.baseURL}})
		if err != nil {
			return nil, fmt.Errorf("gemini client: %w", err)
		}
		return gemini.New(client, f.model), nil
	default:
		if key == "" {
			key = "none" // compatible servers without auth still get a well-formed header
		}
		opts := []oaiopt.RequestOption{oaiopt.WithAPIKey(key)}
		if f.baseURL != "" {
			opts = append(opts, oaiopt.WithBaseURL(f.baseURL))
		}
		return openai.NewChat(oai.NewClient(opts...), f.model), nil
	}
}

// runJSON is what `quiver run --json` prints.
type runJSON struct {
	Text    string       `json:"text"`
	Done    bool         `json:"done"`
	Summary string       `json:"summary,omitempty"`
	Turns   int          `json:"turns"`
	Usage   driver.Usage `json:"usage"`
	Error   *errorJSON   `json:"error,omitempty"`
}

// printRun prints the final text (or done's summary when the model ended
// without text); a failed run prints what it has and exits 1 with the error.
func (a *app) printRun(cmd *cobra.Command, res *agent.Result, err error) error {
	if res == nil {
		return &exitError{code: exitUsage, msg: "quiver: " + err.Error()}
	}
	if a.flags.json {
		j := runJSON{Text: res.Text, Done: res.Done, Summary: res.Summary, Turns: res.Turns, Usage: res.Usage}
		if err != nil {
			te := tool.AsError(err)
			j.Error = &errorJSON{Code: te.Code, Message: te.Message, Tool: te.Tool, Retriable: te.Retriable}
		}
		enc := json.NewEncoder(cmd.OutOrStdout())
		enc.SetIndent("", "  ")
		if werr := enc.Encode(j); werr != nil {
			return werr
		}
	} else if text := finalText(res); text != "" {
		fmt.Fprintln(cmd.OutOrStdout(), text)
	}
	if err != nil {
		return &exitError{code: exitTool, msg: "quiver: " + err.Error()}
	}
	return nil
}

func finalText(res *agent.Result) string {
	if res.Text == "" && res.Done {
		return res.Summary
	}
	return res.Text
}
