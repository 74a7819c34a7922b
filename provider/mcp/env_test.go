//go:build unix

package mcp

import (
	"encoding/json"
	"testing"
)

// TestPeerEverythingEnvironment: a stdio server gets the minimal
// environment and what its config's env names, never the rest of Quiver's
// environment (the model providers' API keys, serve's --token-env token).
// The real server-everything reports its environment (get-env).
func TestPeerEverythingEnvironment(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-host-secret")
	t.Setenv("QUIVER_SERVE_TOKEN", "serve-token-secret")
	t.Setenv("GITHUB_TOKEN", "named-by-the-config")
	cfg := everything(t)
	cfg.Env = map[string]string{"GITHUB_TOKEN": "${GITHUB_TOKEN}", "SERVER_MODE": "literal"}
	tk := toolkit(t, newProvider(t, cfg))
	out, err := tk.Invoke(t.Context(), "everything__get-env", json.RawMessage(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	var env map[string]string
	if err := json.Unmarshal([]byte(out.Content.String()), &env); err != nil {
		t.Fatalf("get-env: %v\n%s", err, out.Content.String())
	}
	tests := []struct {
		name, variable, want string // want "" for absent
	}{
		{"env: a model provider's API key in the host stays out", "OPENAI_API_KEY", ""},
		{"env: the token of serve --token-env stays out", "QUIVER_SERVE_TOKEN", ""},
		{"env: a host variable the config names with ${} comes in", "GITHUB_TOKEN", "named-by-the-config"},
		{"env: a literal config value comes in", "SERVER_MODE", "literal"},
		{"env: the nesting depth is counted", depthVar, "1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := env[tt.variable]
			if tt.want == "" && ok || tt.want != "" && got != tt.want {
				t.Errorf("%s = %q (set %v), want %q", tt.variable, got, ok, tt.want)
			}
		})
	}
	if env["PATH"] == "" || env["HOME"] == "" {
		t.Errorf("PATH %q, HOME %q: the minimal environment is missing", env["PATH"], env["HOME"])
	}
}
