// Package anthropic maps Quiver's provider-neutral driver types to the
// official Anthropic Go SDK (github.com/anthropics/anthropic-sdk-go) and its
// Messages API.
//
//   - Tools become custom tools whose input_schema is the canonical object
//     schema: its properties and required list in their own fields, every
//     other keyword ($defs, additionalProperties, descriptions) carried as
//     is.
//   - Tool choice: auto, none, required (Anthropic's "any") and a named tool;
//     Request.ParallelToolCalls false sets disable_parallel_tool_use.
//   - The model's calls are tool_use blocks. server_tool_use blocks (tools
//     Anthropic runs itself) are reported apart, in Response.ServerToolCalls,
//     and never handed to a toolkit.
//   - Results: every result of a turn goes into one user message as
//     tool_result blocks, with is_error, and with images as image blocks.
//   - System messages become the request's system blocks.
//
// Streaming: [Accumulator] keys blocks by their index, concatenates
// input_json_delta fragments (the first is often ""), falls back to the
// content_block_start input when no fragment came (a call without
// arguments is {}), ignores ping events and thinking, and fails with
// driver.ErrTruncated when message_stop never arrives.
//
// Retries and timeouts are the SDK's: configure the client
// (option.WithMaxRetries, option.WithRequestTimeout) or pass per-request
// options with [WithRequestOptions].
package anthropic
