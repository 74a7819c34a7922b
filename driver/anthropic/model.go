package anthropic

import (
	"context"
	"fmt"
	"slices"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"
	"github.com/quiverkit/quiver/driver"
	"github.com/quiverkit/quiver/telemetry"
)

// Option configures a [Model].
type Option func(*Model)

// WithRequestOptions adds SDK request options to every request the model
// sends: option.WithMaxRetries, option.WithRequestTimeout, option.WithHeader
// and the rest. The client's own options apply first.
func WithRequestOptions(opts ...option.RequestOption) Option {
	return func(m *Model) { m.requestOptions = append(m.requestOptions, opts...) }
}

// WithParams lets the caller set what the driver leaves alone (thinking,
// temperature, metadata, cache control...) on every request, after the
// driver has filled in its part.
func WithParams(adjust func(*sdk.MessageNewParams)) Option {
	return func(m *Model) { m.adjust = append(m.adjust, adjust) }
}

// Model is a [driver.Model] on Anthropic's Messages API.
type Model struct {
	client         sdk.Client
	model          string
	requestOptions []option.RequestOption
	adjust         []func(*sdk.MessageNewParams)
}

// New returns a Model on client for the named model.
func New(client sdk.Client, model string, opts ...Option) *Model {
	m := &Model{client: client, model: model}
	for _, o := range opts {
		o(m)
	}
	return m
}

func (m *Model) params(req driver.Request) (sdk.MessageNewParams, error) {
	p, err := Params(m.model, req)
	if err != nil {
		return p, fmt.Errorf("anthropic: %w", err)
	}
	for _, a := range m.adjust {
		a(&p)
	}
	return p, nil
}

// options are the request options of one request. The SDK records every
// request as a chat span of its own, through OpenTelemetry's global tracer
// provider; when the agent loop's chat span already records this one
// (telemetry.ModelCallTraced), the SDK's is turned off, so that a host that
// registered a global provider does not count the call twice.
func (m *Model) options(ctx context.Context) []option.RequestOption {
	if !telemetry.ModelCallTraced(ctx) {
		return m.requestOptions
	}
	return append(slices.Clip(m.requestOptions), option.WithoutOpenTelemetry())
}

// Generate implements [driver.Model].
func (m *Model) Generate(ctx context.Context, req driver.Request) (*driver.Response, error) {
	p, err := m.params(req)
	if err != nil {
		return nil, err
	}
	msg, err := m.client.Messages.New(ctx, p, m.options(ctx)...)
	if err != nil {
		return nil, fmt.Errorf("anthropic: %w", err)
	}
	return Response(msg)
}

// Stream implements [driver.Model]. The request's HTTP error (after the
// SDK's retries) is returned at once.
func (m *Model) Stream(ctx context.Context, req driver.Request) (driver.Stream, error) {
	p, err := m.params(req)
	if err != nil {
		return nil, err
	}
	s := m.client.Messages.NewStreaming(ctx, p, m.options(ctx)...)
	if err := s.Err(); err != nil {
		return nil, fmt.Errorf("anthropic: %w", err)
	}
	var acc Accumulator
	pull := func(emit func(driver.Event)) (bool, error) {
		if s.Next() {
			cur := s.Current()
			if err := acc.Add(&cur, emit); err != nil {
				return true, fmt.Errorf("anthropic stream: %w", err)
			}
			return false, nil
		}
		if err := s.Err(); err != nil {
			return true, fmt.Errorf("anthropic stream: %w", err)
		}
		resp, err := acc.Response()
		if resp != nil {
			emit(driver.Event{Type: driver.EventDone, Response: resp})
		}
		if err != nil && !driver.IsCallError(err) {
			err = fmt.Errorf("anthropic stream: %w", err)
		}
		return true, err
	}
	return driver.NewStream(pull, s.Close), nil
}
