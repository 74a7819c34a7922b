package quiver

import (
	"context"

	"github.com/quiverkit/quiver/tool"
)

// cacheConfig holds the output cache step's settings.
type cacheConfig struct{}

func (tk *Toolkit) initCache() error { return nil }

// cacheStep stores oversized outputs and returns a trimmed view.
func (tk *Toolkit) cacheStep(_ context.Context, _, _ string, res tool.Result) tool.Result { return res }
