package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"sync"

	"github.com/quiverkit/quiver/tool"
)

// Tool is a tool as a registry knows it.
type Tool = tool.Tool

// Alias maps another name onto a canonical tool, renaming arguments where the
// specifications differ (run_command's working_dir is exec_command's workdir).
type Alias struct {
	Name    string
	Target  string
	Renames map[string]string // argument name in the alias -> name in the target
}

// Entry is one resolvable name in the catalogue.
type Entry struct {
	Tool     *tool.Tool
	Provider string // ID of the provider that serves it
	// Shadowed lists the IDs of lower-priority providers that offer the same
	// name, highest first.
	Shadowed []string
}

// Status is a provider's state at the last refresh.
type Status struct {
	ID       string
	Priority int
	Tools    int
	Err      error // why the provider is unavailable, if it is
}

// Registry routes tool names to providers. It lists providers lazily and
// caches the catalogue until [Registry.Invalidate]. It is safe for concurrent
// use.
type Registry struct {
	mu        sync.RWMutex
	providers []Provider
	aliases   map[string]Alias
	catalog   map[string]*Entry
	byProv    map[string]map[string]*tool.Tool
	status    []Status
	dirty     bool
	gen       uint64 // bumped by every invalidation
}

// NewRegistry returns a registry over the given providers.
func NewRegistry(providers ...Provider) *Registry {
	r := &Registry{aliases: map[string]Alias{}, dirty: true}
	for _, p := range providers {
		r.Add(p)
	}
	return r
}

// Add adds a provider. Two providers with one ID are a programming error.
func (r *Registry) Add(p Provider) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, q := range r.providers {
		if q.ID() == p.ID() {
			panic(fmt.Sprintf("provider: duplicate provider id %q", p.ID()))
		}
	}
	r.providers = append(r.providers, p)
	if inv, ok := p.(Invalidator); ok {
		inv.SetInvalidate(r.Invalidate)
	}
	r.dirty = true
	r.gen++
}

// AddAlias registers an alias. An alias never hides a real tool of the same
// name.
func (r *Registry) AddAlias(a Alias) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.aliases[a.Name] = a
}

// Invalidate makes the next lookup list every provider again.
func (r *Registry) Invalidate() {
	r.mu.Lock()
	r.dirty = true
	r.gen++
	r.mu.Unlock()
}

// Resolve returns the entry serving name, following an alias (and rewriting
// args for it). The returned args are the ones to run the tool with.
func (r *Registry) Resolve(ctx context.Context, name string, args json.RawMessage) (*Entry, json.RawMessage, error) {
	if err := r.refresh(ctx); err != nil {
		return nil, nil, err
	}
	r.mu.RLock()
	e, ok := r.catalog[name]
	a, aliased := r.aliases[name]
	r.mu.RUnlock()
	if ok {
		return e, args, nil
	}
	if aliased {
		r.mu.RLock()
		e, ok = r.catalog[a.Target]
		r.mu.RUnlock()
		if ok {
			return e, renameArgs(args, a.Renames), nil
		}
	}
	return nil, nil, tool.Errorf(tool.CodeToolNotFound, "no tool named %q", name)
}

// ResolveFrom is Resolve restricted to one provider (quiver call --provider).
func (r *Registry) ResolveFrom(ctx context.Context, providerID, name string, args json.RawMessage) (*Entry, json.RawMessage, error) {
	if err := r.refresh(ctx); err != nil {
		return nil, nil, err
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	tools, ok := r.byProv[providerID]
	if !ok {
		return nil, nil, tool.Errorf(tool.CodeToolNotFound, "no provider %q", providerID)
	}
	if a, aliased := r.aliases[name]; aliased && tools[name] == nil {
		name, args = a.Target, renameArgs(args, a.Renames)
	}
	t, ok := tools[name]
	if !ok {
		return nil, nil, tool.Errorf(tool.CodeToolNotFound, "provider %q has no tool named %q", providerID, name)
	}
	return &Entry{Tool: t, Provider: providerID}, args, nil
}

// Entries returns the catalogue sorted by name.
func (r *Registry) Entries(ctx context.Context) ([]*Entry, error) {
	if err := r.refresh(ctx); err != nil {
		return nil, err
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]*Entry, 0, len(r.catalog))
	for _, e := range r.catalog {
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Tool.Name < out[j].Tool.Name })
	return out, nil
}

// AllTools returns the tools of every provider, shadowed ones included,
// ordered by provider priority (highest first) and then by name. It is for
// checks that must not be loosened by which provider wins a name: a
// workspace's script named write_file shadows the built-in one, but the
// built-in one's promises still count.
func (r *Registry) AllTools(ctx context.Context) ([]*tool.Tool, error) {
	if err := r.refresh(ctx); err != nil {
		return nil, err
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	var out []*tool.Tool
	for _, st := range r.status {
		own := r.byProv[st.ID]
		names := make([]string, 0, len(own))
		for name := range own {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			out = append(out, own[name])
		}
	}
	return out, nil
}

// Aliases returns the registered aliases sorted by name.
func (r *Registry) Aliases() []Alias {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]Alias, 0, len(r.aliases))
	for _, a := range r.aliases {
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Status reports each provider's state at the last refresh, by priority.
func (r *Registry) Status(ctx context.Context) []Status {
	_ = r.refresh(ctx)
	r.mu.RLock()
	defer r.mu.RUnlock()
	return append([]Status(nil), r.status...)
}

// refresh re-lists every provider if the catalogue is stale. An unavailable
// provider is recorded in Status and contributes no tools; it never fails the
// lookup of another provider's tools.
func (r *Registry) refresh(ctx context.Context) error {
	r.mu.RLock()
	dirty, gen := r.dirty, r.gen
	var providers []Provider
	if dirty {
		providers = append(providers, r.providers...)
	}
	r.mu.RUnlock()
	if !dirty {
		return nil
	}
	sort.SliceStable(providers, func(i, j int) bool { return providers[i].Priority() > providers[j].Priority() })
	catalog := map[string]*Entry{}
	byProv := map[string]map[string]*tool.Tool{}
	var status []Status
	for _, p := range providers {
		tools, err := p.Tools(ctx)
		st := Status{ID: p.ID(), Priority: p.Priority(), Tools: len(tools), Err: err}
		if err != nil {
			st.Tools = 0
			status = append(status, st)
			continue
		}
		own := map[string]*tool.Tool{}
		for _, t := range tools {
			if err := t.Check(); err != nil {
				st.Err = fmt.Errorf("provider %s: %w", p.ID(), err)
				continue
			}
			own[t.Name] = t
			if e, ok := catalog[t.Name]; ok {
				e.Shadowed = append(e.Shadowed, p.ID())
				continue
			}
			catalog[t.Name] = &Entry{Tool: t, Provider: p.ID()}
		}
		byProv[p.ID()] = own
		status = append(status, st)
	}
	r.mu.Lock()
	r.catalog, r.byProv, r.status = catalog, byProv, status
	// An invalidation that arrived while listing wins: list again next time.
	r.dirty = r.gen != gen
	r.mu.Unlock()
	return nil
}

// renameArgs rewrites top-level argument names per renames. Arguments that do
// not decode as an object are passed on for the pipeline to reject.
func renameArgs(args json.RawMessage, renames map[string]string) json.RawMessage {
	if len(renames) == 0 {
		return args
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(args, &m); err != nil || m == nil {
		return args
	}
	for from, to := range renames {
		if v, ok := m[from]; ok {
			if _, taken := m[to]; !taken {
				m[to] = v
			}
			delete(m, from)
		}
	}
	out, err := json.Marshal(m)
	if err != nil {
		return args
	}
	return out
}
