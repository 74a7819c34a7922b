// Package outputcache stores tool outputs that are too large for a model's
// context, whole, behind a reference id, so that nothing a tool printed is
// lost and the model can page through it or search it later.
package outputcache

import (
	"context"
	"io"

	"github.com/quiverkit/quiver/tool"
)

// Key is the dependency key under which the toolkit provides its store to
// tools that stream output into it (exec_command). It has no Create: without
// a store configured, such tools fall back to their own means.
var Key = tool.Key[Store]{ID: "quiver.outputcache", Shared: true}

// Info describes an output being stored.
type Info struct {
	Tool   string // the tool that produced it
	CallID string // the call's id; ref ids stay unique even when call ids repeat
}

// Store keeps outputs behind reference ids.
type Store interface {
	// Create starts a new stored output. Write to it as the output is
	// produced, then Close it; the ref is readable once closed.
	Create(ctx context.Context, info Info) (Writer, error)
}

// Writer receives one output as it is produced.
type Writer interface {
	io.Writer
	// Ref is the output's reference id, known from the start.
	Ref() string
	// Close seals the output.
	Close() error
}
