package agent

import (
	"context"
	"fmt"

	"github.com/quiverkit/quiver"
	"github.com/quiverkit/quiver/driver"
	"github.com/quiverkit/quiver/outputcache"
	"github.com/quiverkit/quiver/tool"
)

// trim replaces the oldest tool outputs of msgs in place until the
// conversation fits maxBytes, keeping what it removes in the toolkit's
// output store (an output the cache step already stored keeps its ref).
func trim(ctx context.Context, tk *quiver.Toolkit, msgs []driver.Message, refs map[string]string, maxBytes int) error {
	store := tk.OutputCache()
	if store == nil {
		return fmt.Errorf("agent: TrimOutputs needs the toolkit's output cache, and it has none")
	}
	var view []outputcache.Message
	var slots []*driver.ToolResult
	var results []*tool.Result
	for i := range msgs {
		m := &msgs[i]
		if m.Role != driver.RoleTool {
			size := len(m.Text())
			for _, c := range m.ToolCalls {
				size += len(c.Name) + len(c.Arguments)
			}
			view = append(view, outputcache.Message{Size: size})
			continue
		}
		for j := range m.ToolResults {
			r := &m.ToolResults[j]
			res := &tool.Result{Parts: r.Content, IsError: r.IsError, OutputRef: refs[r.CallID]}
			view = append(view, outputcache.Message{Tool: r.Name, CallID: r.CallID, Result: res})
			slots, results = append(slots, r), append(results, res)
		}
	}
	_, err := outputcache.TrimToBudget(ctx, store, view, maxBytes)
	for i, r := range slots {
		r.Content = results[i].Parts
		if results[i].OutputRef != "" {
			refs[r.CallID] = results[i].OutputRef
		}
	}
	if err != nil {
		return fmt.Errorf("agent: trim the conversation to %d bytes: %w", maxBytes, err)
	}
	return nil
}
