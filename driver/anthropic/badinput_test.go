package anthropic_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/anthropics/anthropic-sdk-go/option"
	"github.com/quiverkit/quiver/driver"
	"github.com/quiverkit/quiver/driver/anthropic"
	"github.com/quiverkit/quiver/driver/internal/streamtest"
)

const (
	evStart    = `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-test","content":[],"stop_reason":null,"usage":{"input_tokens":10,"output_tokens":1}}}`
	evToolOpen = `{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"weather","input":{}}}`
	evFrag     = `{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"city\": \"Os"}}`
	evToolStop = `{"type":"content_block_stop","index":0}`
	evDelta    = `{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":9}}`
	evStop     = `{"type":"message_stop"}`
)

func events(lines ...string) []byte {
	out := make([][]byte, len(lines))
	for i, l := range lines {
		out[i] = []byte(l)
	}
	return streamtest.TypedSSE(out, "\n")
}

func TestStreamBadInput(t *testing.T) {
	tests := []struct {
		name     string
		reply    streamtest.Reply
		wantResp bool
		errIs    error
		errHas   []string
	}{
		{"a connection cut mid-call is an error", streamtest.Reply{Body: events(evStart, evToolOpen, evFrag), Cut: true}, false, nil,
			[]string{"anthropic stream"}},
		{"a stream that ends without message_stop is truncated, naming the open call", streamtest.Reply{Body: events(evStart, evToolOpen, evFrag)}, false,
			driver.ErrTruncated, []string{`"toolu_1"`, "weather", `{"city": "Os`}},
		{"a malformed JSON event is an error", streamtest.Reply{Body: []byte("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\"\n\n")}, false,
			nil, []string{"anthropic stream"}},
		{"an error event mid-stream is an error carrying its message", streamtest.Reply{Body: []byte(string(events(evStart, evToolOpen)) +
			"event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n")}, false,
			nil, []string{"overloaded_error", "Overloaded"}},
		{"a delta for a block that never started is an error", streamtest.Reply{Body: events(evStart, evFrag)}, false,
			nil, []string{"content block 0"}},
		{"cut-off arguments are refused, never {}", streamtest.Reply{Body: events(evStart, evToolOpen, evFrag, evToolStop, evDelta, evStop)}, true,
			driver.ErrInvalidArguments, []string{`"toolu_1"`, "not valid JSON"}},
		{"arguments that are an array are refused", streamtest.Reply{Body: events(evStart, evToolOpen,
			`{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"[\"Oslo\"]"}}`, evToolStop, evDelta, evStop)}, true,
			driver.ErrInvalidArguments, []string{"JSON array"}},
		{"two tool_use blocks with one id give the response and a duplicate-id error", streamtest.Reply{Body: events(evStart, evToolOpen, evToolStop,
			`{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_1","name":"weather","input":{}}}`,
			`{"type":"content_block_stop","index":1}`, evDelta, evStop)}, true, driver.ErrDuplicateID, []string{`"toolu_1"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := streamtest.NewServer(t, tt.reply)
			s, err := anthropic.New(testClient(srv.URL), "claude-test").Stream(context.Background(), weatherReq)
			if err != nil {
				t.Fatal(err)
			}
			resp, _, err := streamtest.Drain(s)
			streamtest.CheckErr(t, err, tt.errIs, tt.errHas)
			if (resp != nil) != tt.wantResp {
				t.Errorf("response %+v, want one: %v", resp, tt.wantResp)
			}
		})
	}
}

func TestHTTPErrorsUseTheSDKRetries(t *testing.T) {
	overloaded := streamtest.Reply{Status: 529, Header: http.Header{"Retry-After-Ms": {"1"}},
		Body: []byte(`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`)}
	rateLimited := streamtest.Reply{Status: http.StatusTooManyRequests, Header: http.Header{"Retry-After-Ms": {"1"}},
		Body: []byte(`{"type":"error","error":{"type":"rate_limit_error","message":"Number of requests has exceeded your rate limit"}}`)}
	ok := streamtest.Reply{Body: events(evStart, evToolOpen,
		`{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"city\":\"Oslo\"}"}}`, evToolStop, evDelta, evStop)}

	t.Run("429 with one retry allowed fails after two requests, with the API's message", func(t *testing.T) {
		srv := streamtest.NewServer(t, rateLimited)
		_, err := anthropic.New(testClient(srv.URL), "claude-test", anthropic.WithRequestOptions(option.WithMaxRetries(1))).Stream(context.Background(), weatherReq)
		streamtest.CheckErr(t, err, nil, []string{"429", "rate_limit_error"})
		if n := len(srv.Requests()); n != 2 {
			t.Errorf("%d requests, want 2", n)
		}
	})
	t.Run("529 then success is retried and succeeds", func(t *testing.T) {
		srv := streamtest.NewServer(t, overloaded, ok)
		s, err := anthropic.New(testClient(srv.URL, option.WithMaxRetries(1)), "claude-test").Stream(context.Background(), weatherReq)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := driver.Collect(s)
		if err != nil || len(resp.ToolCalls) != 1 || string(resp.ToolCalls[0].Arguments) != `{"city":"Oslo"}` {
			t.Fatalf("resp %+v, err %v", resp, err)
		}
	})
	t.Run("500 on Generate with no retries is an error", func(t *testing.T) {
		srv := streamtest.NewServer(t, streamtest.Reply{Status: 500, Body: []byte(`{"type":"error","error":{"type":"api_error","message":"Internal server error"}}`)})
		_, err := anthropic.New(testClient(srv.URL), "claude-test").Generate(context.Background(), weatherReq)
		streamtest.CheckErr(t, err, nil, []string{"500", "api_error"})
	})
}

func TestStreamStopsAtTheDeadline(t *testing.T) {
	srv := streamtest.NewServer(t, streamtest.Reply{Body: events(evStart, evToolOpen), Hang: true})
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	s, err := anthropic.New(testClient(srv.URL), "claude-test").Stream(ctx, weatherReq)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err = streamtest.Drain(s); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want the deadline", err)
	}
}
