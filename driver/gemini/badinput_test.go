package gemini_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/quiverkit/quiver/driver"
	"github.com/quiverkit/quiver/driver/gemini"
	"github.com/quiverkit/quiver/driver/internal/streamtest"
	"google.golang.org/genai"
)

const (
	chOpen  = `{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"weather","willContinue":true}}]}}]}`
	chValue = `{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.city","stringValue":"Os","willContinue":true}],"willContinue":true}}]}}]}`
	chWhole = `{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"id":"c1","name":"weather","args":{"city":"Oslo"}}}]}}]}`
	chStop  = `{"candidates":[{"content":{"role":"model","parts":[{"text":""}]},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":5,"totalTokenCount":9}}`
)

func sse(lines ...string) []byte {
	out := make([][]byte, len(lines))
	for i, l := range lines {
		out[i] = []byte(l)
	}
	return streamtest.GeminiSSE(out)
}

func TestStreamBadInput(t *testing.T) {
	tests := []struct {
		name     string
		reply    streamtest.Reply
		wantResp bool
		errIs    error
		errHas   []string
	}{
		{"a connection cut mid-call is an error", streamtest.Reply{Body: sse(chOpen, chValue), Cut: true}, false, nil, []string{"gemini stream"}},
		{"a stream that ends without a finish reason is truncated, naming the open call", streamtest.Reply{Body: sse(chOpen, chValue)}, false,
			driver.ErrTruncated, []string{"weather"}},
		{"a malformed JSON chunk is an error", streamtest.Reply{Body: []byte("data: " + chOpen + "\r\n\r\ndata: {\"candidates\":[{\r\n\r\n")}, false,
			nil, []string{"gemini stream"}},
		{"an error chunk mid-stream is an error carrying its message", streamtest.Reply{Body: sse(chOpen,
			`{"error":{"code":503,"message":"The model is overloaded. Please try again later.","status":"UNAVAILABLE"}}`)}, false,
			nil, []string{"overloaded", "UNAVAILABLE"}},
		{"two calls with one id give the response and a duplicate-id error", streamtest.Reply{Body: sse(chWhole, chWhole, chStop)}, true,
			driver.ErrDuplicateID, []string{`"c1"`}},
		{"values with no call open are an error", streamtest.Reply{Body: sse(chValue, chStop)}, false, nil, []string{"no call open"}},
		{"a malformed function call reported by the model is an error", streamtest.Reply{Body: sse(
			`{"candidates":[{"content":{"role":"model","parts":[{"text":""}]},"finishReason":"MALFORMED_FUNCTION_CALL","finishMessage":"Malformed function call: print(weather(city=Oslo"}]}`)},
			false, nil, []string{"malformed function call"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := streamtest.NewServer(t, tt.reply)
			s, err := gemini.New(testClient(t, srv.URL), "gemini-test").Stream(context.Background(), weatherReq)
			var resp *driver.Response
			if err == nil {
				resp, _, err = streamtest.Drain(s)
			}
			streamtest.CheckErr(t, err, tt.errIs, tt.errHas)
			if (resp != nil) != tt.wantResp {
				t.Errorf("response %+v, want one: %v", resp, tt.wantResp)
			}
		})
	}
}

func retryClient(t *testing.T, url string, attempts int32) *genai.Client {
	t.Helper()
	c, err := genai.NewClient(context.Background(), &genai.ClientConfig{APIKey: "k", Backend: genai.BackendGeminiAPI,
		HTTPOptions: genai.HTTPOptions{BaseURL: url, RetryOptions: &genai.HTTPRetryOptions{
			Attempts: genai.Ptr(attempts), InitialDelay: genai.Ptr(0.001), MaxDelay: genai.Ptr(0.01), Jitter: genai.Ptr(0.0),
		}}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestHTTPErrorsUseTheSDKRetries(t *testing.T) {
	rateLimited := streamtest.Reply{Status: http.StatusTooManyRequests,
		Body: []byte(`{"error":{"code":429,"message":"Resource has been exhausted (e.g. check quota).","status":"RESOURCE_EXHAUSTED"}}`)}
	serverError := streamtest.Reply{Status: http.StatusInternalServerError, Body: []byte(`{"error":{"code":500,"message":"Internal error encountered.","status":"INTERNAL"}}`)}

	t.Run("429 with two attempts fails after two requests, with the API's message", func(t *testing.T) {
		srv := streamtest.NewServer(t, rateLimited)
		_, err := gemini.New(retryClient(t, srv.URL, 2), "gemini-test").Stream(context.Background(), weatherReq)
		streamtest.CheckErr(t, err, nil, []string{"429", "RESOURCE_EXHAUSTED"})
		if n := len(srv.Requests()); n != 2 {
			t.Errorf("%d requests, want 2", n)
		}
	})
	t.Run("500 then success is retried and succeeds", func(t *testing.T) {
		srv := streamtest.NewServer(t, serverError, streamtest.Reply{Body: sse(chWhole, chStop)})
		s, err := gemini.New(retryClient(t, srv.URL, 3), "gemini-test").Stream(context.Background(), weatherReq)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := driver.Collect(s)
		if err != nil || len(resp.ToolCalls) != 1 || string(resp.ToolCalls[0].Arguments) != `{"city":"Oslo"}` {
			t.Fatalf("resp %+v, err %v", resp, err)
		}
	})
	t.Run("retry options set per model through the config template", func(t *testing.T) {
		srv := streamtest.NewServer(t, serverError)
		cfg := genai.GenerateContentConfig{HTTPOptions: &genai.HTTPOptions{RetryOptions: &genai.HTTPRetryOptions{Attempts: genai.Ptr[int32](3), InitialDelay: genai.Ptr(0.001), Jitter: genai.Ptr(0.0)}}}
		_, err := gemini.New(testClient(t, srv.URL), "gemini-test", gemini.WithConfig(cfg)).Generate(context.Background(), weatherReq)
		streamtest.CheckErr(t, err, nil, []string{"500", "INTERNAL"})
		if n := len(srv.Requests()); n != 3 {
			t.Errorf("%d requests, want 3", n)
		}
	})
}

func TestStreamStopsAtTheDeadline(t *testing.T) {
	srv := streamtest.NewServer(t, streamtest.Reply{Body: sse(chOpen), Hang: true})
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	s, err := gemini.New(testClient(t, srv.URL), "gemini-test").Stream(ctx, weatherReq)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err = streamtest.Drain(s); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want the deadline", err)
	}
}
