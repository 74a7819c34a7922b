package gemini

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/quiverkit/quiver/driver"
	"google.golang.org/genai"
)

func TestParsePath(t *testing.T) {
	tests := []struct {
		path string
		want []segment
		err  string
	}{
		{"$.location", []segment{{key: "location", index: -1}}, ""},
		{"$.recipe.ingredients[3].name", []segment{{key: "recipe", index: -1}, {key: "ingredients", index: -1}, {index: 3}, {key: "name", index: -1}}, ""},
		{"$['odd key'].x", []segment{{key: "odd key", index: -1}, {key: "x", index: -1}}, ""},
		{`$["a.b"][0][1]`, []segment{{key: "a.b", index: -1}, {index: 0}, {index: 1}}, ""},
		{"$.ünïcödé", []segment{{key: "ünïcödé", index: -1}}, ""},
		{"location", nil, "does not start with $"},
		{"$", nil, "names the arguments object itself"},
		{"$.", nil, "empty member name"},
		{"$.a[", nil, "unclosed ["},
		{"$.a[-1]", nil, "bad index"},
		{"$.a[99999999]", nil, "bad index"},
		{"$.a[x]", nil, "bad index"},
		{"$a", nil, "unexpected"},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			got, err := parsePath(tt.path)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, got, cmp.AllowUnexported(segment{})); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

func str(s string, more bool) *genai.PartialArg {
	return &genai.PartialArg{StringValue: s, WillContinue: &more}
}

func at(path string, pa *genai.PartialArg) *genai.PartialArg { pa.JsonPath = path; return pa }

func fcPart(fc genai.FunctionCall) *genai.Part { return &genai.Part{FunctionCall: &fc} }

func chunk(finish genai.FinishReason, parts ...*genai.Part) *genai.GenerateContentResponse {
	return &genai.GenerateContentResponse{Candidates: []*genai.Candidate{{FinishReason: finish, Content: &genai.Content{Role: genai.RoleModel, Parts: parts}}}}
}

var yes, no = true, false

// Streamed arguments: every kind of value, array holes, strings spread over
// chunks, numbers written so they decode into Go ints.
func TestPartialArgs(t *testing.T) {
	one, big, frac := 1e6, 12345678901.0, 0.25
	var a Accumulator
	chunks := []*genai.GenerateContentResponse{
		chunk("", fcPart(genai.FunctionCall{Name: "plan", WillContinue: &yes})),
		chunk("", fcPart(genai.FunctionCall{WillContinue: &yes, PartialArgs: []*genai.PartialArg{
			at("$.title", str("Crème ", true)),
		}})),
		chunk("", fcPart(genai.FunctionCall{WillContinue: &yes, PartialArgs: []*genai.PartialArg{
			at("$.title", str("brûlée", true)), at("$.title", str("", false)),
			at("$.n", &genai.PartialArg{NumberValue: &one}), at("$.big", &genai.PartialArg{NumberValue: &big}),
			at("$.f", &genai.PartialArg{NumberValue: &frac}), at("$.ok", &genai.PartialArg{BoolValue: &no}),
			at("$.none", &genai.PartialArg{NULLValue: "NULL_VALUE"}), at("$.steps[2]", str("third", false)),
			at("$['a b'].c", str("x", false)),
		}})),
		chunk("", fcPart(genai.FunctionCall{})),
		chunk(genai.FinishReasonStop),
	}
	for _, c := range chunks {
		if err := a.Add(c, nil); err != nil {
			t.Fatal(err)
		}
	}
	resp, err := a.Response()
	if err != nil {
		t.Fatal(err)
	}
	want := `{"title":"Crème brûlée","n":1000000,"big":12345678901,"f":0.25,"ok":false,"none":null,"steps":[null,null,"third"],"a b":{"c":"x"}}`
	if got := string(resp.ToolCalls[0].Arguments); got != want {
		t.Errorf("arguments\n got %s\nwant %s", got, want)
	}
	var into struct{ N, Big int64 }
	if err := json.Unmarshal(resp.ToolCalls[0].Arguments, &into); err != nil || into.N != 1000000 {
		t.Errorf("numbers do not decode into ints: %v %+v", err, into)
	}
}

func TestStreamedCallEdges(t *testing.T) {
	tests := []struct {
		name     string
		chunks   []*genai.GenerateContentResponse
		wantArgs []string
		addErr   string
		respErr  error
	}{
		{"a new named call ends one left open", []*genai.GenerateContentResponse{
			chunk("", fcPart(genai.FunctionCall{Name: "a", WillContinue: &yes, PartialArgs: []*genai.PartialArg{at("$.x", str("1", false))}})),
			chunk("", fcPart(genai.FunctionCall{Name: "b", Args: map[string]any{"y": "2"}})),
			chunk(genai.FinishReasonStop),
		}, []string{`{"x":"1"}`, `{"y":"2"}`}, "", nil},
		{"a call still open at the finish reason ends there", []*genai.GenerateContentResponse{
			chunk("", fcPart(genai.FunctionCall{Name: "a", WillContinue: &yes, PartialArgs: []*genai.PartialArg{at("$.x", str("1", false))}})),
			chunk(genai.FinishReasonStop, fcPart(genai.FunctionCall{WillContinue: &yes})),
		}, []string{`{"x":"1"}`}, "", nil},
		{"a streamed call with no values is {}", []*genai.GenerateContentResponse{
			chunk("", fcPart(genai.FunctionCall{Name: "a", WillContinue: &yes}), fcPart(genai.FunctionCall{})),
			chunk(genai.FinishReasonStop),
		}, []string{`{}`}, "", nil},
		{"values with no call open are an error", []*genai.GenerateContentResponse{
			chunk("", fcPart(genai.FunctionCall{PartialArgs: []*genai.PartialArg{at("$.x", str("1", false))}})),
		}, nil, "no call open", nil},
		{"a path through a string is refused, naming the call", []*genai.GenerateContentResponse{
			chunk("", fcPart(genai.FunctionCall{Name: "a", PartialArgs: []*genai.PartialArg{at("$.x", str("s", false)), at("$.x.y", str("t", false))}})),
			chunk(genai.FinishReasonStop),
		}, []string{""}, "", driver.ErrInvalidArguments},
		{"a bad path is refused", []*genai.GenerateContentResponse{
			chunk("", fcPart(genai.FunctionCall{Name: "a", PartialArgs: []*genai.PartialArg{at("x", str("s", false))}})),
			chunk(genai.FinishReasonStop),
		}, []string{""}, "", driver.ErrInvalidArguments},
		{"no finish reason is truncated", []*genai.GenerateContentResponse{
			chunk("", fcPart(genai.FunctionCall{Name: "a", WillContinue: &yes})),
		}, nil, "", driver.ErrTruncated},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var a Accumulator
			for _, c := range tt.chunks {
				if err := a.Add(c, nil); err != nil {
					if tt.addErr == "" || !strings.Contains(err.Error(), tt.addErr) {
						t.Fatalf("Add: %v", err)
					}
					return
				}
			}
			if tt.addErr != "" {
				t.Fatalf("no error, want %q", tt.addErr)
			}
			resp, err := a.Response()
			if !errors.Is(err, tt.respErr) {
				t.Fatalf("err = %v, want %v", err, tt.respErr)
			}
			if resp == nil {
				return
			}
			var got []string
			for _, c := range resp.ToolCalls {
				got = append(got, string(c.Arguments))
			}
			if d := cmp.Diff(tt.wantArgs, got); d != "" {
				t.Errorf("arguments (-want +got):\n%s", d)
			}
		})
	}
}

// FuzzPartialArgs: any sequence of paths and values gives either arguments
// that are a JSON object or an error naming the call; never a panic.
func FuzzPartialArgs(f *testing.F) {
	f.Fuzz(func(t *testing.T, p1, v1, p2, v2 string, cont bool) {
		var a Accumulator
		err := a.Add(chunk(genai.FinishReasonStop, fcPart(genai.FunctionCall{Name: "f", PartialArgs: []*genai.PartialArg{
			at(p1, str(v1, cont)), at(p2, str(v2, false)),
		}})), nil)
		if err != nil {
			t.Fatalf("Add: %v", err)
		}
		resp, err := a.Response()
		if err != nil {
			var ce *driver.CallError
			if !errors.As(err, &ce) || ce.Name != "f" {
				t.Fatalf("error %v does not name the call", err)
			}
			return
		}
		var obj map[string]any
		if err := json.Unmarshal(resp.ToolCalls[0].Arguments, &obj); err != nil || obj == nil {
			t.Fatalf("arguments %s are not an object: %v", resp.ToolCalls[0].Arguments, err)
		}
	})
}
