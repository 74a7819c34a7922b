package main

import (
	"strings"
	"testing"
)

// quiver run checks its settings, flags and [run] keys alike, before the
// first request: a usage error (exit 2) naming the flag, or the key with
// its place in the file, and no request sent.
func TestRunChecksSettingsBeforeTheFirstRequest(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		toml  string // quiver.toml, trusted; "" for none
		flags []string
		want  []string
	}{
		{"a tool choice naming no tool", "", []string{"--tool-choice", "nosuchtool"},
			[]string{`--tool-choice: "nosuchtool" names no tool of the catalogue`}},
		{"a tool choice naming a denied tool", "[policy]\ndeny = [\"write_file\"]\n", []string{"--tool-choice", "write_file"},
			[]string{`--tool-choice: "write_file": the policy refuses every call of it`}},
		{"a tool choice from the file", "[run]\ntool_choice = \"red_file\"\n", nil,
			[]string{`[run] tool_choice: "red_file" names no tool`}},
		{"a thinking budget openai would drop", "", []string{"--thinking-budget", "2048"},
			[]string{"--thinking-budget: openai takes no thinking budget", "reasoning_effort"}},
		{"a thinking budget from the file, for the default provider", "[run]\nthinking_budget = 2048\n", nil,
			[]string{"[run] thinking_budget: openai takes no thinking budget"}},
		{"a base URL that is not a URL", "", []string{"--base-url", "not a url"},
			[]string{`--base-url: "not a url": want an http or https URL`}},
		{"a negative max output tokens", "", []string{"--max-output-tokens", "-5"},
			[]string{"--max-output-tokens: -5: cannot be negative"}},
		{"an unknown reasoning effort", "", []string{"--reasoning-effort", "max"},
			[]string{`--reasoning-effort: "max": want low, medium or high`}},
		{"a misspelt provider in the file", "[run]\nprovider = \"opena\"\n", nil,
			[]string{`quiver.toml:2:1: run.provider: "opena": want openai, anthropic or gemini`}},
		{"a negative max_output_tokens in the file", "[run]\nmax_output_tokens = -5\n", nil,
			[]string{"quiver.toml:2:1: run.max_output_tokens: -5: cannot be negative"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, requests := openAIScript(t, chatText("unused"))
			files := map[string]string{}
			if tt.toml != "" {
				files["quiver.toml"] = tt.toml
			}
			dir := workdir(t, files)
			args := []string{"run", "--model", "m"}
			if !strings.Contains(strings.Join(tt.flags, " "), "--base-url") {
				args = append(args, "--base-url", srv.URL)
			}
			r := runCLI(t, dir, "", append(append(args, tt.flags...), "task")...)
			if r.code != exitUsage {
				t.Errorf("exit %d, want %d; stderr %q", r.code, exitUsage, r.stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(r.stderr, w) {
					t.Errorf("stderr %q lacks %q", r.stderr, w)
				}
			}
			if n := len(requests()); n != 0 {
				t.Errorf("%d requests sent to the model", n)
			}
		})
	}
}

// A tool choice naming an offered tool goes to the API.
func TestRunToolChoiceOfAnOfferedTool(t *testing.T) {
	t.Parallel()
	srv, requests := openAIScript(t, chatText("Done."))
	dir := workdir(t, nil)
	r := runCLI(t, dir, "", "run", "--model", "m", "--base-url", srv.URL, "--tool-choice", "read_file", "task")
	if r.code != 0 {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	if reqs := requests(); len(reqs) != 1 || !strings.Contains(reqs[0], `"tool_choice":{"function":{"name":"read_file"},"type":"function"}`) {
		t.Errorf("requests %q: want one forcing read_file", reqs)
	}
}
