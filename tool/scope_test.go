package tool_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/quiverkit/quiver/tool"
)

// The pipeline provides per-call values (the command gate, the sandbox
// profile, the URL gate) that a tool must get back exactly: a value that
// fell back to an override or to Create would run the call under the wrong
// profile. The scope keeps three inline and the rest in a map; both paths,
// and a value provided again, must resolve to the last one provided, ahead
// of any override.
func TestScopeProvidedValuesWin(t *testing.T) {
	for _, n := range []int{1, 3, 4, 6} {
		t.Run(fmt.Sprintf("%d values", n), func(t *testing.T) {
			overrides := map[string]tool.Factory{}
			for i := range n {
				overrides[fmt.Sprint("k", i)] = func(context.Context) (any, error) { return "override", nil }
			}
			scope := tool.NewScope(overrides, nil)
			for i := range n {
				scope.Provide(fmt.Sprint("k", i), "first")
			}
			for i := range n {
				scope.Provide(fmt.Sprint("k", i), fmt.Sprint("value ", i))
			}
			tc := tool.NewContext("c1", "t", nil, scope)
			for i := range n {
				key := tool.Key[string]{ID: fmt.Sprint("k", i), Create: func(context.Context) (string, error) { return "created", nil }}
				got, err := tool.Resolve(context.Background(), tc, key)
				if want := fmt.Sprint("value ", i); err != nil || got != want {
					t.Errorf("%s: %q, %v; want %q", key.ID, got, err, want)
				}
			}
		})
	}
}

// TestScopeOnMake: the hook sees each value the shared scope makes, once,
// by Create or by an override, before a call has it — a toolkit hands its
// audit sink so — and not a value that failed to be made or was provided.
func TestScopeOnMake(t *testing.T) {
	var seen []any
	shared := tool.NewScope(map[string]tool.Factory{"over": func(context.Context) (any, error) { return "overridden", nil }}, nil)
	shared.OnMake(func(v any) { seen = append(seen, v) })
	shared.Provide("given", "provided")
	made := tool.Key[string]{ID: "made", Shared: true, Create: func(context.Context) (string, error) { return "created", nil }}
	over := tool.Key[string]{ID: "over", Shared: true, Create: func(context.Context) (string, error) { return "not this", nil }}
	failed := tool.Key[string]{ID: "failed", Shared: true, Create: func(context.Context) (string, error) { return "", fmt.Errorf("no") }}
	given := tool.Key[string]{ID: "given", Shared: true}
	for range 2 { // two calls: each value made once
		tc := tool.NewContext("t", "", nil, tool.NewScope(nil, shared))
		for _, k := range []tool.Key[string]{made, over, failed, given} {
			tool.Resolve(context.Background(), tc, k)
		}
	}
	if fmt.Sprint(seen) != "[created overridden]" {
		t.Errorf("the hook saw %v, want [created overridden]", seen)
	}
}
