package mcpserver

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/quiverkit/quiver/driver"
)

// offerSearch lists tool_search while some allowed tool is deferred and not
// loaded (Options.ToolSearch), and takes it away when none is. The caller
// holds s.mu.
func (s *Server) offerSearch(deferred bool) {
	switch {
	case deferred && !s.searched:
		def := driver.ToolSearchDefinition(nil)
		s.mcp.AddTool(&mcp.Tool{Name: def.Name, InputSchema: def.Parameters,
			Description: "Load tools that are not listed yet: give keywords or tool names, get the matching tools' definitions; they are listed from then on.",
			Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, s.search)
		s.searched = true
	case !deferred && s.searched:
		s.mcp.RemoveTools(driver.ToolSearchName)
		s.searched = false
	}
}

// search is tool_search: the deferred tools that match the query, as
// definitions, now listed. It looks at the toolkit's allowed tools, so it
// never names one the policy hides.
func (s *Server) search(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	in, err := driver.ParseToolSearch(req.Params.Arguments)
	if err != nil || strings.TrimSpace(in.Query) == "" {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{
			Text: `INVALID_ARGUMENTS: tool_search needs a query: keywords or tool names, such as {"query": "web page"}`}}}, nil
	}
	tools, err := s.tk.AllowedTools(ctx)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defs := driver.Definitions(tools, false)
	for i := range defs {
		defs[i].Deferred = s.opts.Defer.Deferred(defs[i].Name) && !s.loaded[defs[i].Name]
	}
	res := driver.ToolSearchResult{Tools: driver.SearchTools(defs, in.Query, in.Limit)}
	for _, d := range res.Tools {
		s.loaded[d.Name] = true
	}
	s.mu.Unlock()
	if len(res.Tools) == 0 {
		var names []string
		for _, d := range defs {
			if d.Deferred {
				names = append(names, d.Name)
			}
		}
		res.Note = "no tool matched; the tools not listed are: " + strings.Join(names, ", ")
	}
	if err := s.Refresh(ctx); err != nil {
		return nil, err
	}
	body, err := json.Marshal(res)
	if err != nil {
		return nil, err
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(body)}}}, nil
}
