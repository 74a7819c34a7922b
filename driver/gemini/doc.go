// Package gemini maps Quiver's provider-neutral driver types to the official
// Google Gen AI Go SDK (google.golang.org/genai), for the Gemini API and
// Vertex AI alike.
//
// # Schemas
//
// Function declarations carry the canonical schema converted to
// Gemini's own Schema (an OpenAPI 3.0 subset) by [Schema], not as
// parametersJsonSchema: the converted form is accepted by every model on both
// backends, while parametersJsonSchema is newer and not everywhere. The
// conversion is what Gemini users keep tripping over in other runtimes, so it
// is explicit: $ref is inlined from $defs, a type array such as
// ["null","array"] becomes one type with nullable, additionalProperties and
// other keywords Gemini rejects are dropped (the toolkit still validates
// arguments against the full schema). A schema whose references are
// recursive cannot be inlined; that one tool goes out as
// parametersJsonSchema. [WithJSONSchema] sends every tool that way.
//
// # Tool choice
//
// AUTO, NONE, ANY ("required"), and ANY with
// allowedFunctionNames for a named tool. Gemini has no switch for parallel
// calls; Request.ParallelToolCalls is ignored.
//
// # Calls and results
//
// Gemini usually sends calls without ids; the driver gives
// each one an id unique within the response (and across responses), marked
// with driver.MetaIDGenerated so that it is never sent back: results are then
// matched by name, as Gemini expects. A call's thought signature (Gemini 3
// requires it back on the next turn) is kept in driver.MetaThoughtSignature
// and restored on its functionCall part. All results of a turn go into one
// user turn of functionResponse parts; a result that is a JSON object is the
// response, anything else is wrapped as {"output": ...}, an error as
// {"error": ...}, and images ride in the functionResponse's own parts.
//
// # Thinking
//
// Thought parts (thought: true, the model's thought summary) become
// driver.Reasoning with the signature that came on them, consecutive parts
// joined, streamed as driver.EventReasoningDelta, and go back in their place
// in the model turn. Request.Reasoning turns thinking on: BudgetTokens is
// thinkingBudget, Effort is thinkingLevel, and either sets includeThoughts;
// thoughtsTokenCount is the Usage's ReasoningTokens.
//
// # Streaming
//
// [Accumulator] reads whole calls (args in one part) and the
// argument streaming of Vertex AI: a call opened by {name, willContinue},
// values set by partialArgs at RFC 9535 JSON paths (a string continues while
// the previous value at that path said willContinue), ended by the first part
// without willContinue — or by the next call, or by the finish reason when
// the terminator never comes. A malformed path or a path through a value of
// the wrong kind is a *driver.CallError naming the call; what one call may
// build is bounded.
//
// # Retries and timeouts
//
// Retries and timeouts are the SDK's: HTTPOptions.RetryOptions on the client,
// or per model through [WithConfig].
package gemini
