// Package providers builds a [driver.Model] from a [driver.Spec] on the
// official SDK of its provider: the one place that links all three SDKs
// (openai-go, anthropic-sdk-go, genai).
//
// It is a package of its own because linking the SDKs is what a process
// pays for at every start: their package initialisation (genai brings
// grpc, opencensus and Google Cloud's auth with it) cost the quiver
// command most of its start-up. The quiver command therefore does not
// import this package; the quiver-models program does, and serves the
// models it builds to quiver over a pipe (package driver/process). A Go
// host that wants its models in process imports it directly.
package providers

import (
	"context"
	"fmt"
	"os"
	"strings"

	anthropicsdk "github.com/anthropics/anthropic-sdk-go"
	anthropicopt "github.com/anthropics/anthropic-sdk-go/option"
	oai "github.com/openai/openai-go/v3"
	oaiopt "github.com/openai/openai-go/v3/option"
	"github.com/quiverkit/quiver/driver"
	"github.com/quiverkit/quiver/driver/anthropic"
	"github.com/quiverkit/quiver/driver/gemini"
	"github.com/quiverkit/quiver/driver/openai"
	"google.golang.org/genai"
)

// New builds the model s names on its SDK's client, with the API key from
// the environment ([driver.Spec.Key]). OpenAI's API is s.API when set, else
// [UsesResponses] decides.
func New(ctx context.Context, s driver.Spec) (driver.Model, error) {
	if err := s.Check(os.Getenv); err != nil {
		return nil, err
	}
	key := s.Key(os.Getenv)
	switch s.Provider {
	case "anthropic":
		opts := []anthropicopt.RequestOption{anthropicopt.WithAPIKey(key)}
		if s.BaseURL != "" {
			opts = append(opts, anthropicopt.WithBaseURL(s.BaseURL))
		}
		return anthropic.New(anthropicsdk.NewClient(opts...), s.Model), nil
	case "gemini":
		client, err := genai.NewClient(ctx, &genai.ClientConfig{APIKey: key, Backend: genai.BackendGeminiAPI,
			HTTPOptions: genai.HTTPOptions{BaseURL: s.BaseURL}})
		if err != nil {
			return nil, fmt.Errorf("gemini client: %w", err)
		}
		return gemini.New(client, s.Model), nil
	}
	opts := []oaiopt.RequestOption{oaiopt.WithAPIKey(key)}
	if s.BaseURL != "" {
		opts = append(opts, oaiopt.WithBaseURL(s.BaseURL))
	}
	if UsesResponses(s) {
		return openai.NewResponses(oai.NewClient(opts...), s.Model), nil
	}
	return openai.NewChat(oai.NewClient(opts...), s.Model), nil
}

// UsesResponses reports which of OpenAI's APIs a spec gets: the one asked
// for, else the Responses API for OpenAI's own reasoning models (only there
// does their reasoning carry from turn to turn), else Chat Completions,
// which every compatible server speaks.
func UsesResponses(s driver.Spec) bool {
	if s.API != "" {
		return s.API == "responses"
	}
	return s.BaseURL == "" && openai.IsReasoningModel(strings.ToLower(s.Model))
}
