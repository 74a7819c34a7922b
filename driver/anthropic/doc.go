// Package anthropic maps Quiver's provider-neutral driver types to the
// official Anthropic Go SDK (github.com/anthropics/anthropic-sdk-go) and its
// Messages API.
//
// # The mapping
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
//   - Extended thinking: Request.Reasoning.BudgetTokens turns it on
//     (thinking.budget_tokens; at least 1,024 and below max_tokens, which a
//     request without MaxTokens gets as budget + DefaultMaxTokens). Thinking
//     and redacted_thinking blocks become driver.Reasoning, signature and
//     data kept as they arrived, and go back at the head of the assistant
//     turn, before its text and tool_use blocks, as the API requires: with
//     thinking on, a final assistant turn that answers tool_use without its
//     thinking block is refused with a 400 ("Expected `thinking` or
//     `redacted_thinking`, but found `tool_use`"). Thinking tokens
//     (output_tokens_details.thinking_tokens) are the Usage's ReasoningTokens.
//
// # Streaming
//
// Streaming: [Accumulator] keys blocks by their index, concatenates
// input_json_delta fragments (the first is often ""), falls back to the
// content_block_start input when no fragment came (a call without
// arguments is {}), gathers thinking_delta and signature_delta into the
// block's Reasoning (emitting the thinking as driver.EventReasoningDelta),
// ignores ping events, and fails with
// driver.ErrTruncated when message_stop never arrives.
//
// # Retries and timeouts
//
// Retries and timeouts are the SDK's: configure the client
// (option.WithMaxRetries, option.WithRequestTimeout) or pass per-request
// options with [WithRequestOptions].
package anthropic
