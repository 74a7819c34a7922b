// Package mcp makes an MCP server a Quiver tool provider: its tools join the
// catalogue and run through the same pipeline — policy, validation,
// approval, output cache, audit — as Quiver's own.
//
// One [Provider] serves one server from quiver.toml's [[tools.mcp.servers]],
// spoken to through the official Go SDK's client: a command run over stdio,
// or a streamable HTTP URL. Start reading at [New] and [Provider.Tools].
//
// # Tools
//
// What it does with the server's tools:
//
//   - names them SERVER__TOOL, with every character outside [a-zA-Z0-9_-]
//     replaced by '_' and names over 64 characters cut and given a short
//     hash of the original, so that every model provider accepts them
//     ([ToolName]);
//   - passes input schemas on whole — $defs, $ref, draft-07 or 2020-12 —
//     rather than rebuilding them from properties and required; a tool whose
//     input schema is not an object schema, or cannot be compiled, is left
//     out, and [Provider.Skipped] says which and why;
//   - rates risk from the config's risk, else from the server's hints: low
//     for tools that say they are read-only, high otherwise (hints are the
//     server's claims; set risk = "high" for a server you do not trust);
//   - maps results: text, images, embedded resources and structured content
//     (as the typed output); an isError result becomes an EXECUTION_FAILED
//     error carrying the server's text, or the Quiver code a Quiver server
//     sent under _meta "quiver/error".
//
// # Failure
//
// Failure is contained: a server that does not start, answers garbage or
// does not answer within the timeout is reported by [Provider.Tools] (and
// so by `quiver tools`) with the reason, including the last lines it wrote
// to stderr, and tried again after a growing pause; a server that crashes
// is restarted on the next use, and a call that was in flight fails with
// EXECUTION_FAILED. Other servers and the toolkit carry on. A
// notifications/tools/list_changed from the server marks the catalogue
// stale, and the registry lists the server again on its next lookup.
//
// # Processes and environment
//
// A stdio server gets the minimal environment of every process Quiver
// starts (sandbox.HostEnv) plus what its config's env sets, where ${VAR}
// passes a host variable on by name: never the rest of Quiver's
// environment, which holds API keys and serve's token.
//
// A stdio server runs in its own process group, which is killed when the
// provider closes, so that servers started through wrappers (npx, uvx, sh)
// leave nothing behind.
package mcp
