package drivertest

import (
	"encoding/json"
	"fmt"
	"strings"
)

// ResponsesReasoningItem is the first Responses turn's reasoning item, byte
// for byte as gpt-5.1-codex-max sent it in its response.output_item.done
// event (vercel/ai's openai-reasoning-encrypted-content.1 recording,
// Apache-2.0; driver/testdata/streams/openai-responses).
const ResponsesReasoningItem = `{"id":"rs_01830d662ab3856501693c321405c88190be3ab04d5782d5f9","type":"reasoning","encrypted_content":"gAAAAABpPDIVOKrsHNZ0GwsoEKA_IGfuJ5f8Ma_6-EojH4yZFL50qlfUzM7FREdQlpkqlnIHLRx2YJxZfzvbnc0E3J_yvIuoeoGQp2hYUfiV5XWs5d0XfqJps9ZgtUBRR1dqB43ooABehaMjM6BjaSGz-3PeUHZfedawAcRKhdJuLF1Q2YPL0OI4i97zy3O1u_2ypHd9JTE1pWoJMwPqx3myOs1_eeg5_yzgiQ0WsRHLvginFvEUyt-N7uxubO6bHfSN_TVTyXiDhCI6lf1v1r8ElDAkFfpbEKvIhUs4SGhykBWkYauqsB9B79Nfr6gwmaUnRGAct8ZsX394UVAqqokBqLIB8EzDjckb5EkUh0F33Ye_9-Nyjo7zLN_gTGxf3JI5DxsbFsZAylpEsEAX6_UbH0o3-2dfy_p9_rgNUNfQmg4nty8z0ZIKdEC7hihyD-4gj7lRYEKcDhQmDVKJW-6asLIpFVoX65yJRo-xOBPf3lLzXczlXWvvYiooHFAF5h1YFFzfjS8pnXkpnq-cFS4Ot8i63pAKgTcRMQEgOB1AxjXOX-QRnX_ncyJmYDVAl-Q7zJwc2cynXXCiaoYfaFxN0P26An7bV18Dwrz3ed-hd-mKUQM_nS9z59kyvCb8Ug7KxD10Me8jyzOFXgtmb76vTRxa7zjMdQhoGE2wRO348n28yM4flAKqUS7b0TsUljeSSnoBXMJSqpuqKXrpmLWjt8_Ws9dEgP3ql8QcQwnQ5QAePNXoleQGBjiF_C5WI8Qoyd6yxFcYM939msh9gfA94QAQiMB7-KUpmo_8ViQOVAggnt1QlXXHrrHuEDDgL2l42_aAIVL3GlHCuSlIChiET8y2iRZmxhDoEg61zQAuknapDM8-5POFTRcbniqN6eHJjxKOJpD45JkH1HYAOHAX3llk6M1MNx_YkYc7mOXmcPIHUYvHOjTv7dAhntZhxn4iHXHRvFRd22b4pUNxSPHDJQ8_UgJ0OgCZIoy1axBR84rbicty4RCaGkbotBee75SdYcE__rOXQxSo_8XMnObfNxat0wz4uQ==","summary":[{"type":"summary_text","text":"**Calculating step-by-step using calculator**\n\nI'll compute 12 plus 7, then multiply the result by 3, and finally multiply that by 10, reporting the final product."}]}`

// ResponsesReasoningID is the reasoning item's id, and ResponsesCallItemID
// the id of the function_call item that follows it.
const (
	ResponsesReasoningID = "rs_01830d662ab3856501693c321405c88190be3ab04d5782d5f9"
	ResponsesCallItemID  = "fc_01830d662ab3856501693c32151234819091cfca267e98cc5f"
	responsesCallID      = "call_AB6AaRZ1FYZB2RwS6A5vbdqn"
)

const responsesErr = `{"error":{"message":%s,"type":"invalid_request_error","param":%s,"code":%s}}`

type responsesAPI struct{}

func (responsesAPI) answered(req map[string]any) bool {
	for _, it := range list(req, "input") {
		if it["type"] == "function_call_output" {
			return true
		}
	}
	return false
}

// check finds the function_call of the first turn and the item before it,
// which must be the reasoning item exactly as it was issued, byte for byte.
func (responsesAPI) check(_ map[string]any, body []byte) string {
	var req struct{ Input []json.RawMessage }
	_ = json.Unmarshal(body, &req)
	items := req.Input
	for i, it := range items {
		var head struct {
			Type   string `json:"type"`
			ID     string `json:"id"`
			CallID string `json:"call_id"`
		}
		_ = json.Unmarshal(it, &head)
		if head.Type != "function_call" || head.CallID != responsesCallID {
			continue
		}
		var prev struct{ Type, ID string }
		if i > 0 {
			_ = json.Unmarshal(items[i-1], &prev)
		}
		switch {
		case prev.Type != "reasoning" || prev.ID != ResponsesReasoningID:
			id := head.ID
			if id == "" {
				id = "(no id)"
			}
			return fmt.Sprintf(responsesErr, quote(fmt.Sprintf("Item '%s' of type 'function_call' was provided without its required 'reasoning' item: '%s'.", id, ResponsesReasoningID)), quote("input"), "null")
		case string(items[i-1]) != ResponsesReasoningItem:
			return fmt.Sprintf(responsesErr, quote(fmt.Sprintf("The encrypted content for item %s could not be verified.", ResponsesReasoningID)), "null", quote("invalid_encrypted_content"))
		}
		return ""
	}
	return fmt.Sprintf(responsesErr, quote("No tool call found for function call output with call_id "+responsesCallID+"."), quote("input"), "null")
}

func (responsesAPI) first(w *reply, call Call) {
	fc := fmt.Sprintf(`{"id":%q,"type":"function_call","status":"completed","arguments":%s,"call_id":%q,"name":%s}`,
		ResponsesCallItemID, quote(call.Arguments), responsesCallID, quote(call.Name))
	resp := func(status, output string) string {
		return fmt.Sprintf(`{"id":"resp_01830d","object":"response","created_at":1765552660,"status":%q,"model":"gpt-5.1-codex-max","output":[%s],"parallel_tool_calls":true,"tool_choice":"auto","tools":[],"usage":{"input_tokens":84,"input_tokens_details":{"cached_tokens":0},"output_tokens":113,"output_tokens_details":{"reasoning_tokens":64},"total_tokens":197}}`, status, output)
	}
	if !w.stream {
		w.whole(resp("completed", ResponsesReasoningItem+","+fc))
		return
	}
	var item struct {
		Summary []struct{ Text string } `json:"summary"`
	}
	_ = json.Unmarshal([]byte(ResponsesReasoningItem), &item)
	w.event("response.created", `{"type":"response.created","sequence_number":0,"response":`+resp("in_progress", "")+`}`)
	w.event("response.output_item.added", `{"type":"response.output_item.added","sequence_number":1,"output_index":0,"item":{"id":"`+ResponsesReasoningID+`","type":"reasoning","summary":[]}}`)
	for _, c := range chunks(item.Summary[0].Text, 24) {
		w.event("response.reasoning_summary_text.delta", `{"type":"response.reasoning_summary_text.delta","sequence_number":2,"item_id":"`+ResponsesReasoningID+`","output_index":0,"summary_index":0,"delta":`+quote(c)+`}`)
	}
	w.event("response.output_item.done", `{"type":"response.output_item.done","sequence_number":3,"output_index":0,"item":`+ResponsesReasoningItem+`}`)
	w.event("response.output_item.added", fmt.Sprintf(`{"type":"response.output_item.added","sequence_number":4,"output_index":1,"item":{"id":%q,"type":"function_call","status":"in_progress","arguments":"","call_id":%q,"name":%s}}`, ResponsesCallItemID, responsesCallID, quote(call.Name)))
	for _, c := range chunks(call.Arguments, 5) {
		w.event("response.function_call_arguments.delta", fmt.Sprintf(`{"type":"response.function_call_arguments.delta","sequence_number":5,"item_id":%q,"output_index":1,"delta":%s}`, ResponsesCallItemID, quote(c)))
	}
	w.event("response.output_item.done", `{"type":"response.output_item.done","sequence_number":6,"output_index":1,"item":`+fc+`}`)
	w.event("response.completed", `{"type":"response.completed","sequence_number":7,"response":`+resp("completed", ResponsesReasoningItem+","+fc)+`}`)
}

func (responsesAPI) text(w *reply, text string, cut bool) {
	status, details := "completed", "null"
	if cut {
		status, details = "incomplete", `{"reason":"max_output_tokens"}`
	}
	msg := fmt.Sprintf(`{"id":"msg_02","type":"message","status":%q,"role":"assistant","content":[{"type":"output_text","text":%s,"annotations":[]}]}`, status, quote(text))
	resp := fmt.Sprintf(`{"id":"resp_02","object":"response","created_at":1765552670,"status":%q,"incomplete_details":%s,"model":"gpt-5.1-codex-max","output":[%s],"usage":{"input_tokens":240,"input_tokens_details":{"cached_tokens":0},"output_tokens":12,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":252}}`, status, details, msg)
	if !w.stream {
		w.whole(resp)
		return
	}
	w.event("response.created", `{"type":"response.created","sequence_number":0,"response":{"id":"resp_02","object":"response","status":"in_progress","model":"gpt-5.1-codex-max","output":[]}}`)
	for _, c := range strings.SplitAfter(text, " ") {
		w.event("response.output_text.delta", `{"type":"response.output_text.delta","sequence_number":1,"item_id":"msg_02","output_index":0,"content_index":0,"delta":`+quote(c)+`}`)
	}
	typ := "response.completed"
	if cut {
		typ = "response.incomplete"
	}
	w.event(typ, `{"type":"`+typ+`","sequence_number":2,"response":`+resp+`}`)
}
