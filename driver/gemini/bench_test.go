package gemini_test

import (
	"fmt"
	"testing"

	"github.com/quiverkit/quiver/driver/gemini"
	"github.com/quiverkit/quiver/driver/internal/streamtest"
	"google.golang.org/genai"
)

// deltaSizes are the stream lengths the accumulator benchmark compares: time
// and allocation per delta should not grow with the stream.
var deltaSizes = []int{1_000, 10_000}

// chunks builds a stream of n deltas as Vertex sends streamed arguments: four
// calls one after another, each opened by name, its values arriving as
// partialArgs — a long string appended fragment by fragment, and array
// elements — and closed by an empty functionCall.
func chunks(n int) []*genai.GenerateContentResponse {
	yes := true
	part := func(fc genai.FunctionCall) *genai.GenerateContentResponse {
		return &genai.GenerateContentResponse{Candidates: []*genai.Candidate{{Content: &genai.Content{Role: genai.RoleModel, Parts: []*genai.Part{{FunctionCall: &fc}}}}}}
	}
	var out []*genai.GenerateContentResponse
	per := n / 4
	for call := 0; call < 4; call++ {
		out = append(out, part(genai.FunctionCall{Name: "write", WillContinue: &yes}))
		for i := 2; i < per; i++ {
			pa := &genai.PartialArg{JsonPath: "$.text", StringValue: `0123456789 "quoted"`, WillContinue: &yes}
			if i%10 == 0 {
				pa = &genai.PartialArg{JsonPath: fmt.Sprintf("$.lines[%d]", i/10), StringValue: "line"}
			}
			out = append(out, part(genai.FunctionCall{WillContinue: &yes, PartialArgs: []*genai.PartialArg{pa}}))
		}
		out = append(out, part(genai.FunctionCall{}))
	}
	return append(out, &genai.GenerateContentResponse{Candidates: []*genai.Candidate{{FinishReason: genai.FinishReasonStop}}})
}

func BenchmarkAccumulate(b *testing.B) {
	for _, n := range deltaSizes {
		b.Run(fmt.Sprintf("deltas=%d", n), func(b *testing.B) {
			stream := chunks(n)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				var acc gemini.Accumulator
				for _, c := range stream {
					acc.Add(c, nil)
				}
				if resp, err := acc.Response(); err != nil || len(resp.ToolCalls) != 4 {
					b.Fatalf("%v %v", resp, err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(stream)), "ns/delta")
		})
	}
}

// Converting a 100-tool catalogue to Gemini function declarations.
func BenchmarkTools100(b *testing.B) { streamtest.BenchTools(b, gemini.Tools) }
