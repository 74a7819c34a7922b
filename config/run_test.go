package config

import (
	"errors"
	"testing"
)

// A [run] value quiver run could not use fails at load, at its key, with
// the check quiver run applies to its flags.
func TestRunCheckedAtLoad(t *testing.T) {
	tests := []struct {
		name, toml string
		wantErr    string // "" for none
		key        string
	}{
		{"run: the three providers load", "[run]\nprovider = \"gemini\"\nthinking_budget = 2048\n", "", ""},
		{"run: a misspelt provider", "[run]\nmodel = \"m\"\nprovider = \"opena\"\n",
			`quiver.toml:3:1: run.provider: "opena": want openai, anthropic or gemini`, "provider"},
		{"run: a negative max_output_tokens", "[run]\nmax_output_tokens = -5\n",
			"quiver.toml:2:1: run.max_output_tokens: -5: cannot be negative (0 is the provider's default)", "max_output_tokens"},
		{"run: a negative thinking_budget", "run.thinking_budget = -1\n",
			"quiver.toml:1:5: run.thinking_budget: -1: cannot be negative", "thinking_budget"},
		{"run: a base_url that is not a URL", "[run]\nbase_url = \"not a url\"\n",
			`quiver.toml:2:1: run.base_url: "not a url": want an http or https URL with a host (http://127.0.0.1:11434/v1)`, "base_url"},
		{"run: a base_url without a host", "[run]\nbase_url = \"http:///v1\"\n",
			`quiver.toml:2:1: run.base_url: "http:///v1": want an http or https URL with a host (http://127.0.0.1:11434/v1)`, "base_url"},
		{"run: a base_url of another scheme", "[run]\nbase_url = \"file:///etc/passwd\"\n",
			`quiver.toml:2:1: run.base_url: "file:///etc/passwd": want an http or https URL with a host (http://127.0.0.1:11434/v1)`, "base_url"},
		{"run: an unknown api", "[run]\napi = \"assistants\"\n", `quiver.toml:2:1: run.api: "assistants": want responses or chat`, "api"},
		{"run: an unknown reasoning_effort", "[run]\nreasoning_effort = \"max\"\n",
			`quiver.toml:2:1: run.reasoning_effort: "max": want low, medium or high`, "reasoning_effort"},
		{"run: a thinking budget for openai, which would drop it", "[run]\nprovider = \"openai\"\nthinking_budget = 2048\n",
			"quiver.toml:3:1: run.thinking_budget: openai takes no thinking budget (it is Anthropic's and Gemini's); use reasoning_effort", "thinking_budget"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("quiver.toml", []byte(tt.toml))
			if tt.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			var ce *Error
			var ke *RunKeyError
			if err == nil || err.Error() != tt.wantErr || !errors.As(err, &ce) || !errors.As(err, &ke) || ke.Key != tt.key {
				t.Errorf("got %v, want %q (key %s) as a config.Error", err, tt.wantErr, tt.key)
			}
		})
	}
}
