package openai

import (
	"context"
	"errors"
	"fmt"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/packages/ssestream"
	"github.com/openai/openai-go/v3/responses"
	"github.com/quiverkit/quiver/driver"
)

// Option configures a [Chat] or [Responses] model.
type Option func(*config)

type config struct {
	requestOptions []option.RequestOption
	noStreamUsage  bool
	chatParams     []func(*oai.ChatCompletionNewParams)
	responseParams []func(*responses.ResponseNewParams)
}

// WithRequestOptions adds SDK request options to every request the model
// sends: option.WithMaxRetries, option.WithRequestTimeout, option.WithHeader
// and the rest. The client's own options apply first.
func WithRequestOptions(opts ...option.RequestOption) Option {
	return func(c *config) { c.requestOptions = append(c.requestOptions, opts...) }
}

// WithChatParams lets the caller set what the driver leaves alone
// (temperature, reasoning effort, metadata, service tier...) on every Chat
// request, after the driver has filled in its part.
func WithChatParams(adjust func(*oai.ChatCompletionNewParams)) Option {
	return func(c *config) { c.chatParams = append(c.chatParams, adjust) }
}

// WithResponsesParams is [WithChatParams] for the Responses API (reasoning,
// store, previous_response_id, include...).
func WithResponsesParams(adjust func(*responses.ResponseNewParams)) Option {
	return func(c *config) { c.responseParams = append(c.responseParams, adjust) }
}

// WithoutStreamUsage stops Chat streams from asking for the final usage chunk
// (stream_options.include_usage), for the rare compatible server that
// rejects the option.
func WithoutStreamUsage() Option { return func(c *config) { c.noStreamUsage = true } }

// Chat is a [driver.Model] on the Chat Completions API of OpenAI or of any
// OpenAI-compatible server the client points at.
type Chat struct {
	client oai.Client
	model  string
	cfg    config
}

// NewChat returns a Chat model on client for the named model.
func NewChat(client oai.Client, model string, opts ...Option) *Chat {
	m := &Chat{client: client, model: model}
	for _, o := range opts {
		o(&m.cfg)
	}
	return m
}

func (m *Chat) params(req driver.Request) (oai.ChatCompletionNewParams, error) {
	p, err := ChatParams(m.model, req)
	if err != nil {
		return p, fmt.Errorf("openai chat: %w", err)
	}
	for _, adjust := range m.cfg.chatParams {
		adjust(&p)
	}
	return p, nil
}

// Generate implements [driver.Model].
func (m *Chat) Generate(ctx context.Context, req driver.Request) (*driver.Response, error) {
	p, err := m.params(req)
	if err != nil {
		return nil, err
	}
	c, err := m.client.Chat.Completions.New(ctx, p, m.cfg.requestOptions...)
	if err != nil {
		return nil, wrap("openai chat", err)
	}
	return ChatResponse(c)
}

// Stream implements [driver.Model].
func (m *Chat) Stream(ctx context.Context, req driver.Request) (driver.Stream, error) {
	p, err := m.params(req)
	if err != nil {
		return nil, err
	}
	if !m.cfg.noStreamUsage {
		p.StreamOptions = oai.ChatCompletionStreamOptionsParam{IncludeUsage: param.NewOpt(true)}
	}
	s := m.client.Chat.Completions.NewStreaming(ctx, p, m.cfg.requestOptions...)
	var acc ChatAccumulator
	return stream(s, "openai chat", acc.Add, acc.Response)
}

// Responses is a [driver.Model] on OpenAI's Responses API. It is stateless:
// every request carries the whole conversation as input items.
type Responses struct {
	client oai.Client
	model  string
	cfg    config
}

// NewResponses returns a Responses model on client for the named model.
func NewResponses(client oai.Client, model string, opts ...Option) *Responses {
	m := &Responses{client: client, model: model}
	for _, o := range opts {
		o(&m.cfg)
	}
	return m
}

func (m *Responses) params(req driver.Request) (responses.ResponseNewParams, error) {
	p, err := ResponsesParams(m.model, req)
	if err != nil {
		return p, fmt.Errorf("openai responses: %w", err)
	}
	for _, adjust := range m.cfg.responseParams {
		adjust(&p)
	}
	return p, nil
}

// Generate implements [driver.Model].
func (m *Responses) Generate(ctx context.Context, req driver.Request) (*driver.Response, error) {
	p, err := m.params(req)
	if err != nil {
		return nil, err
	}
	r, err := m.client.Responses.New(ctx, p, m.cfg.requestOptions...)
	if err != nil {
		return nil, wrap("openai responses", err)
	}
	return ResponsesResponse(r)
}

// Stream implements [driver.Model].
func (m *Responses) Stream(ctx context.Context, req driver.Request) (driver.Stream, error) {
	p, err := m.params(req)
	if err != nil {
		return nil, err
	}
	s := m.client.Responses.NewStreaming(ctx, p, m.cfg.requestOptions...)
	var acc ResponsesAccumulator
	return stream(s, "openai responses", acc.Add, acc.Response)
}

// stream adapts an SDK stream and an accumulator to a driver.Stream. The
// request's HTTP error (after the SDK's retries) is returned at once.
func stream[T any](s *ssestream.Stream[T], what string, add func(*T, func(driver.Event)) error, final func() (*driver.Response, error)) (driver.Stream, error) {
	if err := s.Err(); err != nil {
		s.Close()
		return nil, wrap(what, err)
	}
	pull := func(emit func(driver.Event)) (bool, error) {
		if s.Next() {
			cur := s.Current()
			if err := add(&cur, emit); err != nil {
				return true, fmt.Errorf("%s: %w", what, err)
			}
			return false, nil
		}
		if err := s.Err(); err != nil {
			return true, wrap(what+" stream", err)
		}
		resp, err := final()
		if resp != nil {
			emit(driver.Event{Type: driver.EventDone, Response: resp})
		}
		if err != nil && !driver.IsCallError(err) {
			err = fmt.Errorf("%s: %w", what, err)
		}
		return true, err
	}
	return driver.NewStream(pull, s.Close), nil
}

// wrap adds the API's own explanation to an SDK error, whose message gives
// only the HTTP status; the *oai.Error stays reachable with errors.As.
func wrap(what string, err error) error {
	var apiErr *oai.Error
	if errors.As(err, &apiErr) && apiErr.Message != "" {
		kind := apiErr.Type
		if apiErr.Code != "" {
			kind = apiErr.Code
		}
		return fmt.Errorf("%s: %w (%s: %s)", what, err, kind, apiErr.Message)
	}
	return fmt.Errorf("%s: %w", what, err)
}
