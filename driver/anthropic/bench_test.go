package anthropic_test

import (
	"encoding/json"
	"fmt"
	"strconv"
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/quiverkit/quiver/driver/anthropic"
	"github.com/quiverkit/quiver/driver/internal/streamtest"
)

// deltaSizes are the stream lengths the accumulator benchmark compares: time
// and allocation per delta should not grow with the stream.
var deltaSizes = []int{1_000, 10_000}

// fragment is the argument text one delta carries: 20 bytes of a string
// value, escaped quotes included.
const fragment = `0123456789 \"quoted\"`

// streamEvents builds a decoded stream of n deltas: a text block, then four
// tool_use blocks whose input arrives in fragments (the first one "", as
// Anthropic sends it), then the message's end.
func streamEvents(b *testing.B, n int) []sdk.MessageStreamEventUnion {
	b.Helper()
	raw := []string{`{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-test","content":[],"usage":{"input_tokens":10,"output_tokens":1}}}`,
		`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`}
	for i := 0; i < 10; i++ {
		raw = append(raw, `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"word "}}`)
	}
	raw = append(raw, `{"type":"content_block_stop","index":0}`)
	per := (n - 10) / 4
	for call := 1; call <= 4; call++ {
		raw = append(raw, fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":{"type":"tool_use","id":"toolu_%d","name":"write","input":{}}}`, call, call),
			fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"input_json_delta","partial_json":""}}`, call),
			fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"input_json_delta","partial_json":"{\"text\":\""}}`, call))
		for i := 3; i < per; i++ {
			raw = append(raw, fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"input_json_delta","partial_json":%s}}`, call, strconv.Quote(fragment)))
		}
		raw = append(raw, fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"input_json_delta","partial_json":"\"}"}}`, call),
			fmt.Sprintf(`{"type":"content_block_stop","index":%d}`, call))
	}
	raw = append(raw, `{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":900}}`, `{"type":"message_stop"}`)
	out := make([]sdk.MessageStreamEventUnion, len(raw))
	for i, r := range raw {
		if err := json.Unmarshal([]byte(r), &out[i]); err != nil {
			b.Fatal(err)
		}
	}
	return out
}

func BenchmarkAccumulate(b *testing.B) {
	for _, n := range deltaSizes {
		b.Run(fmt.Sprintf("deltas=%d", n), func(b *testing.B) {
			events := streamEvents(b, n)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				var acc anthropic.Accumulator
				for i := range events {
					acc.Add(&events[i], nil)
				}
				if resp, err := acc.Response(); err != nil || len(resp.ToolCalls) != 4 {
					b.Fatalf("%v %v", resp, err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(events)), "ns/delta")
		})
	}
}

// Converting a 100-tool catalogue to Anthropic tool params.
func BenchmarkTools100(b *testing.B) { streamtest.BenchTools(b, anthropic.Tools) }
