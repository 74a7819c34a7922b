package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/quiverkit/quiver/agent"
)

// quiver run sends the shared guidance as its system prompt; --system and
// [run] system replace it, --system-append and [run] system_append add to
// it, and an empty --system sends none.
func TestRunSystemPrompt(t *testing.T) {
	t.Parallel()
	guidance := strings.TrimSpace(agent.DefaultSystem)
	tests := []struct {
		name  string
		toml  string
		flags []string
		want  string // the system message; "" for none
	}{
		{"the default guidance", "", nil, guidance},
		{"--system replaces it", "", []string{"--system", "Be terse."}, "Be terse."},
		{"--system-append adds to it", "", []string{"--system-append", "Use British spelling."}, guidance + "\n\nUse British spelling."},
		{"--system and --system-append", "", []string{"--system", "Be terse.", "--system-append", "Use British spelling."}, "Be terse.\n\nUse British spelling."},
		{"--system '' sends none", "", []string{"--system", ""}, ""},
		{"[run] system replaces it", "[run]\nsystem = \"From the file.\"\n", nil, "From the file."},
		{"[run] system_append adds to it", "[run]\nsystem_append = \"Project rules.\"\n", nil, guidance + "\n\nProject rules."},
		{"--system over [run] system", "[run]\nsystem = \"From the file.\"\n", []string{"--system", "From the flag."}, "From the flag."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, requests := openAIScript(t, chatText("Done."))
			files := map[string]string{}
			if tt.toml != "" {
				files["quiver.toml"] = tt.toml
			}
			dir := workdir(t, files)
			args := append([]string{"run", "--model", "m", "--base-url", srv.URL}, tt.flags...)
			if r := runCLI(t, dir, "", append(args, "task")...); r.code != 0 {
				t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
			}
			reqs := requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests", len(reqs))
			}
			var req struct {
				Messages []struct {
					Role    string `json:"role"`
					Content string `json:"content"`
				} `json:"messages"`
			}
			if err := json.Unmarshal([]byte(reqs[0]), &req); err != nil {
				t.Fatal(err)
			}
			var system []string
			for _, m := range req.Messages {
				if m.Role == "system" || m.Role == "developer" {
					system = append(system, strings.TrimSpace(m.Content))
				}
			}
			want := []string{tt.want}
			if tt.want == "" {
				want = nil
			}
			if strings.Join(system, "|") != strings.Join(want, "|") || len(system) != len(want) {
				t.Errorf("system messages %q, want %q", system, want)
			}
		})
	}
}
