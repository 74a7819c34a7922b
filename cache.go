package quiver

import (
	"context"
	"fmt"

	"github.com/quiverkit/quiver/outputcache"
	"github.com/quiverkit/quiver/tool"
)

// cacheConfig holds the output cache step's settings; Toolkit embeds it.
type cacheConfig struct {
	outputStore  outputcache.Store
	outputBudget outputcache.Budget
	outputSet    bool // WithOutputCache was given (a nil store then means "keep nothing")
}

// WithOutputCache sets where oversized outputs are kept and how much of one
// output a model's message may hold (zero fields of budget take the
// defaults: 50 KiB, 2,000 lines, 2,000 characters per line; a negative
// field means no limit on that measure).
//
// Without this option the toolkit keeps outputs in a memory store for its
// life ([outputcache.NewMemoryStore]); the CLI and the MCP server pass a
// [outputcache.DirStore], so that a later process can read a ref. A nil
// store still trims, and the marker says the rest was not kept. The same
// store is given to tools under [outputcache.Key]: exec_command streams
// into it, tool_output_cache and tool_output_cache_grep read from it. The
// same budget is given to them under [outputcache.BudgetKey]: exec_command,
// exec_output and exec_kill trim a command's output to it as it streams.
func WithOutputCache(store outputcache.Store, budget outputcache.Budget) Option {
	return func(tk *Toolkit) {
		tk.outputStore, tk.outputBudget, tk.outputSet = store, budget, true
	}
}

// OutputCache returns the toolkit's output store (nil if the host set none),
// for hosts that read a result's OutputRef themselves.
func (tk *Toolkit) OutputCache() outputcache.Store { return tk.outputStore }

// initCache settles the store and the budget and gives them to tools. A
// host override of outputcache.Key or outputcache.BudgetKey wins over
// WithOutputCache and the default, so that the cache step and the tools
// always share one store and trim to one budget.
func (tk *Toolkit) initCache() error {
	if _, overridden := tk.overrides[outputcache.BudgetKey.ID]; overridden {
		budget, err := Dependency(context.Background(), tk, outputcache.BudgetKey)
		if err != nil {
			return fmt.Errorf("quiver: output budget: %w", err)
		}
		tk.outputBudget = budget
	} else {
		tk.shared.Provide(outputcache.BudgetKey.ID, tk.outputBudget)
	}
	if _, overridden := tk.overrides[outputcache.Key.ID]; overridden {
		store, err := Dependency(context.Background(), tk, outputcache.Key)
		if err != nil {
			return fmt.Errorf("quiver: output cache: %w", err)
		}
		tk.outputStore = store
		return tk.maskStore()
	}
	if !tk.outputSet {
		tk.outputStore = outputcache.NewMemoryStore(outputcache.MemoryOptions{})
	}
	if tk.outputStore != nil {
		tk.shared.Provide(outputcache.Key.ID, tk.outputStore)
	}
	return tk.maskStore()
}

// maskStore hides a store that keeps outputs in a directory (a
// [outputcache.DirStore]: every session's, exec_command's whole outputs
// among them) from every process the toolkit's tools start, as Quiver's
// job logs are hidden (sandbox.PrivateDir): reads are open in the sandbox,
// and a command of one session could otherwise read another's. The tools
// read the store themselves, unconfined.
func (tk *Toolkit) maskStore() error {
	ds, ok := tk.outputStore.(interface{ Dir() string })
	if !ok {
		return nil
	}
	box, err := tk.box.MaskReads([]string{ds.Dir()})
	if err != nil {
		return fmt.Errorf("quiver: output cache: %w", err)
	}
	tk.box, tk.inProcessBox = box, box.NoProcess()
	return nil
}

// cacheStep is the pipeline's cache step: a rendered result over the
// budget is stored whole and the model gets the head, the tail and a
// marker naming the ref (see [outputcache.Trim]). The answers of
// tool_output_cache and tool_output_cache_grep pass untouched. When the
// store fails, the model still gets a trimmed view whose marker says the
// rest was not kept, and the failure is logged: the call itself succeeded.
// The stored output keeps the paths the call named, so that a read deny
// holds for it later (tool_output_cache refuses it then).
func (tk *Toolkit) cacheStep(ctx context.Context, name, callID string, subjects []tool.Subject, res tool.Result) tool.Result {
	info := outputcache.Info{Tool: name, CallID: callID}
	for _, s := range subjects {
		if s.Kind == tool.SubjectPath {
			info.Paths = append(info.Paths, s.Value)
		}
	}
	trimmed, err := outputcache.TrimFrom(ctx, tk.outputStore, tk.outputBudget, info, res)
	if err != nil {
		tk.logger.WarnContext(ctx, "output cache: the full output was not kept",
			"tool", name, "call_id", callID, "error", err)
	}
	return trimmed
}
