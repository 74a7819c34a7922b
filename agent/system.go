package agent

import (
	_ "embed"
	"strings"

	"github.com/quiverkit/quiver/tools"
)

// DefaultSystem is the system prompt `quiver run` sends unless told
// otherwise: how to work through the tools (read before changing, follow an
// error's advice, a refusal is an answer), then the guidance every built-in
// tool shares ([tools.Guidance]: paths, output refs, error codes), which no
// single tool's description repeats. Config.System sends none unless the
// host sets it; a host that wants this guidance passes DefaultSystem,
// alone or with its own instructions after it.
var DefaultSystem = strings.TrimRight(agentSystem, "\n") + "\n\n" + tools.Guidance

//go:embed system.md
var agentSystem string
