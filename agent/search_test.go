package agent_test

import (
	"context"
	"strings"
	"testing"

	"github.com/quiverkit/quiver/agent"
	"github.com/quiverkit/quiver/driver"
	"github.com/quiverkit/quiver/driver/drivertest"
	"github.com/quiverkit/quiver/tools"
)

// A deferred tool is found by search, loaded and called, over each API's
// own deferral: Anthropic's tool search tool, an OpenAI Responses namespace
// with a client tool_search (answered by the loop), and Quiver's tool_search
// on Chat Completions and Gemini. Each loopback refuses a request that does not carry
// the search as its API requires; the run must get through, streaming and
// not.
func TestDeferredToolFoundLoadedAndCalled(t *testing.T) {
	for _, p := range []drivertest.Provider{drivertest.Anthropic, drivertest.Responses, drivertest.DeepSeek, drivertest.Gemini} {
		for _, stream := range []bool{false, true} {
			name := string(p)
			if stream {
				name += "/stream"
			}
			t.Run(name, func(t *testing.T) {
				srv := drivertest.ToolSearch(t, p, drivertest.Call{Name: "list_files", Arguments: `{}`}, "files of a directory", "One file: notes.txt.")
				cfg := agent.Config{Model: srv.Model(t), Toolkit: newToolkit(t, map[string]string{"notes.txt": "n\n"}),
					Defer: &driver.Deferral{Core: tools.Core}}
				if stream {
					cfg.OnEvent = func(driver.Event) {}
				}
				res, err := agent.Run(context.Background(), cfg, "Which files are there?")
				if err != nil {
					t.Fatalf("run: %v\nrefused: %v\nlast request: %.900s", err, srv.Refused(), lastMessages(srv.Requests()))
				}
				if res.Text != "One file: notes.txt." {
					t.Errorf("answer %q", res.Text)
				}
				if r := srv.Refused(); len(r) > 0 {
					t.Errorf("refused: %v", r)
				}
				ran := false
				for _, m := range res.Messages {
					for _, r := range m.ToolResults {
						if r.Name == "list_files" && !r.IsError && strings.Contains(r.Text(), "notes.txt") {
							ran = true
						}
					}
				}
				if !ran {
					t.Errorf("list_files never ran: %+v", res.Messages)
				}
			})
		}
	}
}

// TestQuiverToolSearch: Quiver's own search answers with the definitions of
// what matches, shows them from the next turn, and says what exists when
// nothing matches.
func TestQuiverToolSearch(t *testing.T) {
	defs := (&driver.Deferral{Core: tools.Core}).Mark(driver.Definitions(tools.All(), false), nil)
	found := driver.SearchTools(defs, "fetch a web page", 0)
	if len(found) == 0 || found[0].Name != "web_fetch" {
		t.Fatalf("search for a web page found %v", names(found))
	}
	if got := driver.SearchTools(defs, "list_dirs", 1); len(got) != 1 || got[0].Name != "list_dirs" {
		t.Errorf("a search by name found %v", names(got))
	}
	for _, d := range driver.SearchTools(defs, "read_file", 0) {
		if d.Name == "read_file" {
			t.Errorf("a tool shown up front was found again")
		}
	}
	up := driver.UpFront(defs)
	last := up[len(up)-1]
	if last.Name != driver.ToolSearchName || !strings.Contains(last.Description, "web_fetch") {
		t.Errorf("up front ends with %s: %s", last.Name, last.Description)
	}
	for _, d := range up {
		if d.Name == "web_fetch" {
			t.Errorf("web_fetch is offered up front")
		}
	}
}

func names(defs []driver.ToolDefinition) []string {
	var out []string
	for _, d := range defs {
		out = append(out, d.Name)
	}
	return out
}
