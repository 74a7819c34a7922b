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
	Query      string `json:"query" jsonschema:"the search query; specific words (library, version, exact error text) work best" minLength:"1"`
	MaxResults int    `json:"max_results,omitempty" jsonschema:"the most results to return (default 10)" minimum:"1" maximum:"50"`
}

// WebSearchOutput is web_search's typed output.
type WebSearchOutput struct {
	Query string `json:"query"`
	// Answer is a direct answer ("1 + 1 = 2"), when the backend has one.
	Answer  string            `json:"answer,omitempty"`
	Results []WebSearchResult `json:"results"`
	// Note says what is missing from a partial answer: one DuckDuckGo
	// endpoint failed while the other answered.
	Note string `json:"note,omitempty"`
}

// WebSearchResult is one hit.
type WebSearchResult struct {
	Title   string `json:"title"`
	URL     string `json:"url"`
	Snippet string `json:"snippet"`
}

// Render lists the hits, one numbered block each.
func (o *WebSearchOutput) Render() tool.Result {
	if len(o.Results) == 0 && o.Answer == "" {
		return tool.Text(fmt.Sprintf("No results for %q.", o.Query))
	}
	var b strings.Builder
	if o.Answer != "" {
		fmt.Fprintf(&b, "Answer: %s\n", o.Answer)
	}
	for i, r := range o.Results {
		fmt.Fprintf(&b, "%d. %s\n   %s\n", i+1, r.Title, r.URL)
		if r.Snippet != "" {
			fmt.Fprintf(&b, "   %s\n", r.Snippet)
		}
	}
	if o.Note != "" {
		fmt.Fprintf(&b, "(%s)\n", o.Note)
	}
	return tool.Text(b.String())
}

// WebSearch is a typed reference to web_search, for quiver.Call.
var WebSearch = tool.RefTo[WebSearchInput, *WebSearchOutput]("web_search")

func newWebSearch() *tool.Tool {
	return tool.Func("web_search", webSearchDescription, webSearch, summaryOf("query"),
		tool.InProcess(),
		tool.WithRisk(tool.RiskLow),
		tool.WithAnnotations(tool.Annotations{ReadOnly: true, OpenWorld: true}),
		tool.WithReaches(webSearchReaches))
}

// webSearchReaches names the engine's addresses, with the query in them:
// the query is the data a search sends, and the engine's host is where it
// goes, so the policy decides on those hosts as it decides on web_fetch's.
func webSearchReaches(ctx context.Context, tc tool.Context, in WebSearchInput) ([]tool.Subject, error) {
	cfg, err := tool.Resolve(ctx, tc, WebConfigKey)
	if err != nil {
		return nil, err
	}
	urls, err := searchURLs(cfg, strings.TrimSpace(in.Query))
	if err != nil {
		return nil, err
	}
	subjects := make([]tool.Subject, len(urls))
	for i, u := range urls {
		subjects[i] = tool.Subject{Kind: tool.SubjectURL, Value: u}
	}
	return subjects, nil
}

// searchURLs are the addresses a search for query asks: the operator's
// SearXNG endpoint, or DuckDuckGo's results page and Instant Answer API.
func searchURLs(cfg WebConfig, query string) ([]string, error) {
	if cfg.SearchURL != "" {
		u, err := searchRequestURL(cfg.SearchURL, query)
		if err != nil {
			return nil, tool.Errorf(tool.CodeExecutionFailed, "web_search: [web] search_url %q: %w", cfg.SearchURL, err)
		}
		return []string{u}, nil
	}
	htmlURL, apiURL, err := ddgEndpoints(cfg.DuckDuckGoURL)
	if err != nil {
		return nil, tool.Errorf(tool.CodeExecutionFailed, "web_search: [web] duckduckgo_url: %w", err)
	}
	return []string{ddgPageURL(htmlURL, query), ddgInstantURL(apiURL, query)}, nil
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
	query := strings.TrimSpace(in.Query)
	if query == "" {
		return nil, tool.Errorf(tool.CodeInvalidArguments, "query: must not be blank")
	}
	ctx, cancel, deadline := webDeadline(ctx, "web_search", cfg.Timeout)
	defer cancel()
	gate, err := tool.Resolve(ctx, tc, tool.URLGateKey)
	if err != nil {
		return nil, tool.Errorf(tool.CodeToolNotAllowed, "web_search asks its engine only under the toolkit's URL gate (its policy), and none is provided; nothing was sent")
	}
	search, backend := duckDuckGoSearch, "DuckDuckGo"
	if cfg.SearchURL != "" {
		search, backend = searxSearch, "the search backend"
	}
	out, err := search(ctx, cfg, gate, query)
	if err != nil {
		var te *tool.Error
		switch {
		case errors.As(err, &te):
			return nil, te
		case timedOut(err) || errors.Is(ctx.Err(), context.DeadlineExceeded):
			return nil, webTimeoutError(ctx, "web_search: asking "+backend, cfg, deadline)
		}
		return nil, tool.Errorf(tool.CodeExecutionFailed, "web_search: %w", err)
	}
	limit := in.MaxResults
	if limit <= 0 {
		limit = webSearchDefaultResults
	}
	out.Results = out.Results[:min(limit, len(out.Results))]
	return out, nil
}

// searxSearch asks the operator's SearXNG-compatible endpoint.
func searxSearch(ctx context.Context, cfg WebConfig, gate tool.URLGate, query string) (*WebSearchOutput, error) {
	endpoint, err := searchRequestURL(cfg.SearchURL, query)
	if err != nil {
		return nil, tool.Errorf(tool.CodeExecutionFailed, "web_search: [web] search_url %q: %w", cfg.SearchURL, err)
	}
	body, _, err := getSearch(ctx, endpoint, "application/json", cfg, gate)
	if err != nil {
		return nil, fmt.Errorf("the search backend: %w", err)
	}
	var resp searxResponse
	if err := json.Unmarshal(body, &resp); err != nil {
		return nil, fmt.Errorf("the search backend's answer is not SearXNG JSON ({\"results\":[...]}): %w; it begins %q", err, firstBytes(body))
	}
	out := &WebSearchOutput{Query: query, Results: []WebSearchResult{}}
	for _, r := range resp.Results {
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

// getSearch asks a search backend and returns the body and the status line.
// The operator configured the backend (or left the public DuckDuckGo), so
// it may be on a private network and is not held to web_fetch's address
// check. A status other than 200 is an error quoting the first bytes.
func getSearch(ctx context.Context, endpoint, accept string, cfg WebConfig, gate tool.URLGate) ([]byte, string, error) {
	// The query leaves with the request: the engine's host, and every host
	// it redirects to, are held to the policy as web_fetch's are.
	if err := gate.CheckURL(ctx, endpoint); err != nil {
		return nil, "", err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, endpoint, nil)
	if err != nil {
		return nil, "", err
	}
	req.Header.Set("User-Agent", cfg.UserAgent)
	req.Header.Set("Accept", accept)
	transport := webTransport(cfg, nil)
	transport.Proxy = http.ProxyFromEnvironment
	defer transport.CloseIdleConnections()
	client := &http.Client{Transport: transport, CheckRedirect: func(req *http.Request, via []*http.Request) error {
		if len(via) > webMaxRedirects {
			return fmt.Errorf("stopped after %d redirects", webMaxRedirects)
		}
		return gate.CheckURL(req.Context(), req.URL.String())
	}}
	resp, err := client.Do(req)
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, cfg.MaxBytes))
	if err != nil {
		return nil, resp.Status, fmt.Errorf("reading the answer: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, resp.Status, fmt.Errorf("answered %s: %q", resp.Status, firstBytes(body))
	}
	return body, resp.Status, nil
}
