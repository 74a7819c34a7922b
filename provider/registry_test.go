package provider_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/quiverkit/quiver/provider"
	"github.com/quiverkit/quiver/tool"
)

type fake struct {
	id       string
	priority int
	names    []string
	err      error
	lists    atomic.Int32
	inval    func()
}

func (f *fake) ID() string             { return f.id }
func (f *fake) Priority() int          { return f.priority }
func (f *fake) SetInvalidate(g func()) { f.inval = g }
func (f *fake) Tools(context.Context) ([]*tool.Tool, error) {
	f.lists.Add(1)
	if f.err != nil {
		return nil, f.err
	}
	var out []*tool.Tool
	for _, n := range f.names {
		out = append(out, &tool.Tool{Name: n, Description: f.id, Risk: tool.RiskLow,
			InputSchema: objectSchema(), Execute: func(context.Context, tool.Context, json.RawMessage) (tool.Result, error) {
				return tool.Text(f.id), nil
			}})
	}
	return out, nil
}

func TestRegistryPriorityAndStatus(t *testing.T) {
	builtin := &fake{id: "builtin", priority: provider.PriorityBuiltin, names: []string{"grep_search", "read_file"}}
	cli := &fake{id: "cli", priority: provider.PriorityCLI, names: []string{"grep_search"}}
	broken := &fake{id: "mcp:down", priority: provider.PriorityMCP, err: errors.New("server exited: status 1")}
	bad := &fake{id: "custom", priority: provider.PriorityCustom, names: []string{"bad name!"}}
	r := provider.NewRegistry(builtin, cli, broken, bad)
	ctx := context.Background()

	e, _, err := r.Resolve(ctx, "grep_search", json.RawMessage(`{}`))
	if err != nil || e.Provider != "cli" || !cmp.Equal(e.Shadowed, []string{"builtin"}) {
		t.Fatalf("grep_search -> %+v, %v; want cli over builtin", e, err)
	}
	if e, _, err := r.ResolveFrom(ctx, "builtin", "grep_search", nil); err != nil || e.Provider != "builtin" {
		t.Errorf("ResolveFrom(builtin) = %+v, %v", e, err)
	}
	if _, _, err := r.ResolveFrom(ctx, "cli", "read_file", nil); tool.CodeOf(err) != tool.CodeToolNotFound {
		t.Errorf("ResolveFrom(cli, read_file) = %v", err)
	}
	if _, _, err := r.Resolve(ctx, "nope", nil); tool.CodeOf(err) != tool.CodeToolNotFound {
		t.Errorf("unknown name: %v", err)
	}
	var got []string
	for _, s := range r.Status(ctx) {
		msg := "ok"
		if s.Err != nil {
			msg = "error"
		}
		got = append(got, s.ID+":"+msg)
	}
	if diff := cmp.Diff([]string{"mcp:down:error", "custom:error", "cli:ok", "builtin:ok"}, got); diff != "" {
		t.Errorf("status (-want +got):\n%s", diff)
	}
}

func TestRegistryCachesUntilInvalidated(t *testing.T) {
	p := &fake{id: "mcp:x", priority: provider.PriorityMCP, names: []string{"a"}}
	r := provider.NewRegistry(p)
	ctx := context.Background()
	for range 5 {
		r.Resolve(ctx, "a", nil)
	}
	if p.lists.Load() != 1 {
		t.Errorf("listed %d times, want 1", p.lists.Load())
	}
	p.names = []string{"a", "b"}
	p.inval()
	if _, _, err := r.Resolve(ctx, "b", nil); err != nil {
		t.Errorf("after invalidation: %v", err)
	}
}

func TestAliasesRenameArguments(t *testing.T) {
	p := &fake{id: "builtin", priority: provider.PriorityBuiltin, names: []string{"exec_command", "run_command_real"}}
	r := provider.NewRegistry(p)
	r.AddAlias(provider.Alias{Name: "run_command", Target: "exec_command", Renames: map[string]string{"working_dir": "workdir"}})
	r.AddAlias(provider.Alias{Name: "run_command_real", Target: "exec_command"})
	e, args, err := r.Resolve(context.Background(), "run_command", json.RawMessage(`{"command":"ls","working_dir":"src"}`))
	if err != nil || e.Tool.Name != "exec_command" || string(args) != `{"command":"ls","workdir":"src"}` {
		t.Errorf("alias -> %v %s %v", e, args, err)
	}
	if e, _, _ := r.Resolve(context.Background(), "run_command_real", nil); e.Tool.Name != "run_command_real" {
		t.Error("an alias hid a real tool of the same name")
	}
	if _, args, _ := r.Resolve(context.Background(), "run_command", json.RawMessage(`[1]`)); string(args) != `[1]` {
		t.Errorf("non-object arguments were rewritten: %s", args)
	}
}
