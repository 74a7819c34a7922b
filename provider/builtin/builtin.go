// Package builtin is the provider of Quiver's own tools (package tools), at
// the lowest priority, so that a faster program or a user's own tool of the
// same name takes precedence.
package builtin

import (
	"context"

	"github.com/quiverkit/quiver/provider"
	"github.com/quiverkit/quiver/tool"
	"github.com/quiverkit/quiver/tools"
)

// ID is the builtin provider's ID.
const ID = "builtin"

// Provider serves the built-in tools.
type Provider struct {
	tools []*tool.Tool
}

// New returns the builtin provider with a fresh set of tools.
func New() *Provider { return &Provider{tools: tools.All()} }

// ID returns "builtin".
func (p *Provider) ID() string { return ID }

// Priority returns provider.PriorityBuiltin.
func (p *Provider) Priority() int { return provider.PriorityBuiltin }

// Tools returns the built-in tools.
func (p *Provider) Tools(context.Context) ([]*tool.Tool, error) { return p.tools, nil }

// Aliases returns the built-in tools' aliases.
func Aliases() []provider.Alias { return tools.Aliases() }
