package quiver

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/quiverkit/quiver/audit"
	"github.com/quiverkit/quiver/hooks"
	"github.com/quiverkit/quiver/policy"
	"github.com/quiverkit/quiver/policy/approve"
	"github.com/quiverkit/quiver/provider"
	"github.com/quiverkit/quiver/sandbox"
	"github.com/quiverkit/quiver/tool"
	"github.com/quiverkit/quiver/workspace"
)

// Toolkit runs tool calls through the pipeline. Build it with [New]; it is
// safe for concurrent use. Close it when done: it owns the workspace it
// opened and whatever its tools started (background jobs).
//
// Several clients may share one toolkit — the sessions of an MCP server,
// the agents of a host. A call's context names its session
// ([tool.WithSession]); a call whose context names none is in the default
// session, "", which is all a host with one agent needs. What a session's
// calls leave running belongs to that session: another session's calls do
// not find its background jobs (NOT_FOUND), and [Toolkit.EndSession] kills
// them.
type Toolkit struct {
	registry     *provider.Registry
	policy       *policy.Policy
	approver     policy.Approver
	ws           *workspace.Workspace
	ownsWS       bool
	backend      workspace.Backend    // WithBackend: what serves the tools' files
	toolWS       *workspace.Workspace // the workspace tools get: ws, or the backend's (backend.go)
	audit        audit.Sink
	logger       *slog.Logger
	timeout      time.Duration
	overrides    map[string]tool.Factory
	shared       *tool.Scope
	boxConfig    sandbox.Config   // the operator's [sandbox] settings
	box          *sandbox.Profile // the write scope's profile (sandbox.go)
	inProcessBox *sandbox.Profile // box, refusing every process: for InProcess tools
	hookConfig   *hooks.Config    // WithHooks
	hookMaps     *hooks.Mappings
	hooks        *hooks.Set // nil: none (hooks.go)

	cacheConfig     // the output cache step's settings (cache.go)
	auditConfig     // the audit step's settings (auditrecord.go)
	telemetryConfig // spans and metrics (telemetry.go)

	root         string
	onlyProvider string // WithOnlyProvider
	providers    []rankedProvider
	aliases      []provider.Alias
	validators   sync.Map // *tool.Tool -> *schema.Validator
	calls        atomic.Uint64
	closed       atomic.Bool
}

// Option configures a [Toolkit].
type Option func(*Toolkit)

// WithRoot opens dir as the workspace (default: the current directory).
func WithRoot(dir string) Option {
	return func(tk *Toolkit) { tk.root = dir }
}

// WithWorkspace uses an already open workspace; the toolkit does not close it.
func WithWorkspace(ws *workspace.Workspace) Option {
	return func(tk *Toolkit) { tk.ws = ws }
}

// WithBackend serves the tools' files from b, read-only, in place of the
// workspace's directory, which still roots the policy, the sandbox and the
// hooks. The tools that write or start processes are not offered (see
// [Toolkit.AllowedTools]); a call to one is refused with TOOL_NOT_ALLOWED
// naming the backend. The toolkit closes b (when it is an io.Closer).
func WithBackend(b workspace.Backend) Option {
	return func(tk *Toolkit) { tk.backend = b }
}

// WithPolicy sets the policy (default: ask for high-risk calls, allow
// low-risk ones, workspace-write scope).
func WithPolicy(p *policy.Policy) Option {
	return func(tk *Toolkit) { tk.policy = p }
}

// WithApprover sets who decides calls the policy refers to a person (default
// approve.Deny: nothing is approved unless the host says how, and the
// refusal names this option).
func WithApprover(a policy.Approver) Option {
	return func(tk *Toolkit) { tk.approver = a }
}

// WithAudit sends one record per call to sink.
func WithAudit(sink audit.Sink) Option {
	return func(tk *Toolkit) { tk.audit = sink }
}

// WithLogger sets the logger tools and the pipeline log to (default: discard).
func WithLogger(l *slog.Logger) Option {
	return func(tk *Toolkit) { tk.logger = l }
}

// WithTimeout bounds every call's execution (default: none beyond the
// caller's context and the tools' own limits).
func WithTimeout(d time.Duration) Option {
	return func(tk *Toolkit) { tk.timeout = d }
}

// WithProvider adds a tool provider at its own priority.
func WithProvider(p provider.Provider) Option {
	return WithProviderAt(p, p.Priority())
}

// WithProviderAt adds a tool provider at priority instead of its own (the
// highest that offers a name serves it): for a host that lets its operator
// order the sources, as quiver.toml's [tools] providers does.
func WithProviderAt(p provider.Provider, priority int) Option {
	return func(tk *Toolkit) {
		tk.providers = append(tk.providers, rankedProvider{p, priority})
	}
}

// rankedProvider is a provider and the priority it was added at.
type rankedProvider struct {
	p        provider.Provider
	priority int
}

// WithOnlyProvider serves every call from the provider with ID id alone
// (aliases followed), as if no other provider were there: for comparing
// backends (quiver call --provider). "" leaves every provider in.
func WithOnlyProvider(id string) Option {
	return func(tk *Toolkit) { tk.onlyProvider = id }
}

// WithAlias adds an alias.
func WithAlias(a provider.Alias) Option {
	return func(tk *Toolkit) { tk.aliases = append(tk.aliases, a) }
}

// WithTools adds tools of the host's own, served by a provider with ID "host"
// at the builtin priority plus one (so they win over the standard
// catalogue's tools of the same name).
func WithTools(tools ...*tool.Tool) Option {
	return WithProvider(staticProvider{id: "host", priority: provider.PriorityBuiltin + 1, tools: tools})
}

// WithOverride replaces the dependency with key ID id by factory, for every
// call.
func WithOverride(id string, factory tool.Factory) Option {
	return func(tk *Toolkit) {
		if tk.overrides == nil {
			tk.overrides = map[string]tool.Factory{}
		}
		tk.overrides[id] = factory
	}
}

// Override is [WithOverride] with a typed factory.
func Override[T any](key tool.Key[T], factory func(ctx context.Context) (T, error)) Option {
	return WithOverride(key.ID, func(ctx context.Context) (any, error) { return factory(ctx) })
}

// WithCommandClassifier sets the toolkit's one way of telling a plainly
// read-only command ([tool.CommandClassifierKey]): exec_command's rating
// reads it to decide which calls are low-risk, and the command gate checks
// every command against it as it runs (the only kind allowed under the
// read-only scope, and in a call allowed only as low-risk). Without one no
// command is read-only; the standard catalogue (package provider/builtin)
// brings the built-in list. It is an override of that key, so a later
// [WithOverride] of the key replaces it, for both.
func WithCommandClassifier(readOnly tool.CommandClassifier) Option {
	return Override(tool.CommandClassifierKey, func(context.Context) (tool.CommandClassifier, error) { return readOnly, nil })
}

// classifier returns the toolkit's command classifier, as exec_command's
// rating resolves it; nil (no command is read-only) when it cannot be had.
func (tk *Toolkit) classifier() tool.CommandClassifier {
	tc := tool.NewContext("", "", tk.logger, tk.shared)
	classify, err := tool.Resolve(context.Background(), tc, tool.CommandClassifierKey)
	if err != nil {
		return nil
	}
	return classify
}

// New builds a toolkit. It holds no tools but the ones the options bring:
// the standard catalogue (builtin.Standard in package provider/builtin),
// the host's own ([WithTools]), other providers ([WithProvider]).
func New(opts ...Option) (*Toolkit, error) {
	tk := &Toolkit{}
	for _, o := range opts {
		o(tk)
	}
	if err := tk.setDefaults(); err != nil {
		return nil, err
	}
	tk.registry = provider.NewRegistry()
	for _, rp := range tk.providers {
		tk.registry.AddAt(rp.p, rp.priority)
		tk.handAudit(rp.p)
	}
	for _, a := range tk.aliases {
		tk.registry.AddAlias(a)
	}
	tk.shared = tool.NewScope(tk.overrides, nil)
	tk.shared.OnMake(tk.handAudit)
	tk.shared.Provide(workspace.Key.ID, tk.toolWS)
	if err := tk.newHooks(); err != nil {
		tk.Close()
		return nil, err
	}
	if err := tk.initCache(); err != nil {
		tk.Close()
		return nil, err
	}
	return tk, nil
}

func (tk *Toolkit) setDefaults() error {
	if tk.logger == nil {
		tk.logger = slog.New(slog.DiscardHandler)
	}
	if tk.audit == nil {
		tk.audit = audit.Discard
	}
	if tk.approver == nil {
		tk.approver = noApprover{}
	}
	if tk.policy == nil {
		p, err := policy.New(policy.Config{}, sandbox.WorkspaceWrite)
		if err != nil {
			return err
		}
		tk.policy = p
	}
	if tk.ws == nil {
		dir := tk.root
		if dir == "" {
			wd, err := os.Getwd()
			if err != nil {
				return fmt.Errorf("quiver: workspace: %w", err)
			}
			dir = wd
		}
		ws, err := workspace.Open(dir, workspace.Options{AllowOutside: tk.policy.WriteScope() == sandbox.Unrestricted})
		if err != nil {
			return fmt.Errorf("quiver: %w", err)
		}
		tk.ws, tk.ownsWS = ws, true
	}
	// Absolute protected paths (the config in use) are matched in the form
	// subjects take, relative to this workspace; the sandbox gets both.
	tk.policy = tk.policy.InWorkspace(tk.ws)
	// One list of allowed hosts: the processes' network and the web tools'
	// unasked hosts are both [sandbox] network.
	tk.policy = tk.policy.WithNetwork(tk.boxConfig.Network)
	// A read deny means every reader: every tool reads through the
	// workspace, which asks the policy.
	if len(tk.policy.ReadDenied()) > 0 {
		tk.ws = tk.ws.GuardReads(tk.policy)
	}
	tk.toolWS = tk.ws
	if tk.backend != nil {
		tk.toolWS = workspace.New(tk.backend)
		if len(tk.policy.ReadDenied()) > 0 {
			tk.toolWS = tk.toolWS.GuardReads(tk.policy)
		}
	}
	return tk.newSandbox()
}

// handAudit gives the toolkit's sink, when it keeps records, to v if v
// records on its own (provider.Audited): a provider, or a shared value
// such as exec_command's job registry, whose processes act outside calls.
func (tk *Toolkit) handAudit(v any) {
	if a, ok := v.(provider.Audited); ok && tk.audit != audit.Discard {
		a.SetAudit(tk.audit)
	}
}

// Close stops what the toolkit's tools started and releases the workspace.
func (tk *Toolkit) Close() error {
	if tk.closed.Swap(true) {
		return nil
	}
	var first error
	if tk.shared != nil {
		if err := tk.shared.Close(); err != nil && first == nil {
			first = err
		}
	}
	if tk.backend != nil && tk.toolWS != nil {
		if err := tk.toolWS.Close(); err != nil && first == nil {
			first = err
		}
	}
	if tk.ownsWS && tk.ws != nil {
		if err := tk.ws.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// EndSession ends what the calls of session id (see [tool.WithSession])
// left running: it kills the background jobs they started, with their
// process trees, and returns once they have ended. The MCP server calls it
// when a client's session ends; a host that runs several agents on one
// toolkit calls it when one is done. Cancel the session's calls in flight
// first: a call whose context is done starts no job, so none can slip in
// after EndSession. The toolkit's Close ends every session's.
func (tk *Toolkit) EndSession(id string) error {
	if tk.shared == nil {
		return nil
	}
	return tk.shared.CloseSession(id)
}

// Workspace returns the workspace the tools read: the one the toolkit
// opened or was given, or, with [WithBackend], the backend's, read-only,
// whose files are the backend's and whose Dir is "". A host reading through
// it sees what the model sees, read denies included. The directory on disk
// that roots the policy, the sandbox and the hooks is the sandbox
// profile's Workspace ([Toolkit.Sandbox]).
func (tk *Toolkit) Workspace() *workspace.Workspace { return tk.toolWS }

// Policy returns the toolkit's policy.
func (tk *Toolkit) Policy() *policy.Policy { return tk.policy }

// Registry returns the toolkit's registry (for listing providers and which
// serves each tool).
func (tk *Toolkit) Registry() *provider.Registry { return tk.registry }

// Tools returns every tool the registry resolves, sorted by name, whatever
// the policy says.
func (tk *Toolkit) Tools(ctx context.Context) ([]*tool.Tool, error) {
	entries, err := tk.registry.Entries(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]*tool.Tool, len(entries))
	for i, e := range entries {
		out[i] = e.Tool
	}
	return out, nil
}

// Lookup returns the tool a call of name would run: the registry's answer,
// after aliases, from the one provider [WithOnlyProvider] named if it named
// one. The policy is not consulted.
func (tk *Toolkit) Lookup(ctx context.Context, name string) (*tool.Tool, error) {
	e, _, err := tk.lookup(ctx, name, nil)
	if err != nil {
		return nil, err
	}
	return e.Tool, nil
}

// AllowedTools returns the tools a model should be offered: every tool some
// call of which the policy could let run ([policy.Policy.Offer]). A tool
// named bare in deny, denied in [policy.tools], barred by the write scope,
// or left to a deny default by every rule is not offered: every call of it
// would be refused. The agent loop, MCP tools/list and `quiver tools` all
// offer this list.
func (tk *Toolkit) AllowedTools(ctx context.Context) ([]*tool.Tool, error) {
	entries, err := tk.registry.Entries(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]*tool.Tool, 0, len(entries))
	for _, e := range entries {
		if tk.policy.Visible(e.Tool) && tk.backendGate(*e) == nil {
			out = append(out, e.Tool)
		}
	}
	return out, nil
}

// Dependency returns the toolkit-wide value of a Shared dependency (the todo
// plan, the background jobs), for hosts that show them.
func Dependency[T any](ctx context.Context, tk *Toolkit, key tool.Key[T]) (T, error) {
	key.Shared = true
	tc := tool.NewContext("host", "", tk.logger, tool.NewScope(nil, tk.shared))
	return tool.Resolve(ctx, tc, key)
}

// staticProvider serves a fixed list of tools.
type staticProvider struct {
	id       string
	priority int
	tools    []*tool.Tool
}

func (p staticProvider) ID() string                                  { return p.id }
func (p staticProvider) Priority() int                               { return p.priority }
func (p staticProvider) Tools(context.Context) ([]*tool.Tool, error) { return p.tools, nil }

// noApprover is the approver of a toolkit the host gave none: approve.Deny,
// whose refusal also says how to give one. A newcomer's first tool that is
// not marked read-only is high-risk, asked about by default, and lands here.
type noApprover struct{}

func (noApprover) Approve(ctx context.Context, req policy.Request) (policy.Approval, error) {
	a, err := approve.Deny.Approve(ctx, req)
	a.Reason += "; a Go host decides such calls with quiver.WithApprover (approve.Auto approves every call, approve.Prompt asks at a terminal), " +
		"and a tool that changes nothing is marked tool.ReadOnly(), which is not asked about"
	return a, err
}
