package openai_test

import (
	"encoding/json"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/openai/openai-go/v3/responses"
	"github.com/quiverkit/quiver/driver"
	"github.com/quiverkit/quiver/driver/internal/streamtest"
	"github.com/quiverkit/quiver/driver/openai"
	"github.com/quiverkit/quiver/tool"
)

// searchAnswer is the loop's answer to a client-executed tool_search_call
// that found web_fetch.
func searchAnswer(t *testing.T) driver.ToolResult {
	t.Helper()
	found := driver.ToolSearchResult{Tools: []driver.ToolDefinition{{Name: "web_fetch", Description: "Fetches a web page as Markdown.",
		Parameters: &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{"url": {Type: "string"}},
			Required: []string{"url"}, AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}}}}}}
	return driver.ToolResult{CallID: "call_search_01", Metadata: map[string]string{driver.MetaToolSearch: "client"},
		Content: []tool.Part{{Type: tool.PartJSON, JSON: marshal(t, found)}}}
}

// TestToolSearchOutputIsTheSDKs: the tool_search_output Quiver sends decodes
// with the SDK's own type for that item (the one the API returns when it
// runs the search itself): a client-executed, completed answer to the call,
// whose tools are the namespace the deferred functions were declared in,
// holding each function found with defer_loading — the namespace the
// function_call then names. The wire form is the golden file, the shape of
// Codex's answers to its own client-executed searches.
func TestToolSearchOutputIsTheSDKs(t *testing.T) {
	items := openai.ResponsesToolResults([]driver.ToolResult{searchAnswer(t)})
	if len(items) != 1 || items[0].OfToolSearchOutput == nil {
		t.Fatalf("the answer to a tool_search_call is %d items, not one tool_search_output", len(items))
	}
	wire := marshal(t, items[0])

	var got responses.ResponseToolSearchOutputItem
	if err := json.Unmarshal(wire, &got); err != nil {
		t.Fatalf("the SDK does not decode %s: %v", wire, err)
	}
	if got.Type != "tool_search_output" || got.CallID != "call_search_01" || got.Execution != "client" || got.Status != "completed" || len(got.Tools) != 1 {
		t.Fatalf("decoded: type %q call_id %q execution %q status %q, %d tools", got.Type, got.CallID, got.Execution, got.Status, len(got.Tools))
	}
	if got.Tools[0].Type != "namespace" {
		t.Fatalf("the tools are a %q, want the namespace the functions were declared in", got.Tools[0].Type)
	}
	ns := got.Tools[0].AsNamespace()
	if ns.Name != openai.DeferredNamespace || ns.Description == "" || len(ns.Tools) != 1 || ns.Tools[0].Type != "function" {
		t.Fatalf("namespace %q (description %q) with %d tools", ns.Name, ns.Description, len(ns.Tools))
	}
	if fn := ns.Tools[0].AsFunction(); fn.Name != "web_fetch" || !fn.DeferLoading || fn.Parameters == nil {
		t.Errorf("the function loaded: %s", ns.Tools[0].RawJSON())
	}

	// The namespace is the one ResponsesTools declared, by name and text.
	tools, err := openai.ResponsesTools([]driver.ToolDefinition{{Name: "web_fetch", Deferred: true, Parameters: &jsonschema.Schema{Type: "object"}}})
	if err != nil {
		t.Fatal(err)
	}
	var declared *responses.NamespaceToolParam
	for _, tl := range tools {
		if tl.OfNamespace != nil {
			declared = tl.OfNamespace
		}
	}
	if declared == nil || declared.Name != ns.Name || declared.Description != ns.Description {
		t.Errorf("declared namespace %+v, loaded %q %q", declared, ns.Name, ns.Description)
	}

	streamtest.Golden(t, "responses_tool_search_output", wire)
}
