package drivertest

import (
	"fmt"
	"strings"
)

// DeepSeekReasoning is the first DeepSeek turn's reasoning_content.
const DeepSeekReasoning = "The user asks what is on the list. I should read the file, then answer from what it holds."

const deepseekErr = `{"error":{"message":"The reasoning_content in the thinking mode must be passed back to the API.","type":"invalid_request_error","param":null,"code":"invalid_request_error"}}`

type deepseekAPI struct{}

func (deepseekAPI) answered(req map[string]any) bool {
	for _, m := range list(req, "messages") {
		if m["role"] == "tool" {
			return true
		}
	}
	return false
}

// check: every assistant turn with tool calls carries its reasoning_content.
func (deepseekAPI) check(req map[string]any, _ []byte) string {
	for _, m := range list(req, "messages") {
		if m["role"] != "assistant" || len(list(m, "tool_calls")) == 0 {
			continue
		}
		if m["reasoning_content"] != DeepSeekReasoning {
			return deepseekErr
		}
	}
	return ""
}

func chatChunk(delta, finish string) string {
	f := "null"
	if finish != "" {
		f = quote(finish)
	}
	return fmt.Sprintf(`{"id":"d1","object":"chat.completion.chunk","created":1,"model":"deepseek-v4-flash","choices":[{"index":0,"delta":%s,"finish_reason":%s}]}`, delta, f)
}

const deepseekUsage = `{"id":"d1","object":"chat.completion.chunk","created":1,"model":"deepseek-v4-flash","choices":[],"usage":{"prompt_tokens":120,"completion_tokens":40,"total_tokens":160,"completion_tokens_details":{"reasoning_tokens":24}}}`

func (deepseekAPI) first(w *reply, call Call) {
	tc := fmt.Sprintf(`{"index":0,"id":"call_00_ZkRjXSdFUyTfG8fB","type":"function","function":{"name":%s,"arguments":%s}}`, quote(call.Name), quote(call.Arguments))
	if !w.stream {
		w.whole(fmt.Sprintf(`{"id":"d1","object":"chat.completion","created":1,"model":"deepseek-v4-flash","choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":"","reasoning_content":%s,"tool_calls":[%s]}}],"usage":{"prompt_tokens":120,"completion_tokens":40,"total_tokens":160,"completion_tokens_details":{"reasoning_tokens":24}}}`, quote(DeepSeekReasoning), tc))
		return
	}
	w.event("", chatChunk(`{"role":"assistant","content":null,"reasoning_content":""}`, ""))
	for _, c := range chunks(DeepSeekReasoning, 12) {
		w.event("", chatChunk(`{"content":null,"reasoning_content":`+quote(c)+`}`, ""))
	}
	w.event("", chatChunk(`{"content":"","reasoning_content":null,"tool_calls":[`+tc+`]}`, ""))
	w.event("", chatChunk(`{"content":"","reasoning_content":null}`, "tool_calls"))
	w.event("", deepseekUsage)
	w.event("", "[DONE]")
}

func (deepseekAPI) text(w *reply, text string, cut bool) {
	finish := "stop"
	if cut {
		finish = "length"
	}
	if !w.stream {
		w.whole(fmt.Sprintf(`{"id":"d2","object":"chat.completion","created":2,"model":"deepseek-v4-flash","choices":[{"index":0,"finish_reason":%q,"message":{"role":"assistant","content":%s,"reasoning_content":""}}],"usage":{"prompt_tokens":200,"completion_tokens":12,"total_tokens":212}}`, finish, quote(text)))
		return
	}
	for _, c := range strings.SplitAfter(text, " ") {
		w.event("", chatChunk(`{"content":`+quote(c)+`}`, ""))
	}
	w.event("", chatChunk(`{"content":""}`, finish))
	w.event("", deepseekUsage)
	w.event("", "[DONE]")
}
