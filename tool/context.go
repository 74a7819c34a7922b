package tool

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
)

// Context is what a running tool may use besides its arguments: the call's id,
// a logger, a clock, and its dependencies (the workspace and the output cache
// among them). The pipeline builds one per call; tools receive it by value.
type Context struct {
	CallID string       // the tool call's id (the model's, or one the toolkit made)
	Tool   string       // the tool's name
	Logger *slog.Logger // never nil in a Context the pipeline built
	Now    func() time.Time

	deps   *Scope
	parsed map[string]any // the validated arguments as decoded JSON, when the pipeline has them
}

// WithParsedArgs returns tc carrying the call's validated arguments as
// decoded JSON (what schema.ParseObject gives), so that a typed tool fills
// its input from them instead of parsing the JSON text again. The pipeline
// sets it; the map must be the decoding of the arguments Execute receives.
func (tc Context) WithParsedArgs(m map[string]any) Context {
	tc.parsed = m
	return tc
}

// NewContext returns a Context for one call whose dependencies come from scope
// (nil: every dependency is made by its key's Create). Hosts rarely need it:
// the pipeline builds contexts; tests of a single tool do.
func NewContext(callID, toolName string, logger *slog.Logger, scope *Scope) Context {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	if scope == nil {
		scope = NewScope(nil, nil)
	}
	return Context{CallID: callID, Tool: toolName, Logger: logger, Now: time.Now, deps: scope}
}

// Key names a dependency of type T and says how to make it. Keys are compared
// by ID, so a host overrides a dependency by its ID alone.
type Key[T any] struct {
	ID     string
	Create func(ctx context.Context) (T, error)
	// Shared makes one value serve every call of a toolkit (created on first
	// use) rather than one value per call.
	Shared bool
}

// Factory makes a dependency's value; overrides are factories.
type Factory func(ctx context.Context) (any, error)

// Scope resolves dependencies for one call: overrides first, then the key's
// Create, each value made at most once per call (once per toolkit for Shared
// keys, through the parent scope).
type Scope struct {
	overrides map[string]Factory
	shared    *Scope // the toolkit-wide scope for Shared keys; nil in that scope itself

	// The values the pipeline sets for each call (the command gate, the
	// sandbox profile, the URL gate), kept inline: no allocation.
	preset [3]struct {
		id string
		v  any
	}

	mu     sync.Mutex
	values map[string]*lazyValue // made on first use: most calls resolve nothing
	onMake func(any)             // see OnMake
}

type lazyValue struct {
	once sync.Once
	v    any
	err  error
	made atomic.Bool // v and err are set: read them without the once
}

// NewScope returns a scope with the given overrides by key ID. A non-nil
// shared scope serves keys marked Shared.
func NewScope(overrides map[string]Factory, shared *Scope) *Scope {
	return &Scope{overrides: overrides, shared: shared}
}

// Init prepares a zero Scope in place, for callers that embed one in a
// larger per-call value to save an allocation. It is NewScope without the
// new.
func (s *Scope) Init(overrides map[string]Factory, shared *Scope) {
	s.overrides, s.shared = overrides, shared
}

// Provide sets the value of dependency id in this scope, ahead of any
// override or Create. The pipeline uses it for per-call values.
func (s *Scope) Provide(id string, v any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range s.preset {
		if p := &s.preset[i]; p.id == "" || p.id == id {
			p.id, p.v = id, v
			return
		}
	}
	lv := &lazyValue{v: v}
	lv.once.Do(func() {})
	lv.made.Store(true)
	if s.values == nil {
		s.values = map[string]*lazyValue{}
	}
	s.values[id] = lv
}

// OnMake has f called with each value this scope makes, as it is made and
// before any call has it. The toolkit hands its audit sink so to the shared
// values that record on their own (exec_command's job registry: see
// provider.Audited), as it does to its providers. Call it before the scope
// serves a call.
func (s *Scope) OnMake(f func(any)) { s.onMake = f }

func (s *Scope) get(ctx context.Context, id string, shared bool, create Factory) (any, error) {
	if shared && s.shared != nil {
		return s.shared.get(ctx, id, false, create)
	}
	s.mu.Lock()
	for _, p := range s.preset {
		if p.id == id {
			s.mu.Unlock()
			return p.v, nil
		}
	}
	if s.values == nil {
		s.values = map[string]*lazyValue{}
	}
	lv, ok := s.values[id]
	if !ok {
		lv = &lazyValue{}
		s.values[id] = lv
	}
	s.mu.Unlock()
	lv.once.Do(func() {
		make := create
		if f, ok := s.overrides[id]; ok {
			make = f
		}
		if make == nil {
			lv.err = fmt.Errorf("no value and no Create function")
			return
		}
		lv.v, lv.err = make(ctx)
		if lv.err == nil && s.onMake != nil {
			s.onMake(lv.v)
		}
		lv.made.Store(true)
	})
	return lv.v, lv.err
}

// Resolve returns the value of key for the call tc belongs to. It is made at
// most once per call (or per toolkit for Shared keys): by the host's override
// for key.ID if there is one, else by key.Create. A failure is an
// EXECUTION_FAILED error naming the key.
func Resolve[T any](ctx context.Context, tc Context, key Key[T]) (T, error) {
	var zero T
	scope := tc.deps
	if scope == nil {
		scope = NewScope(nil, nil)
	}
	var create Factory
	if key.Create != nil {
		create = func(ctx context.Context) (any, error) { return key.Create(ctx) }
	}
	v, err := scope.get(ctx, key.ID, key.Shared, create)
	if err != nil {
		return zero, &Error{Code: CodeExecutionFailed, Tool: tc.Tool,
			Message: fmt.Sprintf("dependency %q: %v", key.ID, err), Err: err}
	}
	t, ok := v.(T)
	if !ok {
		return zero, &Error{Code: CodeExecutionFailed, Tool: tc.Tool,
			Message: fmt.Sprintf("dependency %q: value is %T, want %T", key.ID, v, zero)}
	}
	return t, nil
}

// Close closes every value made in this scope that is an io.Closer (a
// toolkit's background jobs, an MCP session), and returns their errors joined.
func (s *Scope) Close() error {
	s.mu.Lock()
	values := s.values
	s.values = nil
	s.mu.Unlock()
	var errs []error
	for _, lv := range values {
		if c, ok := lv.v.(io.Closer); ok && lv.err == nil {
			errs = append(errs, c.Close())
		}
	}
	return errors.Join(errs...)
}
