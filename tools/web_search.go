package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/quiverkit/quiver/tool"
)

//go:embed web_search.md
var webSearchDescription string

// webSearchDefaultResults is max_results' default.
const webSearchDefaultResults = 10

// WebSearchInput is web_search's input.
type WebSearchInput struct {
	Query      string `json:"query" jsonschema:"the search query" minLength:"1"`
	MaxResults int    `json:"max_results,omitempty" jsonschema:"the most results to return (default 10)" minimum:"1" maximum:"50"`
}

// WebSearchOutput is web_search's typed output.
type WebSearchOutput struct {
	Query   string            `json:"query"`
	Results []WebSearchResult `json:"results"`
}

// WebSearchResult is one hit.
type WebSearchResult struct {
	Title   string `json:"title"`
	URL     string `json:"url"`
	Snippet string `json:"snippet"`
}

// Render lists the hits, one numbered block each.
func (o *WebSearchOutput) Render() tool.Result {
	if len(o.Results) == 0 {
		return tool.Text(fmt.Sprintf("No results for %q.", o.Query))
	}
	var b strings.Builder
	for i, r := range o.Results {
		fmt.Fprintf(&b, "%d. %s\n   %s\n", i+1, r.Title, r.URL)
		if r.Snippet != "" {
			fmt.Fprintf(&b, "   %s\n", r.Snippet)
		}
	}
	return tool.Text(b.String())
}

// WebSearch is a typed reference to web_search, for quiver.Call.
var WebSearch = tool.RefTo[WebSearchInput, *WebSearchOutput]("web_search")

func init() { register(newWebSearch) }

func newWebSearch() *tool.Tool {
	return tool.Func("web_search", webSearchDescription, webSearch,
		tool.WithRisk(tool.RiskLow),
		tool.WithAnnotations(tool.Annotations{ReadOnly: true, OpenWorld: true}))
}

// searxResponse is the part of a SearXNG JSON answer web_search reads.
type searxResponse struct {
	Results []struct {
		Title   string `json:"title"`
		URL     string `json:"url"`
		Content string `json:"content"`
	} `json:"results"`
}

func webSearch(ctx context.Context, tc tool.Context, in WebSearchInput) (*WebSearchOutput, error) {
	cfg, err := tool.Resolve(ctx, tc, WebConfigKey)
	if err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	if cfg.SearchURL == "" {
		return nil, tool.Errorf(tool.CodeExecutionFailed,
			"web_search has no search backend configured: the operator must set [web] search_url in quiver.toml to a SearXNG-compatible JSON endpoint (e.g. \"http://localhost:8888/search\"); until then, use web_fetch on URLs you already know")
	}
	query := strings.TrimSpace(in.Query)
	if query == "" {
		return nil, tool.Errorf(tool.CodeInvalidArguments, "query: must not be blank")
	}
	endpoint, err := searchRequestURL(cfg.SearchURL, query)
	if err != nil {
		return nil, tool.Errorf(tool.CodeExecutionFailed, "web_search: [web] search_url %q: %v", cfg.SearchURL, err)
	}
	ctx, cancel, deadline := webDeadline(ctx, "web_search", cfg.Timeout)
	defer cancel()
	body, err := getSearch(ctx, endpoint, cfg)
	if err != nil {
		if timedOut(err) || errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, webTimeoutError(ctx, "web_search: asking the search backend", cfg, deadline)
		}
		return nil, tool.Errorf(tool.CodeExecutionFailed, "web_search: %v", err)
	}
	var resp searxResponse
	if err := json.Unmarshal(body, &resp); err != nil {
		return nil, tool.Errorf(tool.CodeExecutionFailed, "web_search: the search backend's answer is not SearXNG JSON ({\"results\":[...]}): %v", err)
	}
	limit := in.MaxResults
	if limit <= 0 {
		limit = webSearchDefaultResults
	}
	out := &WebSearchOutput{Query: query, Results: []WebSearchResult{}}
	for _, r := range resp.Results {
		if len(out.Results) == limit {
			break
		}
		if r.URL == "" {
			continue
		}
		out.Results = append(out.Results, WebSearchResult{Title: strings.TrimSpace(r.Title), URL: r.URL, Snippet: strings.TrimSpace(r.Content)})
	}
	return out, nil
}

// searchRequestURL adds q and format=json to the configured endpoint,
// keeping any parameters it already has (engines, language...).
func searchRequestURL(base, query string) (string, error) {
	u, err := url.Parse(base)
	if err != nil {
		return "", err
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", fmt.Errorf("scheme %q, want http or https", u.Scheme)
	}
	q := u.Query()
	q.Set("q", query)
	q.Set("format", "json")
	u.RawQuery = q.Encode()
	return u.String(), nil
}

// getSearch asks the backend; the operator configured it, so it may be on
// a private network and is not held to web_fetch's address check.
func getSearch(ctx context.Context, endpoint string, cfg WebConfig) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, endpoint, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("User-Agent", cfg.UserAgent)
	req.Header.Set("Accept", "application/json")
	transport := webTransport(cfg, nil)
	transport.Proxy = http.ProxyFromEnvironment
	defer transport.CloseIdleConnections()
	resp, err := (&http.Client{Transport: transport}).Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, cfg.MaxBytes))
	if err != nil {
		return nil, fmt.Errorf("reading the answer: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("the search backend answered %s: %.200s", resp.Status, body)
	}
	return body, nil
}
