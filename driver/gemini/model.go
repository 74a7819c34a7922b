package gemini

import (
	"context"
	"fmt"
	"iter"
	"strings"

	"github.com/quiverkit/quiver/driver"
	"google.golang.org/genai"
)

// Option configures a [Model].
type Option func(*Model)

// WithConfig sets the config every request starts from: temperature,
// thinking, safety settings, and HTTPOptions — where the SDK's own retry
// settings live (HTTPOptions.RetryOptions). The driver fills in the system
// instruction, tools, tool config and token cap on a copy.
func WithConfig(cfg genai.GenerateContentConfig) Option {
	return func(m *Model) { m.base = cfg }
}

// WithJSONSchema sends tool parameters as parametersJsonSchema, the
// canonical schema unconverted, rather than as Gemini's Schema (see
// [ToolsJSONSchema]).
func WithJSONSchema() Option { return func(m *Model) { m.jsonSchema = true } }

// Model is a [driver.Model] on the Gemini API or Vertex AI, whichever the
// client was made for.
type Model struct {
	client     *genai.Client
	model      string
	base       genai.GenerateContentConfig
	jsonSchema bool
}

// New returns a Model on client for the named model.
func New(client *genai.Client, model string, opts ...Option) *Model {
	m := &Model{client: client, model: model}
	for _, o := range opts {
		o(m)
	}
	return m
}

func (m *Model) request(req driver.Request) ([]*genai.Content, *genai.GenerateContentConfig, error) {
	system, contents, err := Contents(req.Messages)
	if err != nil {
		return nil, nil, fmt.Errorf("gemini: %w", err)
	}
	cfg := m.base
	cfg.SystemInstruction = system
	if m.jsonSchema {
		cfg.Tools, err = ToolsJSONSchema(req.Tools)
	} else {
		cfg.Tools, err = Tools(req.Tools)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("gemini: %w", err)
	}
	if len(req.Tools) > 0 {
		cfg.ToolConfig = ToolConfig(req.ToolChoice)
	}
	if req.MaxTokens > 0 {
		cfg.MaxOutputTokens = int32(req.MaxTokens)
	}
	cfg.ThinkingConfig = thinkingConfig(cfg.ThinkingConfig, req.Reasoning)
	return contents, &cfg, nil
}

// thinkingConfig applies the request's reasoning settings over the base
// config's: a budget is thinkingBudget, an effort is thinkingLevel, and
// either asks for the thoughts, so that they can be shown.
func thinkingConfig(base *genai.ThinkingConfig, r driver.ReasoningConfig) *genai.ThinkingConfig {
	if r.BudgetTokens == 0 && r.Effort == "" {
		return base
	}
	tc := genai.ThinkingConfig{}
	if base != nil {
		tc = *base
	}
	tc.IncludeThoughts = true
	if r.BudgetTokens > 0 {
		b := int32(r.BudgetTokens)
		tc.ThinkingBudget = &b
	}
	if r.Effort != "" {
		tc.ThinkingLevel = genai.ThinkingLevel(strings.ToUpper(r.Effort))
	}
	return &tc
}

// Generate implements [driver.Model].
func (m *Model) Generate(ctx context.Context, req driver.Request) (*driver.Response, error) {
	contents, cfg, err := m.request(req)
	if err != nil {
		return nil, err
	}
	resp, err := m.client.Models.GenerateContent(ctx, m.model, contents, cfg)
	if err != nil {
		return nil, fmt.Errorf("gemini: %w", err)
	}
	return Response(resp)
}

// Stream implements [driver.Model]. The request's HTTP error (after the
// SDK's retries) is returned at once.
func (m *Model) Stream(ctx context.Context, req driver.Request) (driver.Stream, error) {
	contents, cfg, err := m.request(req)
	if err != nil {
		return nil, err
	}
	next, stop := iter.Pull2(m.client.Models.GenerateContentStream(ctx, m.model, contents, cfg))
	first, err, ok := next()
	if ok && err != nil {
		stop()
		return nil, fmt.Errorf("gemini: %w", err)
	}
	var acc Accumulator
	pending := ok
	pull := func(emit func(driver.Event)) (bool, error) {
		chunk, err, ok := first, error(nil), pending
		if pending {
			pending = false
		} else {
			chunk, err, ok = next()
		}
		switch {
		case ok && err != nil:
			return true, fmt.Errorf("gemini stream: %w", err)
		case ok:
			if err := acc.Add(chunk, emit); err != nil {
				return true, fmt.Errorf("gemini stream: %w", err)
			}
			return false, nil
		}
		resp, err := acc.Response()
		if resp != nil {
			emit(driver.Event{Type: driver.EventDone, Response: resp})
		}
		if err != nil && !driver.IsCallError(err) {
			err = fmt.Errorf("gemini stream: %w", err)
		}
		return true, err
	}
	return driver.NewStream(pull, func() error { stop(); return nil }), nil
}
