// Package provider defines where tools come from and how a name is resolved
// to one of them.
//
// A [Provider] is a source of tools: the built-in tools, faster CLI programs,
// command templates from quiver.toml, scripts, MCP servers. The [Registry]
// asks its providers for their tools and routes each name to the provider
// with the highest priority that offers it; [Alias]es map other names (and
// argument names) onto a canonical tool.
//
// A provider that knows which names it could offer says so ([Scoped]), and
// the registry then lists it only when one of them is asked for: resolving
// one name costs only the providers that might serve it.
//
// What the registry relies on a provider for (an ID that does not change,
// valid and unique names, schemas that compile, true Scoped answers,
// listings that may overlap) is checked by package providertest, which
// every provider's tests run.
//
// A Provider has one job, its catalogue: execution goes through each
// [tool.Tool]'s own Execute, so that every provider's tools run through the
// same pipeline. That is why this interface has no Execute method, unlike the
// sketch in docs/design.md section 6, and why availability is reported by the
// error of Tools rather than a separate Available method: one call, one
// answer, no window between "available" and "here are my tools".
package provider

import (
	"context"

	"github.com/quiverkit/quiver/audit"
)

// Stock priorities: the highest that offers a name wins.
const (
	PriorityBuiltin = -100
	PriorityCLI     = 50
	PriorityCustom  = 75
	PriorityScript  = 75
	PriorityMCP     = 100
)

// Provider is a source of tools.
type Provider interface {
	// ID is a short stable identifier: "builtin", "cli", "mcp:github".
	ID() string
	// Priority orders providers offering the same name; higher wins.
	Priority() int
	// Tools lists the provider's tools. An error means the provider is
	// unavailable now (a program missing, a server that did not start); the
	// registry reports it and asks again on the next refresh.
	Tools(ctx context.Context) ([]*Tool, error)
}

// Scoped is implemented by providers that know, without listing their tools,
// which names they could ever offer: every tool of an MCP server begins with
// the server's name, and the CLI provider serves only the names it is
// configured for. [Registry.Resolve] lists only the providers that may offer
// the name asked for, so that a call of read_file neither starts every MCP
// server nor looks for rg; listing the whole catalogue ([Registry.Entries],
// [Registry.Status]) still asks every provider.
//
// MayOffer may answer true for a name the provider turns out not to offer,
// but a false answer must be certain: a provider that denied a name it
// offers would let a lower-priority provider's tool of that name run in
// its place. A provider that does not implement Scoped is always listed.
type Scoped interface {
	MayOffer(name string) bool
}

// Invalidator is implemented by providers whose catalogue changes at run time
// (an MCP server's list-changed notification). The registry calls
// SetInvalidate once; the provider calls the function it was given whenever its
// tools change, and the registry re-lists on its next lookup.
type Invalidator interface {
	SetInvalidate(func())
}

// Audited is implemented by providers whose processes act outside any call
// (an MCP server may reach hosts between calls and after the last), so
// that what no call's audit record carried is recorded all the same. The
// toolkit calls SetAudit once with its sink, when it keeps records; the
// provider writes there records of its own, with no tool and its ID in
// Provider. A toolkit-wide dependency value (a Shared tool.Key) that
// implements it gets the sink too, when it is made: exec_command's job
// registry records so the hosts of the jobs it drops that no call read
// (Job set instead of Provider).
type Audited interface {
	SetAudit(audit.Sink)
}
