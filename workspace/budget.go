package workspace

import (
	"context"
	"fmt"
	"io/fs"
	"sync/atomic"

	"github.com/quiverkit/quiver/tool"
)

// Budget bounds the work one search may make a backend do: the files it
// fetches and their bytes. It travels in the search's context
// ([WithBudget]); a [ContextBackend] spends it on each file it fetches and,
// once it is spent, refuses with an error wrapping [ErrBudget]. A file the
// backend holds already costs nothing. A Budget is safe for concurrent use.
type Budget struct {
	MaxFetches int64 // files fetched; no bound when 0
	MaxBytes   int64 // bytes fetched; no bound when 0

	fetches, bytes atomic.Int64
}

// Spend accounts for one fetch of size bytes, or refuses it (and every
// fetch after it) with an error wrapping ErrBudget. A nil Budget never
// refuses.
func (b *Budget) Spend(size int64) error {
	if b == nil {
		return nil
	}
	if n := b.fetches.Add(1); b.MaxFetches > 0 && n > b.MaxFetches {
		return fmt.Errorf("%w: %d files fetched", ErrBudget, b.MaxFetches)
	}
	if n := b.bytes.Add(size); b.MaxBytes > 0 && n > b.MaxBytes {
		return fmt.Errorf("%w: %d bytes fetched", ErrBudget, b.MaxBytes)
	}
	return nil
}

type budgetKey struct{}

// WithBudget returns ctx carrying b.
func WithBudget(ctx context.Context, b *Budget) context.Context {
	return context.WithValue(ctx, budgetKey{}, b)
}

// BudgetFrom returns the budget ctx carries, or nil.
func BudgetFrom(ctx context.Context) *Budget {
	b, _ := ctx.Value(budgetKey{}).(*Budget)
	return b
}

// A ContextBackend is a [Backend] whose files are fetched (over a network)
// with the caller's context: the call's cancellation reaches the fetch,
// and a search's [Budget] bounds it. Searches over such a backend start
// each with a fresh SearchBudget.
type ContextBackend interface {
	Backend
	// OpenContext is Open, its reads done under ctx and spending the
	// Budget ctx carries.
	OpenContext(ctx context.Context, name string) (fs.File, error)
	// SearchBudget returns the bound of one search.
	SearchBudget() *Budget
}

// SearchContext returns ctx carrying a fresh budget for one search when w
// is served by a [ContextBackend] and ctx carries none yet.
func (w *Workspace) SearchContext(ctx context.Context) context.Context {
	if cb, ok := w.backend.(ContextBackend); ok && BudgetFrom(ctx) == nil {
		return WithBudget(ctx, cb.SearchBudget())
	}
	return ctx
}

// OpenReadContext is [Workspace.OpenRead] with ctx handed to a
// [ContextBackend].
func (w *Workspace) OpenReadContext(ctx context.Context, p string) (fs.File, error) {
	if w.backend == nil {
		return w.OpenRead(p)
	}
	return w.backendOpen(ctx, p)
}

// BackendFailure reports whether err is a backend's own failure, which a
// walk must end on and report rather than count as one unreadable file: no
// connection, a rate limit, a tree too large to list, the call's end.
func BackendFailure(err error) bool {
	switch tool.CodeOf(err) {
	case tool.CodeNoConnection, tool.CodeRateLimited, tool.CodeTreeTruncated, tool.CodeCancelled, tool.CodeTimeout:
		return true
	}
	return false
}

// A CodeSearcher is a [Backend] with a search index of its own (GitHub's
// code search) that search_code may ask which files hold a query, so as to
// fetch only those. CodeSearch returns ok false where the index cannot
// answer for the backend's tree (another ref than the one indexed, a query
// it does not index, an error): the search then reads every file.
type CodeSearcher interface {
	CodeSearch(ctx context.Context, query string) (keep func(rel string) bool, ok bool)
}
