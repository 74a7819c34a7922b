package providers

import (
	"context"
	"testing"

	"github.com/quiverkit/quiver/driver"
)

func TestUsesResponses(t *testing.T) {
	for _, tc := range []struct {
		spec driver.Spec
		want bool
	}{
		{driver.Spec{Provider: "openai", Model: "o3"}, true},
		{driver.Spec{Provider: "openai", Model: "GPT-5"}, true},
		{driver.Spec{Provider: "openai", Model: "gpt-4.1"}, false},
		{driver.Spec{Provider: "openai", Model: "o3", BaseURL: "http://127.0.0.1:1"}, false}, // compatible servers speak chat
		{driver.Spec{Provider: "openai", Model: "gpt-4.1", API: "responses"}, true},
		{driver.Spec{Provider: "openai", Model: "o3", API: "chat"}, false},
	} {
		if got := UsesResponses(tc.spec); got != tc.want {
			t.Errorf("UsesResponses(%+v) = %v, want %v", tc.spec, got, tc.want)
		}
	}
}

// TestNewChecksTheSpec: New refuses what Spec.Check refuses, before any
// client is built.
func TestNewChecksTheSpec(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "")
	if _, err := New(context.Background(), driver.Spec{Provider: "anthropic", Model: "c"}); err == nil {
		t.Fatal("New without a key: no error")
	}
	for _, p := range []string{"openai", "anthropic", "gemini"} {
		m, err := New(context.Background(), driver.Spec{Provider: p, Model: "m", BaseURL: "http://127.0.0.1:1/"})
		if err != nil || m == nil {
			t.Errorf("New(%s): %v, %v", p, m, err)
		}
	}
}
