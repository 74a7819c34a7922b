package config

import (
	"fmt"
	"slices"
)

// Review is the [review] section: reviewer models vote on calls before they
// run (policy/approve.Quorum). Present, it is in force: with no reviewers
// listed, every call it covers is refused, never run unreviewed.
//
//	[review]
//	risk = ["high"]          # which calls the reviewers see (default: high)
//	rule = "majority"        # the only rule: a majority of the votes cast; a tie refuses
//
//	[[review.reviewers]]
//	provider = "openai"      # openai | anthropic | gemini
//	model = "gpt-4.1-mini"
//	base_url = "http://127.0.0.1:11434/v1"
//	api_key_env = "OPENAI_API_KEY"
type Review struct {
	Reviewers []Reviewer `toml:"reviewers"`
	// Risk lists the risk levels whose calls go to the reviewers when the
	// policy asks for approval; other calls go to the person (or are
	// refused when there is none). Default: high.
	Risk []RiskLevel `toml:"risk"`
	Rule ReviewRule  `toml:"rule"`
	// TimeoutSecs bounds each reviewer's answer (default 60).
	TimeoutSecs int `toml:"timeout"`
	// Instructions replace the reviewers' default system prompt.
	Instructions string `toml:"instructions"`
}

// Reviewer is one [[review.reviewers]] model.
type Reviewer struct {
	Provider ModelProvider `toml:"provider"`
	Model    string        `toml:"model"`
	BaseURL  string        `toml:"base_url"`
	API      string        `toml:"api"` // OpenAI: responses | chat
	// APIKeyEnv names the variable the key is read from; default the
	// provider's own (OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY).
	APIKeyEnv string `toml:"api_key_env"`
}

// ModelProvider is openai, anthropic or gemini, checked where it is written.
type ModelProvider struct{ Name string }

// UnmarshalText implements encoding.TextUnmarshaler.
func (m *ModelProvider) UnmarshalText(b []byte) error {
	switch s := string(b); s {
	case "openai", "anthropic", "gemini":
		m.Name = s
		return nil
	default:
		return fmt.Errorf("provider %q: want openai, anthropic or gemini", s)
	}
}

// ReviewRule is how votes decide. Only "majority" (of the votes cast, a tie
// refusing) is supported; it is the rule docs/design.md fixes for review.
type ReviewRule struct{ Name string }

// UnmarshalText implements encoding.TextUnmarshaler.
func (r *ReviewRule) UnmarshalText(b []byte) error {
	if string(b) != "majority" {
		return fmt.Errorf("rule %q: only \"majority\" (of the votes cast; a tie refuses) is supported", b)
	}
	r.Name = string(b)
	return nil
}

// Reviews reports whether calls of the risk level go to the reviewers.
func (r *Review) Reviews(risk string) bool {
	if len(r.Risk) == 0 {
		return risk == "high"
	}
	return slices.ContainsFunc(r.Risk, func(l RiskLevel) bool { return l.Level == risk })
}

// check validates what the decoder cannot see.
func (r *Review) check() error {
	for i, m := range r.Reviewers {
		switch {
		case m.Provider.Name == "":
			return fmt.Errorf("review.reviewers[%d]: provider is required", i)
		case m.Model == "":
			return fmt.Errorf("review.reviewers[%d]: model is required", i)
		case m.API != "" && m.API != "responses" && m.API != "chat":
			return fmt.Errorf("review.reviewers[%d]: api %q: want responses or chat", i, m.API)
		}
	}
	if r.TimeoutSecs < 0 {
		return fmt.Errorf("review.timeout cannot be negative")
	}
	return nil
}
