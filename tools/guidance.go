package tools

import _ "embed"

// Guidance is what every built-in tool shares and no single description
// repeats: workspace-relative paths, ignored files, output refs and how to
// page them, what an error code asks of the model. It is written once, for
// a host to send once: `quiver serve` gives it as the MCP server's
// instructions, and `quiver run`'s system prompt (agent.DefaultSystem)
// holds it. The tools' own descriptions stay one or two sentences, with
// each limit on the parameter it concerns.
//
//go:embed guidance.md
var Guidance string
