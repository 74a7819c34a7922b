package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"

	"golang.org/x/net/html"

	"github.com/quiverkit/quiver/tool"
)

// DuckDuckGo is web_search's backend when the operator has set no
// SearchURL: it needs no key and no account, as the plugin tool system's
// specification promises. It offers no official web-results API, so
// web_search asks two endpoints at once and merges them:
//
//   - the Instant Answer API (BASE/?q=QUERY&format=json), which the
//     specification names: an answer, an abstract, a definition, official
//     sites and related topics, but for most queries nothing at all;
//   - the HTML results page (BASE/html/?q=QUERY), which has the real web
//     results, each a result__a link (through a /l/?uddg= redirect) and a
//     result__snippet.
//
// The answer and the abstract come first, then the web results, then the
// related topics; a URL appears once. A page that yields no result and
// does not say "No results" is an error quoting its status and first bytes
// (DuckDuckGo answers suspected robots with a 202 challenge page), never an
// empty list that would tell the model the web has nothing.

// ddgDefaultHTML and ddgDefaultAPI are the public service's two endpoints;
// WebConfig.DuckDuckGoURL replaces both origins with one.
const (
	ddgDefaultHTML = "https://html.duckduckgo.com/html/"
	ddgDefaultAPI  = "https://api.duckduckgo.com/"
)

// ddgEndpoints returns the HTML page's and the Instant Answer API's
// addresses for base (empty: the public service).
func ddgEndpoints(base string) (htmlURL, apiURL string, err error) {
	if base == "" {
		return ddgDefaultHTML, ddgDefaultAPI, nil
	}
	u, err := url.Parse(base)
	if err != nil {
		return "", "", err
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return "", "", fmt.Errorf("want an http or https URL with a host, got %q", base)
	}
	u.RawQuery, u.Fragment = "", ""
	root := strings.TrimSuffix(u.String(), "/")
	return root + "/html/", root + "/", nil
}

// ddgPageURL is the results page's address for query.
func ddgPageURL(endpoint, query string) string {
	return endpoint + "?" + url.Values{"q": {query}}.Encode()
}

// ddgInstantURL is the Instant Answer API's address for query.
func ddgInstantURL(endpoint, query string) string {
	q := url.Values{"q": {query}, "format": {"json"}, "no_html": {"1"}, "no_redirect": {"1"}, "skip_disambig": {"1"}}
	return endpoint + "?" + q.Encode()
}

// ddgAnswer is one endpoint's share of the merged answer.
type ddgAnswer struct {
	answer   string            // a direct answer ("1 + 1 = 2"), Instant Answer only
	first    []WebSearchResult // ahead of the web results: abstract, definition, official sites
	results  []WebSearchResult // web results, HTML page only
	related  []WebSearchResult // after the web results: related topics
	noResult bool              // the page said so itself: an honest empty answer
	err      error
}

func duckDuckGoSearch(ctx context.Context, cfg WebConfig, gate tool.URLGate, query string) (*WebSearchOutput, error) {
	htmlURL, apiURL, err := ddgEndpoints(cfg.DuckDuckGoURL)
	if err != nil {
		return nil, fmt.Errorf("[web] duckduckgo_url: %w", err)
	}
	var page, instant ddgAnswer
	var wg sync.WaitGroup
	wg.Go(func() { page = ddgResultsPage(ctx, cfg, gate, htmlURL, query) })
	wg.Go(func() { instant = ddgInstantAnswer(ctx, cfg, gate, apiURL, query) })
	wg.Wait()
	return mergeDuckDuckGo(query, page, instant)
}

// mergeDuckDuckGo orders the two answers and decides what an empty one
// means: both failing is an error, one failing while the other has
// something is a note beside the results.
func mergeDuckDuckGo(query string, page, instant ddgAnswer) (*WebSearchOutput, error) {
	if page.err != nil && instant.err != nil {
		return nil, errors.Join(page.err, instant.err)
	}
	out := &WebSearchOutput{Query: query, Answer: instant.answer, Results: []WebSearchResult{}}
	seen := map[string]bool{}
	for _, group := range [][]WebSearchResult{instant.first, page.results, instant.related} {
		for _, r := range group {
			if r.URL == "" || seen[r.URL] {
				continue
			}
			seen[r.URL] = true
			out.Results = append(out.Results, r)
		}
	}
	switch {
	case page.err != nil && len(out.Results) == 0 && out.Answer == "":
		return nil, page.err
	case page.err != nil:
		out.Note = "only DuckDuckGo's instant answers are shown; its web results failed: " + page.err.Error()
	case instant.err != nil:
		out.Note = "DuckDuckGo's instant answers are missing: " + instant.err.Error()
	}
	return out, nil
}

// ddgResultsPage asks the HTML results page and parses it.
func ddgResultsPage(ctx context.Context, cfg WebConfig, gate tool.URLGate, endpoint, query string) ddgAnswer {
	body, status, err := getSearch(ctx, ddgPageURL(endpoint, query), "text/html", cfg, gate)
	if err != nil {
		return ddgAnswer{err: fmt.Errorf("DuckDuckGo's results page: %w", err)}
	}
	results, noResult, err := parseDuckDuckGoHTML(body)
	if err == nil && len(results) == 0 && !noResult {
		err = errors.New("no result and no \"No results\" notice")
	}
	if err != nil {
		return ddgAnswer{err: fmt.Errorf("DuckDuckGo's results page (%s) parsed to nothing: %w; it begins %q", status, err, firstBytes(body))}
	}
	return ddgAnswer{results: results, noResult: noResult}
}

// firstBytes is the start of an answer, for an error message.
func firstBytes(body []byte) string {
	const n = 200
	body = bytes.TrimSpace(body)
	if len(body) > n {
		return string(body[:n]) + "..."
	}
	return string(body)
}

// parseDuckDuckGoHTML reads the results of an html.duckduckgo.com page:
// every element of class "result" that is not an ad, its result__a link
// (title and target) and its result__snippet. noResult reports the page's
// own "No results." notice.
func parseDuckDuckGoHTML(page []byte) (results []WebSearchResult, noResult bool, err error) {
	doc, err := html.Parse(bytes.NewReader(page))
	if err != nil {
		return nil, false, err
	}
	for n := range doc.Descendants() {
		if n.Type != html.ElementNode {
			continue
		}
		switch {
		case hasClass(n, "no-results"):
			noResult = true
		case hasClass(n, "result") && !hasClass(n, "result--ad"):
			if r, ok := ddgResult(n); ok {
				results = append(results, r)
			}
		}
	}
	return results, noResult, nil
}

// ddgResult reads one result block; ok is false for a block without a
// usable link (an ad, a malformed block).
func ddgResult(block *html.Node) (WebSearchResult, bool) {
	var r WebSearchResult
	for n := range block.Descendants() {
		if n.Type != html.ElementNode {
			continue
		}
		switch {
		case r.URL == "" && hasClass(n, "result__a"):
			target, ok := ddgTarget(attr(n, "href"))
			if !ok {
				return r, false
			}
			r.URL, r.Title = target, nodeText(n)
		case r.Snippet == "" && hasClass(n, "result__snippet"):
			r.Snippet = nodeText(n)
		}
	}
	return r, r.URL != ""
}

// ddgTarget turns a result link into the page it leads to: DuckDuckGo's
// redirect (//duckduckgo.com/l/?uddg=TARGET) is unwrapped; its ad links
// (/y.js) and anything that is not http or https are refused.
func ddgTarget(href string) (string, bool) {
	u, err := url.Parse(href)
	if err != nil {
		return "", false
	}
	if u.Path == "/l/" || u.Path == "/l" {
		if u, err = url.Parse(u.Query().Get("uddg")); err != nil {
			return "", false
		}
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" || strings.HasPrefix(u.Path, "/y.js") {
		return "", false
	}
	return u.String(), true
}

func hasClass(n *html.Node, class string) bool {
	return strings.Contains(" "+strings.Join(strings.Fields(attr(n, "class")), " ")+" ", " "+class+" ")
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Namespace == "" && a.Key == key {
			return a.Val
		}
	}
	return ""
}

// nodeText is the text under n with runs of white space made one space.
func nodeText(n *html.Node) string {
	var b strings.Builder
	for c := range n.Descendants() {
		if c.Type == html.TextNode {
			b.WriteString(c.Data)
		}
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

// ddgInstant is the part of an Instant Answer the tool reads. Answer is
// raw because some answer types send an object instead of a string.
type ddgInstant struct {
	Heading          string          `json:"Heading"`
	AbstractText     string          `json:"AbstractText"`
	AbstractURL      string          `json:"AbstractURL"`
	Answer           json.RawMessage `json:"Answer"`
	Definition       string          `json:"Definition"`
	DefinitionURL    string          `json:"DefinitionURL"`
	DefinitionSource string          `json:"DefinitionSource"`
	Results          []ddgTopic      `json:"Results"`
	RelatedTopics    []ddgTopic      `json:"RelatedTopics"`
}

// ddgTopic is a related topic, or a named group of them ("See also").
type ddgTopic struct {
	Text     string     `json:"Text"`
	FirstURL string     `json:"FirstURL"`
	Name     string     `json:"Name"`
	Topics   []ddgTopic `json:"Topics"`
}

// ddgInstantAnswer asks the Instant Answer API. An answer with every field
// empty is an honest "nothing instant" (most queries), not an error; an
// answer that is not the API's JSON object is.
func ddgInstantAnswer(ctx context.Context, cfg WebConfig, gate tool.URLGate, endpoint, query string) ddgAnswer {
	body, status, err := getSearch(ctx, ddgInstantURL(endpoint, query), "application/json", cfg, gate)
	if err != nil {
		return ddgAnswer{err: fmt.Errorf("DuckDuckGo's Instant Answer API: %w", err)}
	}
	a, err := parseInstantAnswer(body)
	if err != nil {
		return ddgAnswer{err: fmt.Errorf("DuckDuckGo's Instant Answer API (%s) parsed to nothing: %w; it begins %q", status, err, firstBytes(body))}
	}
	return a
}

// parseInstantAnswer maps an Instant Answer onto results.
func parseInstantAnswer(body []byte) (ddgAnswer, error) {
	if t := bytes.TrimSpace(body); len(t) == 0 || t[0] != '{' {
		return ddgAnswer{}, errors.New("not a JSON object")
	}
	var ia ddgInstant
	if err := json.Unmarshal(body, &ia); err != nil {
		return ddgAnswer{}, err
	}
	var a ddgAnswer
	_ = json.Unmarshal(ia.Answer, &a.answer) // an object-valued answer is a widget, not text
	a.answer = strings.TrimSpace(a.answer)
	if ia.AbstractText != "" && ia.AbstractURL != "" {
		a.first = append(a.first, WebSearchResult{Title: ia.Heading, URL: ia.AbstractURL, Snippet: ia.AbstractText})
	}
	if ia.Definition != "" && ia.DefinitionURL != "" {
		a.first = append(a.first, WebSearchResult{Title: strings.TrimSpace(ia.Heading + " (" + ia.DefinitionSource + ")"), URL: ia.DefinitionURL, Snippet: ia.Definition})
	}
	a.first = appendTopics(a.first, ia.Results)
	a.related = appendTopics(a.related, ia.RelatedTopics)
	return a, nil
}

// appendTopics flattens topics and their groups into results; a topic's
// text is "TITLE - description" or "TITLE description".
func appendTopics(out []WebSearchResult, topics []ddgTopic) []WebSearchResult {
	for _, t := range topics {
		if len(t.Topics) > 0 {
			out = appendTopics(out, t.Topics)
			continue
		}
		if t.FirstURL == "" || t.Text == "" {
			continue
		}
		title, snippet, ok := strings.Cut(t.Text, " - ")
		if !ok {
			title, snippet = t.Text, ""
		}
		out = append(out, WebSearchResult{Title: strings.TrimSpace(title), URL: t.FirstURL, Snippet: strings.TrimSpace(snippet)})
	}
	return out
}
