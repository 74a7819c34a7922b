package agent

import (
	_ "embed"
	"strings"
)

// DefaultSystem is the system prompt `quiver run` sends unless told
// otherwise: how to work through the tools (read before changing, follow an
// error's advice, a refusal is an answer), then [Guidance]. Config.System
// sends none unless the host sets it; a host that wants this guidance
// passes DefaultSystem, alone or with its own instructions after it.
var DefaultSystem = strings.TrimRight(agentSystem, "\n") + "\n\n" + Guidance

//go:embed system.md
var agentSystem string

// Guidance is what every built-in tool shares and no single description
// repeats: workspace-relative paths, ignored files, output refs and how to
// page them, what an error code asks of the model. It is written once, for
// a host to send once: `quiver serve` gives it as the MCP server's
// instructions, and DefaultSystem ends with it. The tools' own descriptions
// stay one or two sentences, with each limit on the parameter it concerns.
// It lives here rather than in package tools so that the loop links no
// catalogue.
//
//go:embed guidance.md
var Guidance string
