package drivertest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
)

// ToolSearch starts a server for p (Anthropic, Responses, Gemini, or DeepSeek, which
// stands for Chat Completions) whose model does not see call.Name up front:
// it searches for it with query, has it loaded, calls it with
// call.Arguments and, once the call's result comes back, answers final.
// Each request is checked by the API's rules for deferred tools, and
// refused with a 400 naming the rule when it breaks one:
//
//   - Anthropic: the tool is sent with defer_loading, beside a tool search
//     tool (tool_search_tool_bm25_20251119). The model's turn holds the
//     server's search (a server_tool_use, a tool_search_tool_result whose
//     tool_reference names the tool) and then the tool_use; the next request
//     must carry both search blocks back unchanged, since a deferred tool is
//     callable only where a tool_reference in the conversation loaded it.
//   - OpenAI Responses: the tool is a function with defer_loading in a
//     namespace, beside a tool_search with execution "client". The model's
//     first turn is a tool_search_call; the next request must answer it with
//     a tool_search_output (same call_id) loading the tool's namespace with
//     its definition, and only then does the model call the tool.
//   - Chat Completions: the tool is not in tools at all; Quiver's
//     tool_search is. The model calls tool_search; the next request must
//     answer it and offer the tool in tools, which the model then calls.
//
// The shapes are the APIs' documented ones (Anthropic's tool search tool
// and OpenAI's tool search guides, the SDKs' own types); the loopback's
// error messages are its own.
func ToolSearch(t testing.TB, p Provider, call Call, query, final string) *Server {
	t.Helper()
	s := &Server{provider: p, call: call, final: final}
	if _, ok := searchDialects[p]; !ok {
		t.Fatalf("drivertest: no tool search for %q", p)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { s.serveSearch(w, r, query) }))
	t.Cleanup(srv.Close)
	s.URL = srv.URL
	return s
}

var searchDialects = map[Provider]func(s *Server, out *reply, req map[string]any, query string) string{
	Anthropic: anthropicSearch,
	Responses: responsesSearch,
	DeepSeek:  chatSearch,
	Gemini:    geminiSearch,
}

func (s *Server) serveSearch(w http.ResponseWriter, r *http.Request, query string) {
	req, ok := s.read(w, r)
	if !ok {
		return
	}
	out := &reply{w: w, stream: req["stream"] == true || strings.Contains(r.URL.Path, "streamGenerateContent"), provider: s.provider}
	if e := searchDialects[s.provider](s, out, req, query); e != "" {
		s.refuse(w, fmt.Sprintf(`{"type":"error","error":{"type":"invalid_request_error","message":%s}}`, quote(e)))
	}
}

// read records and decodes a request.
func (s *Server) read(w http.ResponseWriter, r *http.Request) (map[string]any, bool) {
	buf, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	s.requests = append(s.requests, string(buf))
	s.mu.Unlock()
	var req map[string]any
	if err := json.Unmarshal(buf, &req); err != nil {
		http.Error(w, `{"error":{"message":"body is not JSON"}}`, http.StatusBadRequest)
		return nil, false
	}
	return req, true
}

func (s *Server) refuse(w http.ResponseWriter, body string) {
	s.mu.Lock()
	s.refused = append(s.refused, body)
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	w.Write([]byte(body))
}

// named returns the entry of list whose key is value.
func named(entries []map[string]any, key, value string) map[string]any {
	for _, e := range entries {
		if e[key] == value {
			return e
		}
	}
	return nil
}

const searchUseID = "srvtoolu_01ABCsearch"

// anthropicSearch: the first request gets search and call in one turn; the
// second must carry the search back and answer the call.
func anthropicSearch(s *Server, w *reply, req map[string]any, query string) string {
	tools := list(req, "tools")
	if t := named(tools, "name", s.call.Name); t == nil || t["defer_loading"] != true {
		return fmt.Sprintf("tools: %s must be sent with defer_loading: true", s.call.Name)
	}
	if named(tools, "type", "tool_search_tool_bm25_20251119") == nil && named(tools, "type", "tool_search_tool_regex_20251119") == nil {
		return "tools: deferred tools need a tool search tool (tool_search_tool_bm25_20251119 or tool_search_tool_regex_20251119)"
	}
	msgs := list(req, "messages")
	last := msgs[len(msgs)-1]
	if !slices.ContainsFunc(list(last, "content"), func(b map[string]any) bool { return b["type"] == "tool_result" }) {
		use := fmt.Sprintf(`{"type":"server_tool_use","id":%q,"name":"tool_search_tool_bm25","input":{"query":%s}}`, searchUseID, quote(query))
		result := fmt.Sprintf(`{"type":"tool_search_tool_result","tool_use_id":%q,"content":{"type":"tool_search_tool_search_result","tool_references":[{"type":"tool_reference","tool_name":%s}]}}`, searchUseID, quote(s.call.Name))
		call := fmt.Sprintf(`{"type":"tool_use","id":"toolu_01Deferred","name":%s,"input":%s}`, quote(s.call.Name), s.call.Arguments)
		if !w.stream {
			w.whole(`{"id":"msg_s1","type":"message","role":"assistant","model":"claude-sonnet-4-6","content":[` + use + `,` + result + `,` + call +
				`],"stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":300,"output_tokens":40}}`)
			return ""
		}
		w.event("message_start", `{"type":"message_start","message":{"id":"msg_s1","type":"message","role":"assistant","model":"claude-sonnet-4-6","content":[],"stop_reason":null,"usage":{"input_tokens":300,"output_tokens":1}}}`)
		w.event("content_block_start", fmt.Sprintf(`{"type":"content_block_start","index":0,"content_block":{"type":"server_tool_use","id":%q,"name":"tool_search_tool_bm25","input":{}}}`, searchUseID))
		w.event("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":`+quote(`{"query":`+quote(query)+`}`)+`}}`)
		w.event("content_block_stop", `{"type":"content_block_stop","index":0}`)
		w.event("content_block_start", `{"type":"content_block_start","index":1,"content_block":`+result+`}`)
		w.event("content_block_stop", `{"type":"content_block_stop","index":1}`)
		w.event("content_block_start", `{"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_01Deferred","name":`+quote(s.call.Name)+`,"input":{}}}`)
		w.event("content_block_delta", `{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":`+quote(s.call.Arguments)+`}}`)
		w.event("content_block_stop", `{"type":"content_block_stop","index":2}`)
		w.event("message_delta", `{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":40}}`)
		w.event("message_stop", `{"type":"message_stop"}`)
		return ""
	}
	loaded := false
	for _, m := range msgs {
		if m["role"] != "assistant" {
			continue
		}
		blocks := list(m, "content")
		use := named(blocks, "type", "server_tool_use")
		res := named(blocks, "type", "tool_search_tool_result")
		if use == nil || res == nil || use["id"] != searchUseID || res["tool_use_id"] != searchUseID {
			continue
		}
		content, _ := res["content"].(map[string]any)
		if named(list(content, "tool_references"), "tool_name", s.call.Name) != nil {
			loaded = true
		}
	}
	if !loaded {
		return fmt.Sprintf("tool_use of %s: the tool is deferred, and no tool_search_tool_result in the conversation references it", s.call.Name)
	}
	anthropicAPI{}.text(w, s.final, false)
	return ""
}

const searchCallID = "call_search_01"

// responsesSearch: first a client tool_search_call; then, with its output,
// the function call; then, with the call's output, the text.
func responsesSearch(s *Server, w *reply, req map[string]any, query string) string {
	tools := list(req, "tools")
	ns := named(tools, "type", "namespace")
	if ns == nil {
		return "tools: no namespace holds the deferred functions"
	}
	if fn := named(list(ns, "tools"), "name", s.call.Name); fn == nil || fn["defer_loading"] != true {
		return fmt.Sprintf("tools: %s must be in a namespace with defer_loading: true", s.call.Name)
	}
	if ts := named(tools, "type", "tool_search"); ts == nil || ts["execution"] != "client" {
		return "tools: a tool_search with execution \"client\" is required for client-executed tool search"
	}
	input := list(req, "input")
	output := named(input, "type", "tool_search_output")
	callOut := named(input, "type", "function_call_output")
	switch {
	case output == nil:
		item := fmt.Sprintf(`{"id":"tsc_01","type":"tool_search_call","call_id":%q,"execution":"client","status":"completed","arguments":{"query":%s}}`, searchCallID, quote(query))
		responsesTurn(w, "resp_s1", item, "")
	case callOut == nil:
		searchCall := named(input, "type", "tool_search_call")
		if searchCall == nil || searchCall["call_id"] != searchCallID {
			return "input: a tool_search_output must follow its tool_search_call (call_id " + searchCallID + ")"
		}
		if output["call_id"] != searchCallID {
			return "tool_search_output: call_id must be " + searchCallID
		}
		// loaded as declared: the namespace, holding the function (the
		// shape of the API's own answer for a namespace, and of Codex's)
		loaded := named(list(output, "tools"), "name", fmt.Sprint(ns["name"]))
		fn := named(list(loaded, "tools"), "name", s.call.Name)
		if loaded == nil || loaded["type"] != "namespace" || fn == nil || fn["type"] != "function" || fn["parameters"] == nil || fn["defer_loading"] != true {
			return fmt.Sprintf("tool_search_output: tools must hold namespace %v with %s's function definition (defer_loading: true)", ns["name"], s.call.Name)
		}
		fc := fmt.Sprintf(`{"id":"fc_s2","type":"function_call","status":"completed","arguments":%s,"call_id":"call_s2","name":%s,"namespace":%q}`,
			quote(s.call.Arguments), quote(s.call.Name), ns["name"])
		responsesTurn(w, "resp_s2", fc, "fc_s2")
	default:
		if callOut["call_id"] != "call_s2" {
			return "function_call_output: no function call with call_id " + fmt.Sprint(callOut["call_id"])
		}
		responsesAPI{}.text(w, s.final, false)
	}
	return ""
}

// responsesTurn answers with one output item; a function call is also
// announced item by item when streaming, as the API does.
func responsesTurn(w *reply, id, item, callItemID string) {
	resp := fmt.Sprintf(`{"id":%q,"object":"response","created_at":1765552660,"status":"completed","model":"gpt-5.4","output":[%s],"usage":{"input_tokens":84,"input_tokens_details":{"cached_tokens":0},"output_tokens":13,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":97}}`, id, item)
	if !w.stream {
		w.whole(resp)
		return
	}
	w.event("response.created", `{"type":"response.created","sequence_number":0,"response":{"id":"`+id+`","object":"response","status":"in_progress","model":"gpt-5.4","output":[]}}`)
	if callItemID != "" {
		w.event("response.output_item.done", `{"type":"response.output_item.done","sequence_number":1,"output_index":0,"item":`+item+`}`)
	}
	w.event("response.completed", `{"type":"response.completed","sequence_number":2,"response":`+resp+`}`)
}

// chatSearch: tool_search first; the tool offered and called after its
// answer; then the text.
func chatSearch(s *Server, w *reply, req map[string]any, query string) string {
	var names []string
	for _, t := range list(req, "tools") {
		fn, _ := t["function"].(map[string]any)
		names = append(names, fmt.Sprint(fn["name"]))
	}
	answered := 0
	for _, m := range list(req, "messages") {
		if m["role"] == "tool" {
			answered++
		}
	}
	switch answered {
	case 0:
		if slices.Contains(names, s.call.Name) {
			return fmt.Sprintf("tools: %s is offered up front; it should be deferred", s.call.Name)
		}
		if !slices.Contains(names, "tool_search") {
			return "tools: no tool_search to find the deferred tools with"
		}
		chatCall(w, "call_search_1", "tool_search", `{"query":`+quote(query)+`}`)
	case 1:
		if !slices.Contains(names, s.call.Name) {
			return fmt.Sprintf("tools: %s was found by tool_search but is not offered now", s.call.Name)
		}
		chatCall(w, "call_2", s.call.Name, s.call.Arguments)
	default:
		chatText(w, s.final)
	}
	return ""
}

func chatCall(w *reply, id, name, args string) {
	tc := fmt.Sprintf(`{"index":0,"id":%q,"type":"function","function":{"name":%s,"arguments":%s}}`, id, quote(name), quote(args))
	if !w.stream {
		w.whole(`{"id":"c1","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[` + tc + `]}}],"usage":{"prompt_tokens":50,"completion_tokens":10,"total_tokens":60}}`)
		return
	}
	w.event("", chatChunk(`{"role":"assistant","content":null,"tool_calls":[`+tc+`]}`, ""))
	w.event("", chatChunk(`{}`, "tool_calls"))
	w.event("", "[DONE]")
}

func chatText(w *reply, text string) {
	if !w.stream {
		w.whole(`{"id":"c2","object":"chat.completion","created":2,"model":"m","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":` + quote(text) + `}}],"usage":{"prompt_tokens":80,"completion_tokens":5,"total_tokens":85}}`)
		return
	}
	w.event("", chatChunk(`{"role":"assistant","content":`+quote(text)+`}`, ""))
	w.event("", chatChunk(`{}`, "stop"))
	w.event("", "[DONE]")
}

// geminiSearch: as chatSearch, in Gemini's wire format — tool_search among
// the functionDeclarations and the deferred tool not, then the tool
// declared once a functionResponse answered the search, then the text.
func geminiSearch(s *Server, w *reply, req map[string]any, query string) string {
	var names []string
	for _, t := range list(req, "tools") {
		for _, fd := range list(t, "functionDeclarations") {
			names = append(names, fmt.Sprint(fd["name"]))
		}
	}
	answered := 0
	for _, c := range list(req, "contents") {
		for _, p := range list(c, "parts") {
			if p["functionResponse"] != nil {
				answered++
			}
		}
	}
	switch answered {
	case 0:
		if slices.Contains(names, s.call.Name) {
			return fmt.Sprintf("tools: %s is declared up front; it should be deferred", s.call.Name)
		}
		if !slices.Contains(names, "tool_search") {
			return "tools: no tool_search to find the deferred tools with"
		}
		geminiAPI{}.first(w, Call{Name: "tool_search", Arguments: `{"query":` + quote(query) + `}`})
	case 1:
		if !slices.Contains(names, s.call.Name) {
			return fmt.Sprintf("tools: %s was found by tool_search but is not declared now", s.call.Name)
		}
		geminiAPI{}.first(w, s.call)
	default:
		geminiAPI{}.text(w, s.final, false)
	}
	return ""
}
