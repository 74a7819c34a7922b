package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/quiverkit/quiver/tool"
	"github.com/quiverkit/quiver/tool/tooltest"
)

// searxServer answers like SearXNG's /search?format=json: three hits, one
// without a URL (which web_search drops), and it records the query it got.
func searxServer(t *testing.T, got *[]string) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		*got = append(*got, r.URL.RawQuery)
		switch r.URL.Query().Get("q") {
		case "broken":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `<html>not json</html>`)
			return
		case "overloaded":
			http.Error(w, "too many requests", http.StatusTooManyRequests)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"query": r.URL.Query().Get("q"),
			"results": []map[string]any{
				{"title": " Go 1.26 Release Notes ", "url": "https://go.dev/doc/go1.26", "content": "Go 1.26 is out.", "engine": "ddg", "score": 3.1},
				{"title": "no url", "content": "dropped"},
				{"title": "os.Root", "url": "https://pkg.go.dev/os#Root", "content": ""},
			},
			"number_of_results": 2,
		})
	}))
	t.Cleanup(srv.Close)
	return srv
}

func webSearchCall(t *testing.T, cfg WebConfig, args string) (*WebSearchOutput, error) {
	t.Helper()
	ws := newWebSearch()
	raw, err := tooltest.Validate(ws, args)
	if err != nil {
		return nil, err
	}
	scope := tool.NewScope(nil, webScope(cfg))
	defer scope.Close()
	scope.Provide(tool.URLGateKey.ID, allowAllURLs)
	res, err := ws.Execute(context.Background(), tool.NewContext("call_test", ws.Name, nil, scope), raw)
	if err != nil {
		return nil, err
	}
	return res.Output.(*WebSearchOutput), nil
}

func TestWebSearch(t *testing.T) {
	var queries []string
	srv := searxServer(t, &queries)
	cfg := WebConfig{SearchURL: srv.URL + "/search?language=en"}

	got, err := webSearchCall(t, cfg, `{"query": "go 1.26 & os.Root"}`)
	if err != nil {
		t.Fatal(err)
	}
	want := &WebSearchOutput{Query: "go 1.26 & os.Root", Results: []WebSearchResult{
		{Title: "Go 1.26 Release Notes", URL: "https://go.dev/doc/go1.26", Snippet: "Go 1.26 is out."},
		{Title: "os.Root", URL: "https://pkg.go.dev/os#Root"},
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("output (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"format=json&language=en&q=go+1.26+%26+os.Root"}, queries); diff != "" {
		t.Errorf("the backend's queries (-want +got):\n%s", diff)
	}
	wantView := "1. Go 1.26 Release Notes\n   https://go.dev/doc/go1.26\n   Go 1.26 is out.\n2. os.Root\n   https://pkg.go.dev/os#Root\n"
	if diff := cmp.Diff(wantView, got.Render().String()); diff != "" {
		t.Errorf("view (-want +got):\n%s", diff)
	}

	got, err = webSearchCall(t, cfg, `{"query": "os.Root", "max_results": 1}`)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Results) != 1 || got.Results[0].URL != "https://go.dev/doc/go1.26" {
		t.Errorf("max_results 1: %+v", got.Results)
	}
}

func TestWebSearchErrors(t *testing.T) {
	var queries []string
	srv := searxServer(t, &queries)
	cfg := WebConfig{SearchURL: srv.URL + "/search"}
	tests := []struct {
		name  string
		cfg   WebConfig
		args  string
		code  tool.Code
		hints []string
	}{
		{"an answer that is not JSON is named, with its first bytes", cfg, `{"query": "broken"}`,
			tool.CodeExecutionFailed, []string{"not SearXNG JSON", `it begins "<html>not json</html>"`}},
		{"an HTTP error carries the backend's status", cfg, `{"query": "overloaded"}`,
			tool.CodeExecutionFailed, []string{"429 Too Many Requests", "too many requests"}},
		{"a blank query is refused", cfg, `{"query": "   "}`, tool.CodeInvalidArguments, []string{"query"}},
		{"an empty query is refused by the schema", cfg, `{"query": ""}`, tool.CodeInvalidArguments, []string{"query"}},
		{"a search_url with another scheme is named", WebConfig{SearchURL: "ftp://x/"}, `{"query": "x"}`,
			tool.CodeExecutionFailed, []string{`scheme "ftp"`}},
		{"a duckduckgo_url with another scheme is named", WebConfig{DuckDuckGoURL: "file:///etc"}, `{"query": "x"}`,
			tool.CodeExecutionFailed, []string{"duckduckgo_url", "file:///etc"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := webSearchCall(t, tt.cfg, tt.args)
			wantToolError(t, err, tt.code, tt.hints...)
		})
	}
}
