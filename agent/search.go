package agent

import (
	"encoding/json"
	"strings"

	"github.com/quiverkit/quiver/driver"
	"github.com/quiverkit/quiver/tool"
)

// searchAnswers answers the tool searches of one turn: Quiver's
// tool_search on APIs without native deferral, and an OpenAI Responses
// client-executed tool_search_call. The zero value answers none (no tool
// is deferred this turn).
type searchAnswers struct {
	defs   []driver.ToolDefinition // this turn's offer, deferred ones marked
	loaded map[string]bool         // what Quiver's own search has shown
}

// answer answers c when it is a tool search, with the definitions found as
// a JSON part (driver.ToolSearchResult): the model reads them, and a
// Responses driver loads them from it. The tools Quiver's own search finds
// are shown in full from the next turn; a provider's search loads them in
// the conversation itself.
func (s searchAnswers) answer(c driver.ToolCall) (driver.ToolResult, bool) {
	if s.defs == nil || c.Name != driver.ToolSearchName {
		return driver.ToolResult{}, false
	}
	in, err := driver.ParseToolSearch(c.Arguments)
	if err != nil || strings.TrimSpace(in.Query) == "" {
		return driver.ResultFor(c, tool.Result{}, tool.Errorf(tool.CodeInvalidArguments,
			"tool_search needs a query: keywords or tool names, such as {\"query\": \"web page\"}").WithTool(c.Name).WithDetail("field", "query")), true
	}
	found := driver.SearchTools(s.defs, in.Query, in.Limit)
	res := driver.ToolSearchResult{Tools: found}
	if len(found) == 0 {
		res.Note = "no tool matched; the tools not loaded are: " + strings.Join(deferredNames(s.defs), ", ")
	}
	if c.Metadata[driver.MetaToolSearch] == "" {
		for _, d := range found {
			s.loaded[d.Name] = true
		}
	}
	body, err := json.Marshal(res)
	if err != nil {
		return driver.ResultFor(c, tool.Result{}, tool.AsError(err)), true
	}
	return driver.ResultFor(c, tool.Result{Parts: []tool.Part{{Type: tool.PartJSON, JSON: body}}}, nil), true
}

func deferredNames(defs []driver.ToolDefinition) []string {
	var out []string
	for _, d := range defs {
		if d.Deferred {
			out = append(out, d.Name)
		}
	}
	return out
}
