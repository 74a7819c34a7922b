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

// Registry routes tool names to providers. It lists providers lazily, only
// those that may offer the name asked for ([Scoped]), and keeps each
// provider's list, and each name's answer, until [Registry.Invalidate]. It
// is safe for concurrent use.
type Registry struct {
	mu        sync.RWMutex
	providers []ranked // highest priority first; equal priorities in the order added
	aliases   map[string]Alias
	listed    map[string]*listing    // by provider ID
	resolved  map[string]*resolution // by name asked for, at generation gen
	gen       uint64                 // bumped by every invalidation
}

// ranked is a provider and the priority the registry resolves it at, its
// own unless [Registry.AddAt] gave another. The priority is kept beside the
// provider rather than in a wrapper around it, so that the provider itself
// still answers the optional interfaces ([Scoped], [Invalidator]).
type ranked struct {
	p        Provider
	priority int
}

// listing is one provider's answer to Tools.
type listing struct {
	gen    uint64 // the registry's generation when the listing began
	tools  map[string]*tool.Tool
	status Status
}

// resolution is Resolve's answer for one name: the entry (nil when no
// provider offers the name) and the alias that led to it, if one did.
type resolution struct {
	entry *Entry
	alias *Alias
}

// NewRegistry returns a registry over the given providers.
func NewRegistry(providers ...Provider) *Registry {
	r := &Registry{aliases: map[string]Alias{}, listed: map[string]*listing{}, resolved: map[string]*resolution{}}
	for _, p := range providers {
		r.Add(p)
	}
	return r
}

// Add adds a provider at its own priority. Two providers with one ID are a
// programming error.
func (r *Registry) Add(p Provider) {
	r.AddAt(p, p.Priority())
}

// AddAt adds a provider at priority instead of its own: a host whose
// operator orders the sources (quiver.toml's [tools] providers) ranks them
// here. Two providers with one ID are a programming error.
func (r *Registry) AddAt(p Provider, priority int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, q := range r.providers {
		if q.p.ID() == p.ID() {
			panic(fmt.Sprintf("provider: duplicate provider id %q", p.ID()))
		}
	}
	r.providers = append(r.providers, ranked{p: p, priority: priority})
	sort.SliceStable(r.providers, func(i, j int) bool { return r.providers[i].priority > r.providers[j].priority })
	if inv, ok := p.(Invalidator); ok {
		inv.SetInvalidate(r.Invalidate)
	}
	r.invalidateLocked()
}

// AddAlias registers an alias. An alias never hides a real tool of the same
// name.
func (r *Registry) AddAlias(a Alias) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.aliases[a.Name] = a
	r.invalidateLocked()
}

// Invalidate makes the next lookup list the providers again.
func (r *Registry) Invalidate() {
	r.mu.Lock()
	r.invalidateLocked()
	r.mu.Unlock()
}

func (r *Registry) invalidateLocked() {
	r.gen++
	r.resolved = map[string]*resolution{}
}

// Resolve returns the entry serving name, following an alias (and rewriting
// args for it). The returned args are the ones to run the tool with.
func (r *Registry) Resolve(ctx context.Context, name string, args json.RawMessage) (*Entry, json.RawMessage, error) {
	r.mu.RLock()
	res, ok := r.resolved[name]
	r.mu.RUnlock()
	if !ok {
		res = r.resolve(ctx, name)
	}
	switch {
	case res.entry == nil:
		return nil, nil, tool.Errorf(tool.CodeToolNotFound, "no tool named %q", name)
	case res.alias != nil:
		return res.entry, renameArgs(args, res.alias.Renames), nil
	}
	return res.entry, args, nil
}

// resolve finds name's entry by listing the providers that may offer it or
// its alias's target, and keeps the answer unless the registry was
// invalidated meanwhile. A name nothing offers is not kept: the names a
// model may ask for are unbounded, and asking again costs no listing (each
// provider's is kept).
func (r *Registry) resolve(ctx context.Context, name string) *resolution {
	r.mu.RLock()
	a, aliased := r.aliases[name]
	gen := r.gen
	r.mu.RUnlock()
	ls := r.list(ctx, func(p Provider) bool { return mayOffer(p, name) || aliased && mayOffer(p, a.Target) })
	res := &resolution{entry: entryOf(ls, name)}
	if res.entry == nil && aliased {
		res.entry, res.alias = entryOf(ls, a.Target), &a
	}
	if res.entry == nil {
		return res
	}
	r.mu.Lock()
	if r.gen == gen {
		r.resolved[name] = res
	}
	r.mu.Unlock()
	return res
}

// mayOffer reports whether p could offer name, as far as it can tell
// without being listed.
func mayOffer(p Provider, name string) bool {
	s, ok := p.(Scoped)
	return !ok || s.MayOffer(name)
}

// entryOf is name's entry among ls, which are in priority order: the first
// that offers it serves it, the others are shadowed. It is nil when none
// offers it.
func entryOf(ls []*listing, name string) *Entry {
	var e *Entry
	for _, l := range ls {
		t, ok := l.tools[name]
		switch {
		case !ok:
		case e == nil:
			e = &Entry{Tool: t, Provider: l.status.ID}
		default:
			e.Shadowed = append(e.Shadowed, l.status.ID)
		}
	}
	return e
}

// ResolveFrom is Resolve restricted to one provider (quiver call --provider).
func (r *Registry) ResolveFrom(ctx context.Context, providerID, name string, args json.RawMessage) (*Entry, json.RawMessage, error) {
	ls := r.list(ctx, func(p Provider) bool { return p.ID() == providerID })
	if len(ls) == 0 {
		return nil, nil, tool.Errorf(tool.CodeToolNotFound, "no provider %q", providerID)
	}
	tools := ls[0].tools
	r.mu.RLock()
	a, aliased := r.aliases[name]
	r.mu.RUnlock()
	if aliased && tools[name] == nil {
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
	ls := r.list(ctx, nil)
	seen := map[string]bool{}
	var out []*Entry
	for _, l := range ls {
		for name := range l.tools {
			if !seen[name] {
				seen[name] = true
				out = append(out, entryOf(ls, name))
			}
		}
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
	var out []*tool.Tool
	for _, l := range r.list(ctx, nil) {
		names := make([]string, 0, len(l.tools))
		for name := range l.tools {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			out = append(out, l.tools[name])
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

// Status reports each provider's state at its last listing, by priority,
// listing every provider that has not been listed since the last
// invalidation.
func (r *Registry) Status(ctx context.Context) []Status {
	ls := r.list(ctx, nil)
	out := make([]Status, len(ls))
	for i, l := range ls {
		out[i] = l.status
	}
	return out
}

// list returns, in priority order, the listing of each provider want
// accepts (every provider when want is nil), asking those not listed since
// the last invalidation. Providers are asked outside the lock: an MCP
// server may take seconds to start. A listing that began before an
// invalidation is used for this lookup and asked again by the next.
func (r *Registry) list(ctx context.Context, want func(Provider) bool) []*listing {
	r.mu.RLock()
	gen := r.gen
	var todo []ranked
	for _, p := range r.providers {
		if want == nil || want(p.p) {
			todo = append(todo, p)
		}
	}
	r.mu.RUnlock()
	out := make([]*listing, len(todo))
	for i, p := range todo {
		id := p.p.ID()
		r.mu.RLock()
		l := r.listed[id]
		r.mu.RUnlock()
		if l == nil || l.gen != gen {
			l = listOne(ctx, p, gen)
			r.mu.Lock()
			if old := r.listed[id]; old == nil || old.gen <= gen {
				r.listed[id] = l
			}
			r.mu.Unlock()
		}
		out[i] = l
	}
	return out
}

// listOne asks p for its tools. An unavailable provider is recorded in its
// status and contributes no tools; it never fails the lookup of another
// provider's tools. A tool that fails its check is left out, and said so.
func listOne(ctx context.Context, rp ranked, gen uint64) *listing {
	p := rp.p
	tools, err := p.Tools(ctx)
	l := &listing{gen: gen, tools: map[string]*tool.Tool{}, status: Status{ID: p.ID(), Priority: rp.priority, Err: err}}
	if err != nil {
		return l
	}
	l.status.Tools = len(tools)
	for _, t := range tools {
		if err := t.Check(); err != nil {
			l.status.Err = fmt.Errorf("provider %s: %w", p.ID(), err)
			continue
		}
		if _, dup := l.tools[t.Name]; !dup {
			l.tools[t.Name] = t
		}
	}
	return l
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
