// Package mcpserver serves a Quiver toolkit over the Model Context Protocol,
// so that any MCP client — Claude Desktop, Claude Code, Codex, Cursor, the
// MCP Inspector — uses Quiver's tools under Quiver's policy and workspace.
//
// # One pipeline
//
// It is a thin adapter over the official Go SDK
// (github.com/modelcontextprotocol/go-sdk/mcp). Tools are registered with the
// SDK's low-level Server.AddTool and a raw handler: every tools/call goes
// through [quiver.Toolkit.InvokeCall] — resolve, policy gate, validation,
// decision, approval, execution, output cache, audit — exactly as a Go host's
// call does, so arguments are validated once, by Quiver, and every failure
// comes back the same way:
//
//   - a result with isError set, its text "Error executing tool NAME: CODE:
//     message", the error object {code, message, tool, retriable} under the
//     result's _meta key "quiver/error", and, for tools without an output
//     schema, also as structured content {"error": {...}} (a tool that has an
//     output schema cannot carry it there: TypeScript clients validate
//     structured content against the schema even on errors);
//   - successful typed outputs (tool.Result.Output) as structured content,
//     with the tool's output schema advertised in tools/list;
//   - a tools/call of a tool the listing does not show (denied outright,
//     or an alias such as run_command) still goes through the pipeline, so
//     the model learns TOOL_NOT_ALLOWED rather than "unknown tool"; a name
//     nobody serves is the protocol error the specification asks for.
//
// # Listing and approval
//
// The tool listing is [quiver.Toolkit.AllowedTools], refreshed on every
// tools/list and by [Server.Refresh] (which sends list-changed
// notifications when it changed).
//
// Calls the policy refers to a person are decided by the toolkit's
// approver; the server puts each call's session in the context
// ([approve.WithSession]) so that [approve.Elicit] can ask the client's user.
//
// # Transports
//
// Transports: [Server.Run] serves one session over a reader and a writer
// (stdio), answering any line that is not one JSON-RPC message with an
// error instead of ending the session; [Server.Handler] is the streamable
// HTTP endpoint, guarded against DNS rebinding (Host and Origin must be
// loopback names or explicitly allowed), optionally by a bearer token, with
// a request body limit, beside the /healthz and /readyz probes;
// [Server.Serve] runs it on a listener and shuts down gracefully.
//
// # Sessions
//
// Clients crash and lose the network without saying goodbye, so the server
// keeps its own account of HTTP sessions (sessions.go): a session with no
// request open for Options.SessionTimeout is closed, and at
// Options.MaxSessions a newcomer replaces the least recently used session
// that has no call in flight; only when all have one is it refused. A call
// ends early when the session it belongs to ends (DELETE, eviction,
// timeout, shutdown) and when the HTTP request it came in is abandoned
// (without an event store a stream cannot be resumed, so nobody could read
// its answer); ending a call kills the processes it started.
//
// # Progress and logging
//
// A call whose client gave a progress token is reported on every
// Options.ProgressInterval (2 s) while it runs: the progress is the seconds
// elapsed, the message says so and adds the tool's status
// ([tool.SetStatus]; exec_command's is the last lines of its output, at
// most [tool.MaxStatusBytes]). Clients that reset their request timeout on
// progress (the TypeScript SDK's resetTimeoutOnProgress) thereby keep a
// build of any length alive; a client that gives no token gets no reports,
// and its own timeout still applies. Cancelling the call works as without
// progress; no report follows a call's result. The logging capability is
// used: each call that ends is logged to the client — "info", or "warning"
// with its error code — at the level the client set (logging/setLevel);
// a client that set none gets no records.
//
// # Background jobs
//
// Background jobs (exec_command's background: true) belong to the session
// whose call started them ([tool.WithSession]): another session's
// exec_output and exec_kill get NOT_FOUND for them, and when a session ends
// — DELETE, eviction, timeout, the end of a stdio session, shutdown — its
// jobs are killed with their process trees ([quiver.Toolkit.EndSession]).
//
// # Protocol versions
//
// Protocol versions: the server negotiates 2025-11-25 and older. The
// 2026-07-28 revision moves server-to-client questions (elicitation) into
// multi-round-trip results and drops sessions over HTTP; Quiver's approval
// by elicitation is built on the session, so that revision is not offered
// yet and clients that speak it fall back to 2025-11-25, as the
// specification provides.
package mcpserver
