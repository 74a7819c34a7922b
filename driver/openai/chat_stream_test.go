package openai_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	oai "github.com/openai/openai-go/v3"
	"github.com/quiverkit/quiver/driver"
	"github.com/quiverkit/quiver/driver/openai"
)

type wantCall struct{ ID, Name, Args string }

// How tool-call fragments are grouped into calls, for the shapes servers
// send (the recorded fixtures cover most; these cover the rest).
func TestChatAccumulatorGrouping(t *testing.T) {
	tests := []struct {
		name   string
		chunks []string
		want   []wantCall
		usage  driver.Usage
		stop   driver.StopReason
		errIs  error
	}{
		{"a server that numbers every call 0 still gets one call per id", []string{
			`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"f","arguments":"{\"x\":"}}]}}]}`,
			`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"1}"}}]}}]}`,
			`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"b","function":{"name":"g","arguments":"{}"}}]}}]}`,
			`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
		}, []wantCall{{"a", "f", `{"x":1}`}, {"b", "g", `{}`}}, driver.Usage{}, driver.StopToolCalls, nil},
		{"without index, a fragment without id continues the previous call", []string{
			`{"choices":[{"index":0,"delta":{"tool_calls":[{"id":"a","function":{"name":"f","arguments":"{\"x\""}}]}}]}`,
			`{"choices":[{"index":0,"delta":{"tool_calls":[{"function":{"arguments":":2}"}}]}}]}`,
			`{"choices":[{"index":0,"delta":{"tool_calls":[{"id":"b","function":{"name":"g","arguments":""}}]}}]}`,
			`{"choices":[{"index":0,"delta":{"tool_calls":[{"id":"a","function":{"arguments":""}}]}}]}`,
			`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
		}, []wantCall{{"a", "f", `{"x":2}`}, {"b", "g", `{}`}}, driver.Usage{}, driver.StopToolCalls, nil},
		{"empty ids and names on continuations change nothing; usage after the finish is kept", []string{
			`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":3,"id":"a","function":{"name":"f","arguments":""}}]}}]}`,
			`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":3,"id":"","function":{"name":"","arguments":"{}"}}]}}]}`,
			`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
			`{"choices":[],"usage":{"prompt_tokens":7,"completion_tokens":3,"total_tokens":10}}`,
		}, []wantCall{{"a", "f", `{}`}}, driver.Usage{InputTokens: 7, OutputTokens: 3, TotalTokens: 10}, driver.StopToolCalls, nil},
		{"a call cut by the token limit is refused, never {}", []string{
			`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"f","arguments":"{\"text\":\"lo"}}]}}]}`,
			`{"choices":[{"index":0,"delta":{},"finish_reason":"length"}]}`,
		}, []wantCall{{"a", "f", ""}}, driver.Usage{}, driver.StopLength, driver.ErrInvalidArguments},
		{"a second choice is ignored", []string{
			`{"choices":[{"index":1,"delta":{"content":"other","tool_calls":[{"index":0,"id":"z","function":{"name":"f","arguments":"{}"}}]}},{"index":0,"delta":{"content":"mine"}}]}`,
			`{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`,
		}, nil, driver.Usage{}, driver.StopEnd, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var acc openai.ChatAccumulator
			for _, c := range tt.chunks {
				var chunk oai.ChatCompletionChunk
				if err := json.Unmarshal([]byte(c), &chunk); err != nil {
					t.Fatal(err)
				}
				if err := acc.Add(&chunk, nil); err != nil {
					t.Fatal(err)
				}
			}
			resp, err := acc.Response()
			if !errors.Is(err, tt.errIs) || (err != nil && tt.errIs == nil) {
				t.Fatalf("err = %v, want %v", err, tt.errIs)
			}
			var got []wantCall
			for _, c := range resp.ToolCalls {
				got = append(got, wantCall{c.ID, c.Name, string(c.Arguments)})
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("calls (-want +got):\n%s", d)
			}
			if resp.Usage != tt.usage || resp.StopReason != tt.stop {
				t.Errorf("usage %+v, stop %q", resp.Usage, resp.StopReason)
			}
		})
	}
}
