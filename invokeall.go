package quiver

import (
	"context"
	"sync"

	"github.com/quiverkit/quiver/driver"
	"github.com/quiverkit/quiver/tool"
)

// InvokeAll runs several calls — a model's parallel tool calls — and returns
// their outputs in call order. Consecutive calls of read-only, low-risk tools
// run concurrently; any other call waits for those before it, runs alone, and
// is waited for by those after it, so a write never races a read of the same
// turn.
func (tk *Toolkit) InvokeAll(ctx context.Context, calls []driver.ToolCall) []Output {
	outs := make([]Output, len(calls))
	var wg sync.WaitGroup
	for i, c := range calls {
		if tk.parallelSafe(ctx, c) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				outs[i] = tk.run(ctx, c)
			}()
			continue
		}
		wg.Wait()
		outs[i] = tk.run(ctx, c)
	}
	wg.Wait()
	return outs
}

// parallelSafe reports whether c may run beside other calls: its tool is
// read-only and the call is low-risk. Unknown tools are run in order (they
// fail fast anyway).
func (tk *Toolkit) parallelSafe(ctx context.Context, c driver.ToolCall) bool {
	e, args, err := tk.lookup(ctx, c.Name, c.Arguments)
	if err != nil {
		return false
	}
	return e.Tool.Annotations.ReadOnly && e.Tool.RiskOf(ctx, tool.NewContext(c.ID, e.Tool.Name, tk.logger, tk.shared), args).Risk == tool.RiskLow
}
