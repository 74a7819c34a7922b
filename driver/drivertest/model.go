package drivertest

import (
	"context"
	"testing"

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

// ModelName is the model each provider's Server plays.
var ModelName = map[Provider]string{
	Anthropic: "claude-sonnet-4-6",
	Responses: "gpt-5.1-codex-max",
	DeepSeek:  "deepseek-v4-flash",
	Gemini:    "gemini-3-pro-preview",
}

// Model returns the driver for s's provider, on the official SDK client
// pointed at s, with retries off so that a refusal is seen once.
func (s *Server) Model(t testing.TB) driver.Model {
	t.Helper()
	name := ModelName[s.provider]
	switch s.provider {
	case Anthropic:
		return anthropic.New(anthropicsdk.NewClient(anthropicopt.WithBaseURL(s.URL), anthropicopt.WithAPIKey("test"), anthropicopt.WithMaxRetries(0)), name)
	case Responses:
		return openai.NewResponses(oai.NewClient(oaiopt.WithBaseURL(s.URL), oaiopt.WithAPIKey("test"), oaiopt.WithMaxRetries(0)), name)
	case DeepSeek:
		return openai.NewChat(oai.NewClient(oaiopt.WithBaseURL(s.URL), oaiopt.WithAPIKey("test"), oaiopt.WithMaxRetries(0)), name)
	}
	client, err := genai.NewClient(context.Background(), &genai.ClientConfig{APIKey: "test", Backend: genai.BackendGeminiAPI,
		HTTPOptions: genai.HTTPOptions{BaseURL: s.URL}})
	if err != nil {
		t.Fatal(err)
	}
	return gemini.New(client, name)
}
