package driver

import (
	"errors"
	"fmt"
	"slices"
)

// Spec names a model and how to reach it, as `quiver run` and [review]
// reviewers are configured. It is data only: building a [Model] from it
// needs the provider's SDK, which driver/providers links (and
// driver/process runs in a process of its own, so that a program that only
// calls tools does not link the SDKs).
type Spec struct {
	Provider string `json:"provider"`           // openai, anthropic or gemini
	Model    string `json:"model"`              // the provider's name for the model
	BaseURL  string `json:"base_url,omitempty"` // another server speaking the provider's API (Ollama, vLLM)
	API      string `json:"api,omitempty"`      // OpenAI's API: responses or chat; "" picks (see driver/providers)
	// KeyEnv, when set, is the one environment variable the API key is
	// read from, instead of the provider's own ([Spec.KeyEnvs]).
	KeyEnv string `json:"key_env,omitempty"`
}

// apiKeyEnv names the environment variables each provider's key is read
// from, the ones its own SDK and CLI use.
var apiKeyEnv = map[string][]string{
	"openai":    {"OPENAI_API_KEY"},
	"anthropic": {"ANTHROPIC_API_KEY"},
	"gemini":    {"GEMINI_API_KEY", "GOOGLE_API_KEY"},
}

// KeyEnvs returns the environment variables the API key is read from, in
// order: KeyEnv alone when set, else the provider's own.
func (s Spec) KeyEnvs() []string {
	if s.KeyEnv != "" {
		return []string{s.KeyEnv}
	}
	return slices.Clone(apiKeyEnv[s.Provider])
}

// Key returns the API key: the first of [Spec.KeyEnvs] that getenv finds
// set; "none" for a server given by BaseURL that needs no key (it still
// gets a well-formed header, and the SDK a key).
func (s Spec) Key(getenv func(string) string) string {
	for _, e := range s.KeyEnvs() {
		if k := getenv(e); k != "" {
			return k
		}
	}
	if s.BaseURL != "" {
		return "none"
	}
	return ""
}

// Check reports what is wrong with s before anything is started: an
// unknown provider, no model, an unknown API, no key where one is needed.
// Its messages name the flags of `quiver run`, which the quiver.toml keys
// mirror.
func (s Spec) Check(getenv func(string) string) error {
	if _, ok := apiKeyEnv[s.Provider]; !ok {
		return fmt.Errorf("--provider %q: want openai, anthropic or gemini", s.Provider)
	}
	if s.Model == "" {
		return fmt.Errorf("--model is required (the %s model to run)", s.Provider)
	}
	if s.API != "" && s.API != "responses" && s.API != "chat" {
		return fmt.Errorf("--api %q: want responses or chat", s.API)
	}
	if s.Key(getenv) == "" {
		return errors.New("no API key: set " + s.KeyEnvs()[0] + " (or --base-url for a server that needs none)")
	}
	return nil
}
