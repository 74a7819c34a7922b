package provider_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
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

// scoped is a fake that says which names it may offer: those with its
// prefix.
type scoped struct {
	*fake
	prefix string
}

func (s scoped) MayOffer(name string) bool { return strings.HasPrefix(name, s.prefix) }

// TestResolveListsOnlyTheProvidersThatMayOffer: resolving a name asks only
// the providers that could serve it, so a call of read_file starts no MCP
// server; the whole catalogue still asks every provider.
func TestResolveListsOnlyTheProvidersThatMayOffer(t *testing.T) {
	builtin := &fake{id: "builtin", priority: provider.PriorityBuiltin, names: []string{"read_file", "grep_search"}}
	server := scoped{&fake{id: "mcp:srv", priority: provider.PriorityMCP, names: []string{"srv__a", "srv__b"}}, "srv__"}
	r := provider.NewRegistry(builtin, server)
	r.AddAlias(provider.Alias{Name: "a", Target: "srv__a"})
	ctx := context.Background()

	steps := []struct {
		do                   func() error
		wantBuiltin, wantSrv int32
	}{
		{func() error { _, _, err := r.Resolve(ctx, "read_file", nil); return err }, 1, 0},
		{func() error { _, _, err := r.Resolve(ctx, "grep_search", nil); return err }, 1, 0},
		{func() error { _, _, err := r.Resolve(ctx, "srv__b", nil); return err }, 1, 1},
		{func() error { _, _, err := r.Resolve(ctx, "a", nil); return err }, 1, 1}, // through the alias
		{func() error { _, err := r.Entries(ctx); return err }, 1, 1},
		{func() error { r.Invalidate(); _, _, err := r.Resolve(ctx, "read_file", nil); return err }, 2, 1},
		{func() error { r.Status(ctx); return nil }, 2, 2},
	}
	for i, s := range steps {
		if err := s.do(); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if b, m := builtin.lists.Load(), server.lists.Load(); b != s.wantBuiltin || m != s.wantSrv {
			t.Errorf("step %d: listed builtin %d, server %d times; want %d, %d", i, b, m, s.wantBuiltin, s.wantSrv)
		}
	}
}

// TestResolveAgreesWithTheCatalogue: whatever was listed before, Resolve
// names the provider, and the shadowed ones, that the whole catalogue
// names, for every name, alias and unknown name.
func TestResolveAgreesWithTheCatalogue(t *testing.T) {
	build := func() *provider.Registry {
		r := provider.NewRegistry(
			&fake{id: "builtin", priority: provider.PriorityBuiltin, names: []string{"read_file", "grep_search", "glob_search", "exec_command"}},
			scoped{&fake{id: "cli", priority: provider.PriorityCLI, names: []string{"grep_search"}}, "g"},
			&fake{id: "script", priority: provider.PriorityScript, names: []string{"read_file", "deploy"}},
			scoped{&fake{id: "mcp:gh", priority: provider.PriorityMCP, names: []string{"gh__issues", "gh__pulls", "gh__x__run"}}, "gh__"},
			// a server named gh__x: its prefix lies inside gh's, so both may offer gh__x__run
			scoped{&fake{id: "mcp:gh__x", priority: provider.PriorityMCP, names: []string{"gh__x__run", "gh__x__only"}}, "gh__x__"},
			scoped{&fake{id: "mcp:down", priority: provider.PriorityMCP + 1, err: errors.New("exited")}, "down__"},
		)
		r.AddAlias(provider.Alias{Name: "run_command", Target: "exec_command"})
		r.AddAlias(provider.Alias{Name: "issues", Target: "gh__issues"})
		r.AddAlias(provider.Alias{Name: "deploy", Target: "read_file"}) // never hides the real deploy
		return r
	}
	ctx := context.Background()
	catalogue := map[string]*provider.Entry{}
	entries, err := build().Entries(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		catalogue[e.Tool.Name] = e
	}
	target := map[string]string{"run_command": "exec_command", "issues": "gh__issues"}
	names := []string{"read_file", "grep_search", "glob_search", "exec_command", "deploy", "gh__issues", "gh__pulls", "gh__x__run", "gh__x__only",
		"run_command", "issues", "down__x", "gh__nope", "nope", ""}
	for _, first := range names { // resolve first, so that each name is also resolved after a partial listing
		r := build()
		r.Resolve(ctx, first, nil)
		for _, name := range names {
			got, _, err := r.Resolve(ctx, name, nil)
			want := catalogue[name]
			if to, ok := target[name]; ok {
				want = catalogue[to]
			}
			if want == nil {
				if tool.CodeOf(err) != tool.CodeToolNotFound {
					t.Errorf("after %q: Resolve(%q) = %+v, %v; want TOOL_NOT_FOUND", first, name, got, err)
				}
				continue
			}
			if err != nil || got.Provider != want.Provider || got.Tool.Name != want.Tool.Name || !cmp.Equal(got.Shadowed, want.Shadowed) {
				t.Errorf("after %q: Resolve(%q) = %+v, %v; the catalogue says %+v", first, name, got, err, want)
			}
		}
	}
}

// TestRegistryConcurrentLookupsAndInvalidations: lookups of every kind,
// running while a provider keeps invalidating the catalogue, each get the
// right answer, and (under -race) share nothing unguarded.
func TestRegistryConcurrentLookupsAndInvalidations(t *testing.T) {
	builtin := &fake{id: "builtin", priority: provider.PriorityBuiltin, names: []string{"read_file", "grep_search"}}
	server := scoped{&fake{id: "mcp:srv", priority: provider.PriorityMCP, names: []string{"srv__a"}}, "srv__"}
	r := provider.NewRegistry(builtin, server)
	r.AddAlias(provider.Alias{Name: "a", Target: "srv__a"})
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				name := []string{"read_file", "srv__a", "a", "grep_search"}[(g+i)%4]
				e, _, err := r.Resolve(ctx, name, nil)
				switch {
				case err != nil:
					errs <- fmt.Errorf("Resolve(%q): %w", name, err)
				case name == "read_file" && e.Provider != "builtin", name == "a" && e.Tool.Name != "srv__a":
					errs <- fmt.Errorf("Resolve(%q) = %s from %s", name, e.Tool.Name, e.Provider)
				}
				if i%50 == 0 {
					if _, err := r.Entries(ctx); err != nil {
						errs <- err
					}
					r.Status(ctx)
				}
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for range 100 {
			server.inval() // the server's tools changed (they did not, so every answer stays true)
		}
	}()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestAddAtRanksWithoutHidingTheProvider: a provider added at another
// priority than its own is resolved at that priority and reported at it,
// while it still answers for itself which names it may offer and when its
// catalogue changes, so that reordering the sources neither starts every
// MCP server on a call of read_file nor loses a list-changed notification.
func TestAddAtRanksWithoutHidingTheProvider(t *testing.T) {
	builtin := &fake{id: "builtin", priority: provider.PriorityBuiltin, names: []string{"read_file", "gh__issues"}}
	server := scoped{&fake{id: "mcp:gh", priority: provider.PriorityMCP, names: []string{"gh__issues"}}, "gh__"}
	r := provider.NewRegistry()
	r.AddAt(builtin, provider.PriorityMCP)
	r.AddAt(server, provider.PriorityBuiltin)
	ctx := context.Background()

	if e, _, err := r.Resolve(ctx, "read_file", nil); err != nil || e.Provider != "builtin" {
		t.Fatalf("read_file -> %+v, %v", e, err)
	}
	if n := server.lists.Load(); n != 0 {
		t.Errorf("resolving read_file listed the server %d times; its MayOffer was not asked", n)
	}
	e, _, err := r.Resolve(ctx, "gh__issues", nil)
	if err != nil || e.Provider != "builtin" || !cmp.Equal(e.Shadowed, []string{"mcp:gh"}) {
		t.Errorf("gh__issues -> %+v, %v; want builtin over mcp:gh, as ranked", e, err)
	}
	var got []string
	for _, s := range r.Status(ctx) {
		got = append(got, fmt.Sprintf("%s:%d", s.ID, s.Priority))
	}
	if diff := cmp.Diff([]string{fmt.Sprintf("builtin:%d", provider.PriorityMCP), fmt.Sprintf("mcp:gh:%d", provider.PriorityBuiltin)}, got); diff != "" {
		t.Errorf("status (-want +got):\n%s", diff)
	}
	if server.inval == nil {
		t.Fatal("the registry did not give the ranked server its invalidation hook")
	}
	server.names = nil
	server.inval()
	if e, _, err := r.Resolve(ctx, "gh__issues", nil); err != nil || len(e.Shadowed) != 0 {
		t.Errorf("after the server's list changed: gh__issues -> %+v, %v; want builtin alone", e, err)
	}
}
