package config

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
)

// RunKeyError is a [run] setting that is wrong: its key (as quiver.toml
// writes it; `quiver run`'s flag is the same with dashes) and why.
type RunKeyError struct {
	Key string // provider, base_url, ...
	Msg string
}

func (e *RunKeyError) Error() string { return e.Key + ": " + e.Msg }

// Check reports the first [run] setting that `quiver run` could not use,
// as a *RunKeyError. It is the one check of those settings: Parse runs it
// on each file, at load, and `quiver run` on the file's values under its
// flags. A tool_choice naming a tool is checked against the catalogue by
// `quiver run`, which has one.
func (r Run) Check() error {
	oneOf := func(key, v string, want ...string) error {
		if v == "" || slices.Contains(want, v) {
			return nil
		}
		return &RunKeyError{Key: key, Msg: fmt.Sprintf("%q: want %s", v, orList(want))}
	}
	for _, err := range []error{
		oneOf("provider", r.Provider, "openai", "anthropic", "gemini"),
		oneOf("api", r.API, "responses", "chat"),
		oneOf("reasoning_effort", r.ReasoningEffort, "low", "medium", "high"),
		checkBaseURL(r.BaseURL),
	} {
		if err != nil {
			return err
		}
	}
	switch {
	case r.ThinkingBudget < 0:
		return &RunKeyError{Key: "thinking_budget", Msg: fmt.Sprintf("%d: cannot be negative", r.ThinkingBudget)}
	case r.MaxOutputTokens < 0:
		return &RunKeyError{Key: "max_output_tokens", Msg: fmt.Sprintf("%d: cannot be negative (0 is the provider's default)", r.MaxOutputTokens)}
	case r.ThinkingBudget > 0 && r.Provider == "openai":
		// Sent nowhere, it would be dropped without a word.
		return &RunKeyError{Key: "thinking_budget", Msg: "openai takes no thinking budget (it is Anthropic's and Gemini's); use reasoning_effort"}
	}
	return nil
}

// checkBaseURL accepts an absolute http or https URL with a host.
func checkBaseURL(s string) error {
	if s == "" {
		return nil
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return &RunKeyError{Key: "base_url", Msg: fmt.Sprintf("%q: want an http or https URL with a host (http://127.0.0.1:11434/v1)", s)}
	}
	return nil
}

func orList(want []string) string {
	last := len(want) - 1
	if last == 0 {
		return want[0]
	}
	s := ""
	for i, w := range want[:last] {
		if i > 0 {
			s += ", "
		}
		s += w
	}
	return s + " or " + want[last]
}

// checkRun runs Run.Check on a file's [run] section and places the error
// at the key the file writes.
func (c *Config) checkRun(name string, ws []written) error {
	var ke *RunKeyError
	if err := c.Run.Check(); !errors.As(err, &ke) {
		return err
	}
	at := Position{File: name}
	for _, w := range ws {
		if !w.Elem && len(w.Path) == 2 && w.Path[0] == "run" && w.Path[1] == ke.Key {
			at = w.At
		}
	}
	return &Error{Pos: at, Msg: "run." + ke.Error(), Err: ke}
}
