// Package drivertest serves loopback imitations of the model APIs Quiver
// drives, for tests of code above the drivers (the agent loop, `quiver run`)
// that must hold against each API's rules on reasoning.
//
// A [Server] answers the first request with a reasoning turn that calls one
// tool: Anthropic thinking and redacted_thinking blocks, an OpenAI Responses
// reasoning item with encrypted_content, DeepSeek reasoning_content, a Gemini
// thought with a thought signature. The opaque payloads are real ones, taken
// from the recordings in driver/testdata/streams and public SDK fixtures.
// The next request is checked by the rule the real API enforces, and refused
// with the real API's status and error body unless the reasoning of the first
// turn comes back byte for byte; when it does, the server answers with a
// final text. Each answer is streamed when the request asks for a stream, in
// the provider's own framing, and whole otherwise.
//
// # The rules
//
// The rules, and where the real API states them:
//
//   - Anthropic: with thinking on, the final assistant turn must start with
//     its thinking block, signature intact (400 invalid_request_error,
//     "Expected `thinking` or `redacted_thinking`, but found `tool_use`").
//   - OpenAI Responses: a function_call item must come with the reasoning
//     item that preceded it ("Item 'fc_…' of type 'function_call' was
//     provided without its required 'reasoning' item: 'rs_…'."), and a
//     reasoning item's encrypted content must be the one the API issued. The
//     real API accepts a function_call without its fc_ id and then re-reasons
//     from nothing; this server refuses that too, because keeping the
//     reasoning is what is under test.
//   - DeepSeek (Chat Completions) in thinking mode: every assistant turn with
//     tool calls carries its reasoning_content back ("The reasoning_content
//     in the thinking mode must be passed back to the API.").
//   - Gemini 3: a functionCall part carries its thought signature back
//     ("Function call is missing a thought_signature in functionCall
//     parts...").
//
// # Cut-off replies
//
// [CutOff] serves replies cut off by the output token limit instead, in each
// provider's words for it.
package drivertest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// Provider names an API a Server imitates.
type Provider string

// The providers.
const (
	Anthropic Provider = "anthropic"
	Responses Provider = "openai-responses"
	DeepSeek  Provider = "deepseek"
	Gemini    Provider = "gemini"
)

// Providers lists every Provider, for tables.
var Providers = []Provider{Anthropic, Responses, DeepSeek, Gemini}

// Call is the tool call the first turn makes.
type Call struct {
	Name      string
	Arguments string // a JSON object
}

// Server is one loopback API. URL is the base URL to give the provider's
// SDK client (and `quiver run --base-url`).
type Server struct {
	URL      string
	provider Provider
	call     Call
	final    string
	cutOff   bool
	d        dialect

	mu       sync.Mutex
	requests []string
	refused  []string
}

// New starts a server for p whose first turn makes call and whose second,
// when the reasoning came back as the API requires, answers final. It is
// closed when the test ends.
func New(t testing.TB, p Provider, call Call, final string) *Server {
	t.Helper()
	return start(t, &Server{provider: p, call: call, final: final})
}

// CutOff starts a server for p that answers every request with a text reply
// cut off by the output token limit.
func CutOff(t testing.TB, p Provider, partial string) *Server {
	t.Helper()
	return start(t, &Server{provider: p, final: partial, cutOff: true})
}

func start(t testing.TB, s *Server) *Server {
	t.Helper()
	s.d = dialects[s.provider]
	if s.d == nil {
		t.Fatalf("drivertest: unknown provider %q", s.provider)
	}
	srv := httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(srv.Close)
	s.URL = srv.URL
	return s
}

// Requests returns the bodies of the requests received so far, in order.
func (s *Server) Requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.requests...)
}

// Refused returns the error bodies the server answered with, in order.
func (s *Server) Refused() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.refused...)
}

var dialects = map[Provider]dialect{Anthropic: anthropicAPI{}, Responses: responsesAPI{}, DeepSeek: deepseekAPI{}, Gemini: geminiAPI{}}

// dialect is one API: how to tell its turns apart, check the rule, and
// write each answer.
type dialect interface {
	// answered reports whether the request already holds the first turn.
	answered(req map[string]any) bool
	// check returns the API's error body when the request (decoded, and as
	// sent) breaks the rule.
	check(req map[string]any, body []byte) string
	first(w *reply, call Call)
	text(w *reply, text string, cut bool)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	s.requests = append(s.requests, string(body))
	s.mu.Unlock()
	var req map[string]any
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, `{"error":{"message":"body is not JSON"}}`, http.StatusBadRequest)
		return
	}
	stream := req["stream"] == true || strings.Contains(r.URL.Path, "streamGenerateContent")
	out := &reply{w: w, stream: stream, provider: s.provider}
	switch {
	case s.cutOff:
		s.d.text(out, s.final, true)
	case !s.d.answered(req):
		s.d.first(out, s.call)
	default:
		if e := s.d.check(req, body); e != "" {
			s.mu.Lock()
			s.refused = append(s.refused, e)
			s.mu.Unlock()
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, e)
			return
		}
		s.d.text(out, s.final, false)
	}
}

// reply writes one answer, whole or as server-sent events.
type reply struct {
	w        http.ResponseWriter
	stream   bool
	provider Provider
	started  bool
}

// whole writes a JSON body.
func (r *reply) whole(body string) {
	r.w.Header().Set("Content-Type", "application/json")
	io.WriteString(r.w, body)
}

// event writes one event: "event:" and "data:" lines for the APIs that name
// their events, a bare "data:" line for the others.
func (r *reply) event(typ, data string) {
	if !r.started {
		r.w.Header().Set("Content-Type", "text/event-stream")
		r.started = true
	}
	switch r.provider {
	case Gemini:
		fmt.Fprintf(r.w, "data: %s\r\n\r\n", data)
	case DeepSeek:
		fmt.Fprintf(r.w, "data: %s\n\n", data)
	default:
		fmt.Fprintf(r.w, "event: %s\ndata: %s\n\n", typ, data)
	}
	if f, ok := r.w.(http.Flusher); ok {
		f.Flush()
	}
}

// quote is s as a JSON string.
func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// list returns the list under key in req, as JSON objects.
func list(req map[string]any, key string) []map[string]any {
	raw, _ := req[key].([]any)
	out := make([]map[string]any, 0, len(raw))
	for _, v := range raw {
		if m, ok := v.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

// chunks splits s into pieces of at most n bytes, as a stream sends text.
func chunks(s string, n int) []string {
	var out []string
	for len(s) > n {
		out = append(out, s[:n])
		s = s[n:]
	}
	return append(out, s)
}
