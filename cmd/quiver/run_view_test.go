package main

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/quiverkit/quiver/driver"
	"github.com/quiverkit/quiver/tools"
)

// TestRunViewSummarizesByTheToolsView: a call's line names the argument
// its tool's view says sums it up (tool.View.Summary); a tool that names
// none, such as an MCP server's, is summed up by a common argument, else
// shown as its JSON.
func TestRunViewSummarizesByTheToolsView(t *testing.T) {
	summaries := map[string][]string{}
	for _, tl := range tools.All() {
		summaries[tl.Name] = tl.View.Summary
	}
	cases := []struct{ name, args, want string }{
		{"read_file", `{"path":"src/a.go","offset":3}`, "⏺ read_file(src/a.go)\n"},
		{"exec_command", `{"command":"go test ./...","workdir":"sub"}`, "⏺ exec_command(go test ./...)\n"},
		{"exec_command", `{"argv":["go","vet"]}`, "⏺ exec_command(go vet)\n"},
		{"grep_search", `{"path":"","pattern":"TODO"}`, "⏺ grep_search(TODO)\n"},
		{"exec_output", `{"job_id":"j1","wait_secs":2}`, "⏺ exec_output(j1)\n"},
		{"done", `{"summary":"Fixed it."}`, "⏺ done(Fixed it.)\n"},
		{"tool_output_cache_grep", `{"ref_id":"r1","pattern":"panic"}`, "⏺ tool_output_cache_grep(panic)\n"},
		{"apply_patch", `{"patch":"x"}`, `⏺ apply_patch({"patch":"x"})` + "\n"},
		{"github__get_file", `{"path":"README.md","ref":"main"}`, "⏺ github__get_file(README.md)\n"},
		{"github__get_job", `{"job_id":"7"}`, `⏺ github__get_job({"job_id":"7"})` + "\n"},
		{"github__list", `{}`, "⏺ github__list()\n"},
	}
	for _, c := range cases {
		var out, errw bytes.Buffer
		v := newRunView(&out, &errw, false, false, false)
		v.summaryArgs = func(name string) []string { return summaries[name] }
		v.event(driver.Event{Type: driver.EventToolCallDone, ToolCall: driver.ToolCall{Name: c.name, Arguments: json.RawMessage(c.args)}})
		if errw.String() != c.want {
			t.Errorf("%s %s: shown %q, want %q", c.name, c.args, errw.String(), c.want)
		}
	}
}
