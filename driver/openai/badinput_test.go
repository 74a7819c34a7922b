package openai_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/openai/openai-go/v3/option"
	"github.com/quiverkit/quiver/driver"
	"github.com/quiverkit/quiver/driver/internal/streamtest"
	"github.com/quiverkit/quiver/driver/openai"
)

func chunks(lines ...string) [][]byte {
	out := make([][]byte, len(lines))
	for i, l := range lines {
		out[i] = []byte(l)
	}
	return out
}

const (
	chunkText     = `{"id":"c1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"Let me check."}}]}`
	chunkCallOpen = `{"id":"c1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"weather","arguments":"{\"city\":"}}]}}]}`
	chunkCallRest = `{"id":"c1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"Oslo\"}"}}]}}]}`
	chunkFinish   = `{"id":"c1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`
)

func streamChat(t *testing.T, reply streamtest.Reply, opts ...option.RequestOption) (*driver.Response, []driver.Event, error) {
	t.Helper()
	srv := streamtest.NewServer(t, reply)
	s, err := openai.NewChat(testClient(srv.URL, opts...), "m").Stream(context.Background(), weatherReq)
	if err != nil {
		return nil, nil, err
	}
	return streamtest.Drain(s)
}

func TestChatStreamBadInput(t *testing.T) {
	tests := []struct {
		name     string
		reply    streamtest.Reply
		wantResp bool
		errIs    error
		errHas   []string
	}{
		{
			name:   "a connection cut mid-call is an error",
			reply:  streamtest.Reply{Body: []byte("data: " + chunkText + "\n\ndata: " + chunkCallOpen + "\n\n"), Cut: true},
			errHas: []string{"openai chat stream"},
		},
		{
			name:   "a stream that ends cleanly without finish_reason is truncated, naming the open call",
			reply:  streamtest.Reply{Body: []byte("data: " + chunkText + "\n\ndata: " + chunkCallOpen + "\n\n")},
			errIs:  driver.ErrTruncated,
			errHas: []string{`"call_1"`, "weather", `{"city":`},
		},
		{
			name:   "a malformed JSON chunk is an error",
			reply:  streamtest.Reply{Body: []byte("data: " + chunkText + "\n\ndata: {\"id\":\"c1\",\"choices\":[{\"delta\":{\"content\":\"x\"\n\n")},
			errHas: []string{"openai chat stream"},
		},
		{
			name: "an error event mid-stream is an error carrying the provider's message",
			reply: streamtest.Reply{Body: streamtest.ChatSSE(chunks(chunkText,
				`{"error":{"message":"The server had an error while processing your request.","type":"server_error"}}`), "\n")},
			errHas: []string{"server had an error"},
		},
		{
			name: "two calls with one id give the response and a duplicate-id error",
			reply: streamtest.Reply{Body: streamtest.ChatSSE(chunks(
				`{"id":"c1","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","function":{"name":"weather","arguments":"{}"}}]}}]}`,
				`{"id":"c1","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_1","function":{"name":"weather","arguments":"{}"}}]}}]}`,
				chunkFinish), "\n")},
			wantResp: true,
			errIs:    driver.ErrDuplicateID,
			errHas:   []string{`"call_1"`},
		},
		{
			name: "arguments that are an array or a string are refused, naming each call",
			reply: streamtest.Reply{Body: streamtest.ChatSSE(chunks(
				`{"id":"c1","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_arr","function":{"name":"weather","arguments":"[\"Oslo\"]"}}]}}]}`,
				`{"id":"c1","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_str","function":{"name":"weather","arguments":"\"Oslo\""}}]}}]}`,
				chunkFinish), "\n")},
			wantResp: true,
			errIs:    driver.ErrInvalidArguments,
			errHas:   []string{`"call_arr"`, "JSON array", `"call_str"`, "JSON string"},
		},
		{
			name:     "arguments cut short are refused, never {}",
			reply:    streamtest.Reply{Body: streamtest.ChatSSE(chunks(chunkCallOpen, chunkFinish), "\r\n")},
			wantResp: true,
			errIs:    driver.ErrInvalidArguments,
			errHas:   []string{`"call_1"`, "not valid JSON"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, _, err := streamChat(t, tt.reply)
			streamtest.CheckErr(t, err, tt.errIs, tt.errHas)
			if (resp != nil) != tt.wantResp {
				t.Fatalf("response %+v, want one: %v", resp, tt.wantResp)
			}
			if resp != nil {
				for _, c := range resp.ToolCalls {
					if string(c.Arguments) == "{}" && errors.Is(err, driver.ErrInvalidArguments) {
						t.Errorf("call %s got {} for arguments that did not parse", c.ID)
					}
				}
			}
		})
	}
}

// Calls whose arguments were refused are answered with an error result, not
// run, so the model can try again.
func TestRefusedArgumentsBecomeErrorResults(t *testing.T) {
	resp, _, err := streamChat(t, streamtest.Reply{Body: streamtest.ChatSSE(chunks(
		`{"id":"c1","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_arr","function":{"name":"weather","arguments":"[1]"}}]}}]}`,
		chunkFinish), "\n")})
	if !driver.IsCallError(err) || resp == nil {
		t.Fatalf("resp %v, err %v", resp, err)
	}
	r := driver.UnparsedResult(resp.ToolCalls[0])
	if !r.IsError || r.CallID != "call_arr" || !strings.Contains(r.Text(), "INVALID_TOOL_ARGUMENTS_TYPE") {
		t.Errorf("result %+v", r)
	}
}

func TestResponsesStreamBadInput(t *testing.T) {
	created := `{"type":"response.created","sequence_number":0,"response":{"id":"resp_1","object":"response","status":"in_progress","model":"m","output":[]}}`
	added := `{"type":"response.output_item.added","sequence_number":1,"output_index":0,"item":{"id":"fc_1","type":"function_call","status":"in_progress","arguments":"","call_id":"call_1","name":"weather"}}`
	delta := `{"type":"response.function_call_arguments.delta","sequence_number":2,"output_index":0,"item_id":"fc_1","delta":"{\"city\":"}`
	tests := []struct {
		name   string
		events []string
		errIs  error
		errHas []string
	}{
		{"a stream without response.completed is truncated, naming the call", []string{created, added, delta}, driver.ErrTruncated, []string{`"call_1"`, "weather"}},
		{"an error event is an error carrying its code and message", []string{created, added,
			`{"type":"error","sequence_number":3,"code":"rate_limit_exceeded","message":"Slow down.","param":null}`}, nil, []string{"rate_limit_exceeded", "Slow down."}},
		{"a failed response is an error carrying the API's message", []string{created,
			`{"type":"response.failed","sequence_number":3,"response":{"id":"resp_1","object":"response","status":"failed","model":"m","output":[],"error":{"code":"server_error","message":"Something broke."}}}`},
			nil, []string{"resp_1", "server_error", "Something broke."}},
		{"a delta for an item never added is an error", []string{created,
			`{"type":"response.function_call_arguments.delta","sequence_number":2,"output_index":0,"item_id":"fc_ghost","delta":"{}"}`},
			nil, []string{"fc_ghost"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := streamtest.NewServer(t, streamtest.Reply{Body: streamtest.TypedSSE(chunks(tt.events...), "\n")})
			s, err := openai.NewResponses(testClient(srv.URL), "m").Stream(context.Background(), weatherReq)
			if err != nil {
				t.Fatal(err)
			}
			_, _, err = streamtest.Drain(s)
			streamtest.CheckErr(t, err, tt.errIs, tt.errHas)
		})
	}
}

// HTTP errors come back as errors after the SDK's own retries, which the
// caller configures with the SDK's options.
func TestHTTPErrorsUseTheSDKRetries(t *testing.T) {
	rateLimited := streamtest.Reply{Status: http.StatusTooManyRequests, Header: http.Header{"Retry-After-Ms": {"1"}},
		Body: []byte(`{"error":{"message":"Rate limit reached","type":"rate_limit_exceeded"}}`)}
	serverError := streamtest.Reply{Status: http.StatusInternalServerError, Header: http.Header{"Retry-After-Ms": {"1"}},
		Body: []byte(`{"error":{"message":"boom","type":"server_error"}}`)}
	ok := streamtest.Reply{Body: streamtest.ChatSSE(chunks(chunkText, chunkCallOpen, chunkCallRest, chunkFinish), "\n")}

	t.Run("429 with one retry allowed fails after two requests, saying 429", func(t *testing.T) {
		srv := streamtest.NewServer(t, rateLimited)
		_, err := openai.NewChat(testClient(srv.URL), "m", openai.WithRequestOptions(option.WithMaxRetries(1))).Stream(context.Background(), weatherReq)
		streamtest.CheckErr(t, err, nil, []string{"429", "Rate limit reached"})
		if n := len(srv.Requests()); n != 2 {
			t.Errorf("%d requests, want 2", n)
		}
	})
	t.Run("500 then success is retried and succeeds", func(t *testing.T) {
		srv := streamtest.NewServer(t, serverError, ok)
		s, err := openai.NewChat(testClient(srv.URL, option.WithMaxRetries(2)), "m").Stream(context.Background(), weatherReq)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := driver.Collect(s)
		if err != nil || len(resp.ToolCalls) != 1 || string(resp.ToolCalls[0].Arguments) != `{"city":"Oslo"}` {
			t.Fatalf("resp %+v, err %v", resp, err)
		}
	})
	t.Run("500 on Generate with no retries is an error", func(t *testing.T) {
		srv := streamtest.NewServer(t, serverError)
		_, err := openai.NewResponses(testClient(srv.URL), "m").Generate(context.Background(), weatherReq)
		streamtest.CheckErr(t, err, nil, []string{"500", "boom"})
	})
}

// A server that stops sending mid-stream cannot hold the caller past its
// context's deadline.
func TestStreamStopsAtTheDeadline(t *testing.T) {
	srv := streamtest.NewServer(t, streamtest.Reply{Body: []byte("data: " + chunkCallOpen + "\n\n"), Hang: true})
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	s, err := openai.NewChat(testClient(srv.URL), "m").Stream(ctx, weatherReq)
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = streamtest.Drain(s)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want the deadline", err)
	}
}

// Closing a stream early releases the connection: the server sees the client
// go, and the stream ends.
func TestCloseEarly(t *testing.T) {
	srv := streamtest.NewServer(t, streamtest.Reply{Body: []byte("data: " + chunkText + "\n\n"), Hang: true})
	s, err := openai.NewChat(testClient(srv.URL), "m").Stream(context.Background(), weatherReq)
	if err != nil {
		t.Fatal(err)
	}
	if !s.Next() || s.Event().Delta != "Let me check." {
		t.Fatalf("first event %+v, err %v", s.Event(), s.Err())
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if s.Next() {
		t.Error("Next after Close returned true")
	}
}
