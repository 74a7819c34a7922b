// Package openai maps Quiver's provider-neutral driver types to the official
// OpenAI Go SDK (github.com/openai/openai-go/v3), for both of OpenAI's APIs:
//
//   - Chat Completions ([Chat], the Chat* functions, [ChatAccumulator]),
//     which every OpenAI-compatible server also speaks: Ollama, vLLM,
//     llama.cpp, Groq, DeepSeek, Mistral, xAI, Qwen. Point the SDK client at
//     the server with option.WithBaseURL; for a local Ollama:
//
//     client := oai.NewClient(
//     option.WithBaseURL("http://localhost:11434/v1"),
//     option.WithAPIKey("ollama"), // Ollama ignores the key; the SDK wants one
//     )
//     model := openai.NewChat(client, "qwen3")
//
//   - the Responses API ([Responses], the Responses* functions,
//     [ResponsesAccumulator]): function_call items whose call_id (not the
//     fc_... item id) pairs them with function_call_output items.
//
// # Reasoning
//
// Reasoning, on each API as its provider documents it:
//
//   - Responses: reasoning items are kept whole (driver.Reasoning.Raw, the
//     item's JSON exactly as received: id, summary, encrypted_content) and go
//     back in the next request's input, in their place before the
//     function_call items they preceded, which keep their fc_... ids. For a
//     reasoning model ([IsReasoningModel]) or a request that sets
//     Reasoning.Effort, the driver sends store=false and include
//     ["reasoning.encrypted_content"]: nothing is kept server-side, so the
//     encrypted content is what carries the reasoning from turn to turn.
//     Reasoning summaries stream as driver.EventReasoningDelta when the
//     request asks for them (reasoning.summary, through [WithResponsesParams]).
//     Request.Reasoning.Effort is reasoning.effort.
//   - Chat Completions: Request.Reasoning.Effort is reasoning_effort. OpenAI's
//     own Chat API returns no reasoning. OpenAI-compatible servers that do
//     return it in reasoning_content (DeepSeek, xAI, vLLM) have it read into
//     driver.Reasoning and streamed as driver.EventReasoningDelta. It goes
//     back by DeepSeek's documented rule, the strictest of these servers
//     (https://api-docs.deepseek.com/guides/thinking_mode#tool-calls, for the
//     V3.2 and V4 thinking models): "For turns that do perform tool calls,
//     the reasoning_content must be fully passed back to the API in all
//     subsequent requests"; otherwise the API answers 400 "The
//     reasoning_content in the thinking mode must be passed back to the API."
//     Turns without tool calls do not need it, and the server ignores it
//     there, so the driver sends reasoning_content on every assistant turn
//     with tool calls whose reply carried the field (even empty) and on no
//     other. (The older deepseek-reasoner refused any reasoning_content in
//     the input; it did not support tool calls, so it never sees one.)
//
// # Tools and results
//
// Tools: a definition with Strict set is sent in OpenAI's strict dialect
// (schema.OpenAIStrict: every property required, optional ones nullable,
// objects closed); a schema that dialect cannot express (schema.ErrNotStrict,
// such as an object with arbitrary keys) is sent as it is with strict off, so
// one tool never breaks a request.
//
// Tool results: Chat Completions takes only text from a tool, so a result
// with images is sent as its text (images named by a placeholder) followed by
// one user message holding the images of that turn. The Responses API takes
// images in function_call_output directly.
//
// # Streaming
//
// Streaming: [ChatAccumulator] groups tool-call deltas by index, by id when a
// server sends no index, and to the previous call when a fragment has
// neither; it keeps the first non-empty id and name (continuations that repeat
// "" change nothing), accepts indexes that start anywhere, whole calls in one
// chunk beside finish_reason, and usage chunks with no choices. A new id on
// an index already in use starts a new call (servers that number every call
// 0). [ResponsesAccumulator] keys argument deltas by item id and reports the
// call_id as the call's id.
//
// # Retries and timeouts
//
// Retries and timeouts are the SDK's: configure the client
// (option.WithMaxRetries, option.WithRequestTimeout) or pass per-request
// options with [WithRequestOptions].
package openai
