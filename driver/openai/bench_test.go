package openai_test

import (
	"encoding/json"
	"fmt"
	"strconv"
	"testing"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
	"github.com/quiverkit/quiver/driver/internal/streamtest"
	"github.com/quiverkit/quiver/driver/openai"
)

// deltaSizes are the stream lengths the accumulator benchmarks compare:
// time and allocation per delta should not grow with the stream.
var deltaSizes = []int{1_000, 10_000}

// fragment is the argument text one delta carries: 20 bytes of a string
// value, escaped quotes included.
const fragment = `0123456789 \"quoted\"`

// chatChunks builds a decoded stream of n deltas: a few text deltas, then
// four parallel calls whose arguments arrive in fragments, then the finish.
func chatChunks(b *testing.B, n int) []oai.ChatCompletionChunk {
	b.Helper()
	var raw []string
	for i := 0; i < 10; i++ {
		raw = append(raw, `{"id":"c","model":"m","choices":[{"index":0,"delta":{"content":"word "}}]}`)
	}
	per := (n - 10) / 4
	for call := 0; call < 4; call++ {
		raw = append(raw, fmt.Sprintf(`{"id":"c","model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":%d,"id":"call_%d","type":"function","function":{"name":"write","arguments":"{\"text\":\""}}]}}]}`, call, call))
		for i := 1; i < per-1; i++ {
			raw = append(raw, fmt.Sprintf(`{"id":"c","model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":%d,"function":{"arguments":%s}}]}}]}`, call, strconv.Quote(fragment)))
		}
		raw = append(raw, fmt.Sprintf(`{"id":"c","model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":%d,"function":{"arguments":"\"}"}}]}}]}`, call))
	}
	raw = append(raw, `{"id":"c","model":"m","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`)
	out := make([]oai.ChatCompletionChunk, len(raw))
	for i, r := range raw {
		if err := json.Unmarshal([]byte(r), &out[i]); err != nil {
			b.Fatal(err)
		}
	}
	return out
}

func BenchmarkAccumulateChat(b *testing.B) {
	for _, n := range deltaSizes {
		b.Run(fmt.Sprintf("deltas=%d", n), func(b *testing.B) {
			chunks := chatChunks(b, n)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				var acc openai.ChatAccumulator
				for i := range chunks {
					acc.Add(&chunks[i], nil)
				}
				if resp, err := acc.Response(); err != nil || len(resp.ToolCalls) != 4 {
					b.Fatalf("%v %v", resp, err)
				}
			}
			perDelta(b, len(chunks))
		})
	}
}

func responsesEvents(b *testing.B, n int) []responses.ResponseStreamEventUnion {
	b.Helper()
	raw := []string{`{"type":"response.created","sequence_number":0,"response":{"id":"resp_1","object":"response","status":"in_progress","model":"m","output":[]}}`}
	per := (n - 2) / 4
	for call := 0; call < 4; call++ {
		raw = append(raw, fmt.Sprintf(`{"type":"response.output_item.added","output_index":%d,"item":{"id":"fc_%d","type":"function_call","status":"in_progress","arguments":"","call_id":"call_%d","name":"write"}}`, call, call, call))
		raw = append(raw, fmt.Sprintf(`{"type":"response.function_call_arguments.delta","output_index":%d,"item_id":"fc_%d","delta":"{\"text\":\""}`, call, call))
		for i := 2; i < per-1; i++ {
			raw = append(raw, fmt.Sprintf(`{"type":"response.function_call_arguments.delta","output_index":%d,"item_id":"fc_%d","delta":%s}`, call, call, strconv.Quote(fragment)))
		}
		raw = append(raw, fmt.Sprintf(`{"type":"response.function_call_arguments.delta","output_index":%d,"item_id":"fc_%d","delta":"\"}"}`, call, call))
	}
	raw = append(raw, `{"type":"response.completed","response":{"id":"resp_1","object":"response","status":"completed","model":"m","output":[]}}`)
	out := make([]responses.ResponseStreamEventUnion, len(raw))
	for i, r := range raw {
		if err := json.Unmarshal([]byte(r), &out[i]); err != nil {
			b.Fatal(err)
		}
	}
	return out
}

func BenchmarkAccumulateResponses(b *testing.B) {
	for _, n := range deltaSizes {
		b.Run(fmt.Sprintf("deltas=%d", n), func(b *testing.B) {
			events := responsesEvents(b, n)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				var acc openai.ResponsesAccumulator
				for i := range events {
					acc.Add(&events[i], nil)
				}
				if resp, err := acc.Response(); err != nil || len(resp.ToolCalls) != 4 {
					b.Fatalf("%v %v", resp, err)
				}
			}
			perDelta(b, len(events))
		})
	}
}

// perDelta reports the cost per delta, the figure that must stay flat as
// streams grow.
func perDelta(b *testing.B, deltas int) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(deltas), "ns/delta")
}

// Converting a 100-tool catalogue (half of it strict) to each API's tool
// params.
func BenchmarkTools100(b *testing.B) {
	b.Run("chat", func(b *testing.B) { streamtest.BenchTools(b, openai.ChatTools) })
	b.Run("responses", func(b *testing.B) { streamtest.BenchTools(b, openai.ResponsesTools) })
}
