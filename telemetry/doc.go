// Package telemetry records what Quiver does as OpenTelemetry spans and
// metrics: one span per tool call, one per MCP request the server answers,
// and the agent loop's run and model calls.
//
// # Conventions followed
//
// The names and attributes are those of the OpenTelemetry GenAI and MCP
// semantic conventions, open-telemetry/semantic-conventions-genai v0.1.0
// (which builds on semantic-conventions v1.45.0). Every gen_ai.* and mcp.*
// attribute is still marked Development there and may change in a later
// release; Quiver follows that version until it is moved on deliberately.
//
//   - execute_tool {gen_ai.tool.name}, INTERNAL: gen_ai.operation.name
//     (execute_tool), gen_ai.tool.name (the name as called, alias or not),
//     gen_ai.tool.call.id, gen_ai.tool.type, error.type on failure (the
//     call's tool.Error code: TOOL_NOT_FOUND, TIMEOUT...), and Quiver's own
//     quiver.* attributes (see [ToolOutcome]). gen_ai.tool.type is
//     "function" for a tool Quiver runs itself and "extension" for one an
//     MCP server Quiver is a client of runs.
//   - hook {event} {name}, INTERNAL, a child of the call's execute_tool span
//     for each hook (package hooks) that ran for it: quiver.hook.name,
//     quiver.hook.event, quiver.hook.decision (allow, ask, deny, block or
//     none), quiver.hook.exit_code (when the process exited), quiver.hook.
//     duration_ms, quiver.hook.rewrote, and quiver.hook.error with an error
//     status when the hook failed ([HookOutcome]). The conventions have no
//     such span; these names are Quiver's.
//   - {mcp.method.name} {target}, SERVER: mcp.method.name, mcp.session.id
//     (HTTP sessions; stdio has none), jsonrpc.request.id (requests, not
//     notifications), mcp.protocol.version, network.transport (tcp over
//     HTTP, pipe over stdio), gen_ai.tool.name and gen_ai.operation.name
//     for tools/call, error.type (the JSON-RPC error code, or tool_error
//     for a result with isError) and rpc.response.status_code. The parent
//     is the trace context the client put in params._meta (traceparent,
//     tracestate, baggage); a trace context already in the request's
//     context is linked, not used as the parent.
//   - invoke_agent, INTERNAL, for a run of the agent loop, and
//     chat {gen_ai.request.model}, CLIENT, for each model call in it, with
//     gen_ai.provider.name, the response's id, model and finish reason,
//     and token usage.
//   - Metrics: gen_ai.execute_tool.duration and mcp.server.operation.duration
//     (histograms in seconds, with the conventions' bucket boundaries), and
//     quiver.tool.calls, a counter of calls by gen_ai.tool.name,
//     quiver.outcome (ok or error) and quiver.error.code. A name no
//     provider serves is counted as _OTHER, so that a model inventing names
//     cannot grow the metrics without bound.
//
// # Content
//
// Arguments and results (gen_ai.tool.call.arguments, gen_ai.tool.call.result)
// are recorded only when opted in, through the conventions' content-capture
// setting, OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT (see
// [CaptureContentFromEnv]), or [Options.CaptureContent]. They are recorded as
// the audit log records arguments: through the toolkit's audit.Redactor,
// secrets replaced and long values cut, so a trace store never holds more than
// the audit log does.
//
// # Cost
//
// A nil *Telemetry records nothing, and every method is safe on it: the
// pipeline makes no OpenTelemetry call at all when telemetry is off. This
// package depends on the OpenTelemetry API only; the SDK and the OTLP
// exporters, which a host that does not export need not link, are set up by
// package telemetry/otlp.
package telemetry
