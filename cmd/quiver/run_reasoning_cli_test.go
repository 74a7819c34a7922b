package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/quiverkit/quiver/driver/drivertest"
)

// providerArgs are the `quiver run` flags that drive each loopback API, with
// thinking on.
var providerArgs = map[drivertest.Provider][]string{
	drivertest.Anthropic: {"--provider", "anthropic", "--model", "claude-sonnet-4-6", "--thinking-budget", "2048"},
	drivertest.Responses: {"--provider", "openai", "--api", "responses", "--model", "gpt-5.1-codex-max", "--reasoning-effort", "high"},
	drivertest.DeepSeek:  {"--provider", "openai", "--api", "chat", "--model", "deepseek-v4-flash", "--reasoning-effort", "high"},
	drivertest.Gemini:    {"--provider", "gemini", "--model", "gemini-3-pro-preview", "--thinking-budget", "2048"},
}

// thinkingShown is a piece of each first turn's thinking, as it streams.
var thinkingShown = map[drivertest.Provider]string{
	drivertest.Anthropic: "I will read the file first",
	drivertest.Responses: "Calculating step-by-step",
	drivertest.DeepSeek:  "I should read the file",
	drivertest.Gemini:    "Reading the list",
}

func runArgs(p drivertest.Provider, srv *drivertest.Server, extra ...string) []string {
	args := append([]string{"run", "--base-url", srv.URL}, providerArgs[p]...)
	return append(args, extra...)
}

// withoutThinking drops the thinking flags from args: Anthropic refuses a
// forced tool choice with thinking on, and its budget must fit in the reply.
func withoutThinking(args []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		if args[i] == "--thinking-budget" || args[i] == "--reasoning-effort" {
			i++
			continue
		}
		out = append(out, args[i])
	}
	return out
}

// Through `quiver run`, each provider's second request passes the API's
// reasoning rule; the thinking streams dimmed on stderr (plain here: not a
// terminal) unless --quiet-thinking; each call shows as it starts and ends.
func TestRunCarriesReasoningAcrossToolTurns(t *testing.T) {
	for _, p := range drivertest.Providers {
		for _, quiet := range []bool{false, true} {
			name := string(p)
			if quiet {
				name += "/quiet-thinking"
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				srv := drivertest.New(t, p, drivertest.Call{Name: "read_file", Arguments: `{"path":"todo.txt"}`}, "The list has one item: ship it.")
				dir := workdir(t, map[string]string{"todo.txt": "ship it\n"})
				extra := []string{"What is on the list?"}
				if quiet {
					extra = append([]string{"--quiet-thinking"}, extra...)
				}
				r := runCLI(t, dir, "", runArgs(p, srv, extra...)...)
				if r.code != 0 || r.stdout != "The list has one item: ship it.\n" {
					t.Fatalf("exit %d, stdout %q, stderr %q, refused %q", r.code, r.stdout, r.stderr, srv.Refused())
				}
				for _, want := range []string{"⏺ read_file(todo.txt)\n", "  ⎿  ok · "} {
					if !strings.Contains(r.stderr, want) {
						t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
					}
				}
				if shown := strings.Contains(r.stderr, thinkingShown[p]); shown == quiet {
					t.Errorf("thinking shown: %v with --quiet-thinking %v:\n%s", shown, quiet, r.stderr)
				}
			})
		}
	}
}

// --json prints one event per line: the thinking, the call, its result, the
// text, and the result last.
func TestRunJSONEvents(t *testing.T) {
	srv := drivertest.New(t, drivertest.Anthropic, drivertest.Call{Name: "read_file", Arguments: `{"path":"todo.txt"}`}, "One item.")
	dir := workdir(t, map[string]string{"todo.txt": "ship it\n"})
	r := runCLI(t, dir, "", runArgs(drivertest.Anthropic, srv, "--json", "What is on the list?")...)
	if r.code != 0 {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	var types []string
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	for _, line := range lines {
		var ev runEvent
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		if len(types) == 0 || types[len(types)-1] != ev.Type {
			types = append(types, ev.Type)
		}
	}
	var last runResult
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil {
		t.Fatal(err)
	}
	want := []string{"thinking", "tool_call", "tool_result", "text", "result"}
	if strings.Join(types, ",") != strings.Join(want, ",") {
		t.Errorf("event types %v, want %v", types, want)
	}
	if last.Text != "One item." || last.Turns != 2 || last.Incomplete || last.Usage.ReasoningTokens != 18 {
		t.Errorf("result %+v", last)
	}
}

// A reply cut off by the output limit is reported as incomplete, with exit
// status 3 and the flag that raises the limit, for every provider; the
// limit asked for is the one sent.
func TestRunReportsACutOffReply(t *testing.T) {
	sent := map[drivertest.Provider]string{
		drivertest.Anthropic: `"max_tokens":77`,
		drivertest.Responses: `"max_output_tokens":77`,
		drivertest.DeepSeek:  `"max_completion_tokens":77`,
		drivertest.Gemini:    `"maxOutputTokens":77`,
	}
	for _, p := range drivertest.Providers {
		t.Run(string(p), func(t *testing.T) {
			t.Parallel()
			srv := drivertest.CutOff(t, p, "The list has one item, and the item is")
			dir := workdir(t, nil)
			args := runArgs(p, srv, "--max-output-tokens", "77", "What is on the list?")
			if p == drivertest.Anthropic {
				args = withoutThinking(args)
			}
			r := runCLI(t, dir, "", args...)
			if r.code != exitIncomplete || !strings.Contains(r.stderr, "incomplete") || !strings.Contains(r.stderr, "--max-output-tokens") {
				t.Fatalf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
			}
			if !strings.Contains(srv.Requests()[0], sent[p]) {
				t.Errorf("request lacks %s", sent[p])
			}
		})
	}
}

// tool_choice and parallel_tool_calls are sent as the flags say, and as
// quiver.toml's [run] says when no flag does.
func TestRunSendsToolChoiceAndParallel(t *testing.T) {
	want := map[drivertest.Provider][]string{
		drivertest.Anthropic: {`"tool_choice":{"disable_parallel_tool_use":true,"type":"any"}`, `"tool_choice":{"name":"read_file","disable_parallel_tool_use":true,"type":"tool"}`},
		drivertest.Responses: {`"parallel_tool_calls":false`, `"tool_choice":"required"`, `"tool_choice":{"name":"read_file","type":"function"}`},
		drivertest.DeepSeek:  {`"parallel_tool_calls":false`, `"tool_choice":"required"`, `"tool_choice":{"function":{"name":"read_file"},"type":"function"}`},
		drivertest.Gemini:    {`"mode":"ANY"`, `"allowedFunctionNames":["read_file"]`},
	}
	for _, p := range drivertest.Providers {
		t.Run(string(p), func(t *testing.T) {
			t.Parallel()
			srv := drivertest.CutOff(t, p, "cut")
			flags := runArgs(p, srv, "--tool-choice", "required", "--parallel-tool-calls=false", "task")
			fromFile := runArgs(p, srv, "task")
			if p == drivertest.Anthropic {
				flags, fromFile = withoutThinking(flags), withoutThinking(fromFile)
			}
			runCLI(t, workdir(t, nil), "", flags...)
			dir := workdir(t, map[string]string{"quiver.toml": "[run]\ntool_choice = \"read_file\"\nparallel_tool_calls = false\n"})
			runCLI(t, dir, "", fromFile...)
			reqs := strings.Join(srv.Requests(), "\n")
			for _, w := range want[p] {
				if !strings.Contains(reqs, w) {
					t.Errorf("requests lack %s:\n%s", w, toolChoices(reqs))
				}
			}
		})
	}
}

// toolChoices picks the tool_choice parts of requests, for failure messages.
func toolChoices(reqs string) string {
	var out []string
	for _, key := range []string{`"tool_choice":`, `"toolConfig":`, `"parallel_tool_calls":`} {
		for rest := reqs; ; {
			i := strings.Index(rest, key)
			if i < 0 {
				break
			}
			out = append(out, rest[i:min(len(rest), i+90)])
			rest = rest[i+len(key):]
		}
	}
	return strings.Join(out, "\n")
}
