package mcpserver_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/quiverkit/quiver/driver"
	"github.com/quiverkit/quiver/mcpserver"
)

func listed(t *testing.T, cs *mcp.ClientSession) map[string]*mcp.Tool {
	t.Helper()
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*mcp.Tool{}
	for _, tl := range res.Tools {
		out[tl.Name] = tl
	}
	return out
}

// tools/list marks the tools a deferral does not hold back with
// _meta["anthropic/alwaysLoad"], for clients that defer tools themselves;
// the deferred ones are listed unmarked, and a server without a deferral
// marks nothing.
func TestListMarksAlwaysLoad(t *testing.T) {
	f := newFixture(t)
	cs := connect(t, newServer(t, f, mcpserver.Options{Defer: &driver.Deferral{Core: []string{"echo"}}}), nil)
	tools := listed(t, cs)
	if tools["echo"].Meta[mcpserver.MetaAlwaysLoad] != true {
		t.Errorf("echo is core, its _meta is %v", tools["echo"].Meta)
	}
	if _, ok := tools["nap"].Meta[mcpserver.MetaAlwaysLoad]; ok || tools["nap"] == nil {
		t.Errorf("nap is deferred: %+v", tools["nap"])
	}
	plain := listed(t, connect(t, newServer(t, f, mcpserver.Options{}), nil))
	if plain["echo"].Meta != nil {
		t.Errorf("without a deferral echo's _meta is %v", plain["echo"].Meta)
	}
}

// With ToolSearch, deferred tools are not listed but tool_search is; a
// search lists what it finds and tells clients the listing changed; a
// deferred tool never listed is callable all along.
func TestToolSearchListsWhatItFinds(t *testing.T) {
	f := newFixture(t)
	srv := newServer(t, f, mcpserver.Options{Defer: &driver.Deferral{Core: []string{"echo"}}, ToolSearch: true})
	changed := make(chan struct{}, 10)
	cs := connect(t, srv, &mcp.ClientOptions{ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
		changed <- struct{}{}
	}})
	names := func() []string {
		var out []string
		for n := range listed(t, cs) {
			out = append(out, n)
		}
		slices.Sort(out)
		return out
	}
	if diff := cmp.Diff([]string{"echo", "tool_search"}, names()); diff != "" {
		t.Errorf("listing up front (-want +got):\n%s", diff)
	}
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "nap", Arguments: map[string]any{}})
	if err != nil || res.IsError {
		t.Fatalf("calling the unlisted deferred nap: %v %+v", err, res)
	}
	res, err = cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "tool_search", Arguments: map[string]any{"query": "sleeps"}})
	if err != nil || res.IsError {
		t.Fatalf("tool_search: %v %+v", err, res)
	}
	var found driver.ToolSearchResult
	if err := json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &found); err != nil || len(found.Tools) != 1 || found.Tools[0].Name != "nap" {
		t.Fatalf("tool_search found %+v (%v)", found, err)
	}
	select {
	case <-changed:
	case <-time.After(time.Minute):
		t.Fatal("no list-changed notification after a search listed nap")
	}
	if got := names(); !strings.Contains(strings.Join(got, ","), "nap") {
		t.Errorf("nap is not listed after the search: %v", got)
	}
	res, err = cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "tool_search", Arguments: map[string]any{"query": "zebra"}})
	if err != nil || res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "no tool matched") {
		t.Errorf("a search matching nothing: %v %+v", err, res)
	}
}
