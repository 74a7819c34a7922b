package agent

import _ "embed"

// DefaultSystem is the system prompt `quiver run` sends unless told
// otherwise: the guidance every tool shares (read before changing, follow
// an error's advice, an output's ref, a refusal is an answer), which no
// single tool's description can carry. Config.System sends none unless the
// host sets it; a host that wants this guidance passes DefaultSystem,
// alone or with its own instructions after it.
//
//go:embed system.md
var DefaultSystem string
