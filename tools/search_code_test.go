package tools_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/quiverkit/quiver"
	"github.com/quiverkit/quiver/tool"
	"github.com/quiverkit/quiver/tools"
)

func TestSearchCodeSmartCase(t *testing.T) {
	dir := writeSearchFixture(t)
	for name, tk := range searchBackends(t, dir) {
		t.Run(name, func(t *testing.T) {
			// Lower case: case-insensitive, so "TODO" is found by "todo".
			got, err := quiver.Call(context.Background(), tk, tools.SearchCode, tools.SearchCodeInput{Query: "todo"})
			if err != nil {
				t.Fatal(err)
			}
			want := []tools.SearchMatch{{Path: "docs/README.md", Line: 3, Snippet: "Call `server.New` to start. TODO: document TLS."}}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("todo (-want +got):\n%s", diff)
			}
			// An upper-case letter makes it exact.
			got, err = quiver.Call(context.Background(), tk, tools.SearchCode, tools.SearchCodeInput{Query: "Todo"})
			if err != nil || len(got) != 0 {
				t.Errorf("Todo: %v %+v, want no match", err, got)
			}
			// The query is literal: "(" is not a regexp group.
			got, err = quiver.Call(context.Background(), tk, tools.SearchCode, tools.SearchCodeInput{Query: "New(addr", FilePattern: "server/*.go"})
			if err != nil || len(got) != 2 {
				t.Errorf("New(addr: %v %+v, want 2 matches", err, got)
			}
		})
	}
}

func TestSearchCodeRefusesBadInput(t *testing.T) {
	dir := writeSearchFixture(t)
	tests := []struct {
		name, args string
		code       tool.Code
		hint       string
	}{
		{"empty query", `{"query":""}`, tool.CodeInvalidArguments, "query"},
		{"bad file pattern", `{"query":"x","filePattern":"[x"}`, tool.CodeInvalidArguments, "filePattern"},
		{"line break in the query", `{"query":"a\nb"}`, tool.CodeInvalidArguments, "field \"query\""},
		{"limit too large", `{"query":"x","limit":5000}`, tool.CodeInvalidArguments, "limit"},
	}
	for name, tk := range searchBackends(t, dir) {
		for _, tt := range tests {
			t.Run(name+" "+tt.name, func(t *testing.T) {
				_, err := tk.Invoke(context.Background(), "search_code", json.RawMessage(tt.args))
				wantCode(t, err, tt.code, tt.hint)
			})
		}
	}
}
