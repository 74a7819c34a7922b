package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/quiverkit/quiver/tool"
)

// one offers a single tool.
type one struct{}

func (one) ID() string    { return "one" }
func (one) Priority() int { return 0 }
func (one) Tools(context.Context) ([]*tool.Tool, error) {
	return []*tool.Tool{{Name: "real", Description: "a tool", Risk: tool.RiskLow,
		InputSchema: &jsonschema.Schema{Type: "object"},
		Execute: func(context.Context, tool.Context, json.RawMessage) (tool.Result, error) {
			return tool.Text("ok"), nil
		}}}, nil
}

// TestResolveKeepsNoAnswerForUnknownNames: a model can ask for any number
// of names that do not exist; the registry must not keep an answer for
// each (a long-running quiver serve would grow without bound), while a
// name that resolves is kept.
func TestResolveKeepsNoAnswerForUnknownNames(t *testing.T) {
	r := NewRegistry(one{})
	r.AddAlias(Alias{Name: "dangling", Target: "nowhere"})
	ctx := context.Background()
	for i := range 1000 {
		if _, _, err := r.Resolve(ctx, fmt.Sprintf("no_such_tool_%d", i), nil); err == nil {
			t.Fatal("an unknown name resolved")
		}
	}
	if _, _, err := r.Resolve(ctx, "dangling", nil); err == nil {
		t.Fatal("an alias to nothing resolved")
	}
	if n := len(r.resolved); n != 0 {
		t.Errorf("the registry keeps %d answers for names that do not exist", n)
	}
	if _, _, err := r.Resolve(ctx, "real", nil); err != nil {
		t.Fatal(err)
	}
	if _, kept := r.resolved["real"]; !kept || len(r.resolved) != 1 {
		t.Errorf("after resolving a real tool the registry keeps %d answers, want that one", len(r.resolved))
	}
}
