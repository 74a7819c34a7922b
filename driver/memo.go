package driver

import (
	"runtime"
	"sync"
	"weak"

	"github.com/google/jsonschema-go/jsonschema"
)

// An agent loop offers the same catalogue on every turn, and encoding a
// schema (jsonschema-go's MarshalJSON is reflection all the way down) costs
// tens of microseconds. So conversions are remembered per schema, keyed by
// its pointer and a dialect name, and forgotten when the schema is garbage
// collected. This is why a schema must not change once it has been offered
// to a model: tool schemas are built once and never edited.

type memoEntry struct {
	mu   sync.Mutex
	vals map[string]any
}

var memo sync.Map // weak.Pointer[jsonschema.Schema] -> *memoEntry

// Memo returns build(s), computed once per schema and dialect; later calls
// with the same schema pointer and dialect return the first result. The
// result is shared: callers must not modify it. Errors are not remembered.
func Memo[V any](s *jsonschema.Schema, dialect string, build func(*jsonschema.Schema) (V, error)) (V, error) {
	if s == nil {
		return build(s)
	}
	key := weak.Make(s)
	e, ok := memo.Load(key)
	if !ok {
		var loaded bool
		e, loaded = memo.LoadOrStore(key, &memoEntry{vals: map[string]any{}})
		if !loaded {
			runtime.AddCleanup(s, func(k weak.Pointer[jsonschema.Schema]) { memo.Delete(k) }, key)
		}
	}
	entry := e.(*memoEntry)
	entry.mu.Lock()
	v, ok := entry.vals[dialect]
	entry.mu.Unlock()
	if ok {
		return v.(V), nil
	}
	built, err := build(s)
	if err != nil {
		return built, err
	}
	entry.mu.Lock()
	entry.vals[dialect] = built
	entry.mu.Unlock()
	return built, nil
}
