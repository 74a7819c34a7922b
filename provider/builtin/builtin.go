// Package builtin is Quiver's standard catalogue: the tools of package
// tools, served by a provider at the lowest priority (so that a faster
// program or a user's own tool of the same name takes precedence), the
// other names they answer to, and the list of plainly read-only commands
// that lets the read-only scope run some of exec_command's lines.
//
// The root package links none of it, so that a host offering three tools of
// its own does not carry twenty more and a shell classifier. A host that
// wants them opts in with [Standard]:
//
//	tk, err := quiver.New(quiver.WithRoot("."), builtin.Standard())
package builtin

import (
	"context"

	"github.com/quiverkit/quiver"
	"github.com/quiverkit/quiver/internal/shell"
	"github.com/quiverkit/quiver/provider"
	"github.com/quiverkit/quiver/tool"
	"github.com/quiverkit/quiver/tools"
)

// ID is the builtin provider's ID.
const ID = "builtin"

// Standard adds the standard catalogue to a toolkit: the provider [New]
// returns, the tools' [Aliases], and the built-in list of read-only
// commands as the command classifier (a [quiver.WithCommandClassifier]
// after it replaces that).
func Standard() quiver.Option { return StandardAt(provider.PriorityBuiltin) }

// StandardAt is [Standard] with the provider at priority instead of its
// own, for a host whose operator orders the sources (quiver.toml's [tools]
// providers).
func StandardAt(priority int) quiver.Option {
	opts := []quiver.Option{
		quiver.WithProviderAt(New(), priority),
		quiver.WithCommandClassifier(shell.Classifier(nil)),
	}
	for _, a := range Aliases() {
		opts = append(opts, quiver.WithAlias(a))
	}
	return func(tk *quiver.Toolkit) {
		for _, o := range opts {
			o(tk)
		}
	}
}

// Provider serves the built-in tools.
type Provider struct {
	tools []*tool.Tool
}

// New returns the builtin provider with a fresh set of tools, for a host
// that places it itself (at another priority, say); [Standard] is the usual
// way in.
func New() *Provider { return &Provider{tools: tools.All()} }

// ID returns "builtin".
func (p *Provider) ID() string { return ID }

// Priority returns provider.PriorityBuiltin.
func (p *Provider) Priority() int { return provider.PriorityBuiltin }

// Tools returns the built-in tools.
func (p *Provider) Tools(context.Context) ([]*tool.Tool, error) { return p.tools, nil }

// Aliases returns the built-in tools' aliases.
func Aliases() []provider.Alias { return tools.Aliases() }
