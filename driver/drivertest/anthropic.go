package drivertest

import (
	"fmt"
	"strings"
)

// The first Anthropic turn's thinking. The signature is the one recorded
// from claude-sonnet-4-6 in vercel/ai's issue-13430-thinking-tool-call
// fixture (Apache-2.0); the redacted data is made up, in the shape the API
// sends (base64 of an encrypted blob).
const (
	AnthropicThinking  = "The user wants the list. I will read the file first, then answer from it."
	AnthropicSignature = "Eq4CCpIBCBIYAipAM+SGYGx7V1aPBT2LXi5M54elabwLjKMzxMZ7dQBpCn7jCn2ZkTBMgSLasCPWFF+8WMNYFp1xjC6uGZVxY3r8QDIRY2xhdWRlLXNvbm5ldC00LTY4AEIIdGhpbmtpbmdaJDNiOTNhNWRkLTczMDItNDgzZi1hZWFlLTM2MjA3NTU0OGFlMagBh7jq1QYSDNydXz9zcJ0AqizKMBoMWF4MBXod7dF4HVu3IjAqraMrYlluR4bgmuEmWgWhCkVJwHulmGCJQdC/sp1159oNVg2LtQomhtAXeciPrnwqSQ/VQUpZzAJ/SwqeRixWF0cnac6CC/ndDGQq0zwI9Ru9WzH59xuEbule/yBisuGwiyR6WwsfKaMDaXb51Obn56qHuGLD2Np2mOgYAQ=="
	AnthropicRedacted  = "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpPkNRj2YfWXGmKDxH4mPnZ5sQ7vB5URj2pqQZy8RqfFhYeqM2UKq0qIBrL0X+7yFQ"
)

const anthropicErr = `{"type":"error","error":{"type":"invalid_request_error","message":%s}}`

type anthropicAPI struct{}

func (anthropicAPI) answered(req map[string]any) bool {
	for _, m := range list(req, "messages") {
		if m["role"] == "assistant" {
			return true
		}
	}
	return false
}

// check applies the rule to the last assistant turn, the one that answers
// tool_use with tool_result: with thinking on it must open with the thinking
// and redacted_thinking blocks of the first turn, unchanged.
func (anthropicAPI) check(req map[string]any, _ []byte) string {
	if _, on := req["thinking"].(map[string]any); !on {
		return ""
	}
	msgs := list(req, "messages")
	i := len(msgs) - 1
	for i >= 0 && msgs[i]["role"] != "assistant" {
		i--
	}
	content := list(msgs[i], "content")
	fail := func(format string, args ...any) string {
		return fmt.Sprintf(anthropicErr, quote(fmt.Sprintf(format, args...)))
	}
	if len(content) == 0 || (content[0]["type"] != "thinking" && content[0]["type"] != "redacted_thinking") {
		found := "nothing"
		if len(content) > 0 {
			found, _ = content[0]["type"].(string)
		}
		return fail("messages.%d.content.0.type: Expected `thinking` or `redacted_thinking`, but found `%s`. When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable `thinking`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking", i, found)
	}
	if content[0]["type"] != "thinking" || content[0]["signature"] != AnthropicSignature || content[0]["thinking"] != AnthropicThinking {
		return fail("messages.%d.content.0: Invalid `signature` in `thinking` block", i)
	}
	if len(content) < 2 || content[1]["type"] != "redacted_thinking" || content[1]["data"] != AnthropicRedacted {
		return fail("messages.%d.content.1: Invalid `data` in `redacted_thinking` block", i)
	}
	return ""
}

func (anthropicAPI) first(w *reply, call Call) {
	if !w.stream {
		w.whole(fmt.Sprintf(`{"id":"msg_01Q","type":"message","role":"assistant","model":"claude-sonnet-4-6","content":[`+
			`{"type":"thinking","thinking":%s,"signature":%s},{"type":"redacted_thinking","data":%s},`+
			`{"type":"tool_use","id":"toolu_017R7ACrx7NF7sLDDtvdQ1u9","name":%s,"input":%s}],`+
			`"stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":599,"output_tokens":59,"output_tokens_details":{"thinking_tokens":18}}}`,
			quote(AnthropicThinking), quote(AnthropicSignature), quote(AnthropicRedacted), quote(call.Name), call.Arguments))
		return
	}
	w.event("message_start", `{"type":"message_start","message":{"id":"msg_01Q","type":"message","role":"assistant","model":"claude-sonnet-4-6","content":[],"stop_reason":null,"usage":{"input_tokens":599,"output_tokens":1}}}`)
	w.event("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}`)
	for _, c := range chunks(AnthropicThinking, 16) {
		w.event("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":`+quote(c)+`}}`)
	}
	for _, c := range chunks(AnthropicSignature, 200) {
		w.event("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":`+quote(c)+`}}`)
	}
	w.event("content_block_stop", `{"type":"content_block_stop","index":0}`)
	w.event("content_block_start", `{"type":"content_block_start","index":1,"content_block":{"type":"redacted_thinking","data":`+quote(AnthropicRedacted)+`}}`)
	w.event("content_block_stop", `{"type":"content_block_stop","index":1}`)
	w.event("content_block_start", `{"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_017R7ACrx7NF7sLDDtvdQ1u9","name":`+quote(call.Name)+`,"input":{}}}`)
	for _, c := range chunks(call.Arguments, 7) {
		w.event("content_block_delta", `{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":`+quote(c)+`}}`)
	}
	w.event("content_block_stop", `{"type":"content_block_stop","index":2}`)
	w.event("message_delta", `{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":59,"output_tokens_details":{"thinking_tokens":18}}}`)
	w.event("message_stop", `{"type":"message_stop"}`)
}

func (anthropicAPI) text(w *reply, text string, cut bool) {
	stop := "end_turn"
	if cut {
		stop = "max_tokens"
	}
	if !w.stream {
		w.whole(fmt.Sprintf(`{"id":"msg_02","type":"message","role":"assistant","model":"claude-sonnet-4-6","content":[{"type":"text","text":%s}],"stop_reason":%q,"stop_sequence":null,"usage":{"input_tokens":700,"output_tokens":12}}`, quote(text), stop))
		return
	}
	w.event("message_start", `{"type":"message_start","message":{"id":"msg_02","type":"message","role":"assistant","model":"claude-sonnet-4-6","content":[],"stop_reason":null,"usage":{"input_tokens":700,"output_tokens":1}}}`)
	w.event("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`)
	for _, c := range strings.SplitAfter(text, " ") {
		w.event("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":`+quote(c)+`}}`)
	}
	w.event("content_block_stop", `{"type":"content_block_stop","index":0}`)
	w.event("message_delta", fmt.Sprintf(`{"type":"message_delta","delta":{"stop_reason":%q,"stop_sequence":null},"usage":{"output_tokens":12}}`, stop))
	w.event("message_stop", `{"type":"message_stop"}`)
}
