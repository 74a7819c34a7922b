// Package provider defines where tools come from and how a name is resolved
// to one of them.
//
// A [Provider] is a source of tools: the built-in tools, faster CLI programs,
// command templates from quiver.toml, scripts, MCP servers. The [Registry]
// asks its providers for their tools and routes each name to the provider
// with the highest priority that offers it; [Alias]es map other names (and
// argument names) onto a canonical tool.
//
// A Provider has one job, its catalogue: execution goes through each
// [tool.Tool]'s own Execute, so that every provider's tools run through the
// same pipeline. That is why this interface has no Execute method, unlike the
// sketch in DESIGN.md section 6, and why availability is reported by the
// error of Tools rather than a separate Available method: one call, one
// answer, no window between "available" and "here are my tools".
package provider

import (
	"context"
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

// Invalidator is implemented by providers whose catalogue changes at run time
// (an MCP server's list-changed notification). The registry calls
// SetInvalidate once; the provider calls the function it was given whenever its
// tools change, and the registry re-lists on its next lookup.
type Invalidator interface {
	SetInvalidate(func())
}
