// Package quiver is a tool runtime for LLM agents: it resolves a tool call by
// name, decides whether it may run, validates its arguments, runs it inside a
// workspace it cannot escape, keeps huge outputs out of the model's context
// without losing them, and records what happened.
//
// Start with [New] and [Toolkit.Invoke]; the toolkit holds only the tools
// the options bring, and builtin.Standard (package provider/builtin) brings
// Quiver's own:
//
//	tk, err := quiver.New(quiver.WithRoot("."), builtin.Standard())
//	out, err := tk.Invoke(ctx, "read_file", map[string]any{"path": "go.mod"})
//	fmt.Println(out.Content) // numbered lines, as the model sees them
//
// # Starting a call
//
// There are four ways to start a call; pick by who made it:
//
//   - [Toolkit.Invoke]: the host's own call, by name, with arguments as a
//     map, a struct or JSON text.
//   - [Call]: the host's own call with a tool's typed input and output (a
//     [tool.Ref] such as tools.ReadFile), checked at compile time and never
//     trimmed by the output cache.
//   - [Toolkit.InvokeCall]: one call a model asked for, a [driver.ToolCall]
//     whose id keys the audit record (the MCP server, quiver call).
//   - [Toolkit.InvokeAll]: a model's turn of calls, run as concurrently as
//     is safe, outputs in call order (the agent loop).
//
// # The pipeline
//
// They all go through one pipeline, as do the CLI, the MCP server and the
// agent loop built on them, in this fixed order (docs/design.md section 1):
//
//	resolve   the registry finds the provider and tool (aliases followed)   TOOL_NOT_FOUND
//	gate      tool-level policy: bare deny, write scope                     TOOL_NOT_ALLOWED
//	check     the arguments must be a JSON object                           INVALID_TOOL_ARGUMENTS_TYPE
//	validate  the tool's JSON Schema                                        INVALID_ARGUMENTS
//	decide    call-level rules on what the call acts on, and its risk       TOOL_NOT_ALLOWED, or ask
//	approve   only for ask: the Approver decides                            APPROVAL_DENIED
//	execute   with workspace, dependencies, deadline; panics recovered      TIMEOUT, CANCELLED, SANDBOX_VIOLATION, NETWORK_DENIED, EXECUTION_FAILED, INTERNAL
//	cache     oversized output stored whole; a trimmed view and a ref returned
//	audit     one record per call, whatever the outcome
//
// A denied tool is refused before its arguments are looked at; rules that
// name a command or a path need validated arguments, so they are decided after
// validation; a person is asked only about well-formed calls.
//
// # Errors
//
// Errors reach Go callers as *tool.Error (use errors.As, or tool.CodeOf) and
// the model as an error result, "Error executing tool NAME: CODE: message".
package quiver
