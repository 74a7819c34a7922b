package githubtest

import (
	"bytes"
	"fmt"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"
)

// maxIndexed is the size from which GitHub's code search leaves a file out
// of its index: only files smaller than 384 KB are searchable.
const maxIndexed = 384 << 10

// query is a parsed code search: the terms every file must hold (each a run
// of tokens, more than one for a quoted phrase), and the qualifiers the
// fake knows.
type query struct {
	terms                           [][]string
	repo, path, filename, extension string
	root                            bool // path:/ keeps files at the root
}

func parseQuery(q string) (query, error) {
	var pq query
	for _, tok := range splitQuery(q) {
		key, val, qualified := strings.Cut(tok, ":")
		if !qualified || strings.HasPrefix(tok, `"`) {
			pq.addTerm(tok)
			continue
		}
		switch key {
		case "repo":
			pq.repo = strings.ToLower(val)
		case "path":
			pq.path = strings.Trim(val, "/")
			pq.root = pq.path == ""
		case "filename":
			pq.filename = val
		case "extension":
			pq.extension = strings.TrimPrefix(val, ".")
		case "in", "language":
			// in:file is the default; the fake knows no languages.
		default:
			pq.addTerm(tok)
		}
	}
	if pq.repo == "" {
		return pq, fmt.Errorf("the query names no repository (repo:owner/name)")
	}
	if len(pq.terms) == 0 {
		return pq, fmt.Errorf("the query has no search terms")
	}
	return pq, nil
}

// addTerm adds a word or a quoted phrase as its tokens; one made of
// separators only adds nothing, as GitHub ignores those characters.
func (pq *query) addTerm(t string) {
	var toks []string
	for _, tk := range tokens([]byte(strings.Trim(t, `"`))) {
		toks = append(toks, tk.text)
	}
	if len(toks) > 0 {
		pq.terms = append(pq.terms, toks)
	}
}

// token is one word of a file as code search indexes it: lower case, and
// where it starts and ends in the file.
type token struct {
	text       string
	start, end int
}

// tokens splits data as GitHub's code search does: words are runs of
// letters, digits and underscores, and everything else separates them (the
// spaces, and the punctuation GitHub's search ignores: . , : ; / \ ` ' " =
// * ! ? # $ & + ^ | ~ < > ( ) { } [ ] @; the fake splits on a hyphen too).
// Matching is case-insensitive, so each word is lower-cased.
func tokens(data []byte) []token {
	var out []token
	start := -1
	for i := 0; i <= len(data); i++ {
		word := i < len(data) && isWordByte(data[i])
		switch {
		case word && start < 0:
			start = i
		case !word && start >= 0:
			out = append(out, token{text: strings.ToLower(string(data[start:i])), start: start, end: i})
			start = -1
		}
	}
	return out
}

// isWordByte reports whether b belongs to a word: an ASCII letter, digit or
// underscore, or any byte of a multi-byte UTF-8 character.
func isWordByte(b byte) bool {
	return b == '_' || b >= 0x80 || ('0' <= b && b <= '9') || ('a' <= b && b <= 'z') || ('A' <= b && b <= 'Z')
}

// find returns the index in toks of the first place term's tokens occur in
// a row, or -1.
func find(toks []token, term []string) int {
	for i := 0; i+len(term) <= len(toks); i++ {
		j := 0
		for j < len(term) && toks[i+j].text == term[j] {
			j++
		}
		if j == len(term) {
			return i
		}
	}
	return -1
}

// splitQuery splits on spaces outside double quotes.
func splitQuery(q string) []string {
	var toks []string
	var cur strings.Builder
	quoted := false
	for _, r := range q {
		switch {
		case r == '"':
			quoted = !quoted
			cur.WriteRune(r)
		case r == ' ' && !quoted:
			if cur.Len() > 0 {
				toks = append(toks, cur.String())
				cur.Reset()
			}
		default:
			cur.WriteRune(r)
		}
	}
	if cur.Len() > 0 {
		toks = append(toks, cur.String())
	}
	return toks
}

func (pq query) matchPath(p string) bool {
	base, dir := path.Base(p), path.Dir(p)
	switch {
	case pq.root && dir != ".":
		return false
	case pq.path != "" && dir != pq.path && !strings.HasPrefix(p, pq.path+"/"):
		return false
	case pq.filename != "" && base != pq.filename:
		return false
	case pq.extension != "" && path.Ext(base) != "."+pq.extension:
		return false
	}
	return true
}

// searchCode answers search/code over the default branch of the repository
// the query names, as GitHub's legacy code search does: files smaller than
// 384 KB holding every term as whole words, case-insensitively (a term
// inside a longer word does not match), with text_matches when Accept asks
// for application/vnd.github.text-match+json; paginated with Link headers.
// Each item starts from code-search-result-item-paginated's.
func (s *Server) searchCode(r *http.Request, _ *repo) reply {
	pq, err := parseQuery(r.URL.Query().Get("q"))
	if err != nil {
		return invalidSearch(err.Error())
	}
	rp := s.repos[pq.repo]
	if rp == nil {
		return invalidSearch("The listed users and repositories cannot be searched either because the resources do not exist or you do not have permission to view them.")
	}
	recorded := exampleObject("code-search-result-item-paginated")
	item := recorded["items"].([]any)[0].(map[string]any)
	repository := s.searchedRepo(obj(item, "repository"), rp)
	textMatch := strings.Contains(r.Header.Get("Accept"), "text-match")
	head := rp.branches[rp.defaultBranch]
	items := []any{}
	s.objs.walk(s.objs[head].tree, "", func(p string, e entry) {
		if e.kind != "blob" || e.mode == ModeSymlink || !pq.matchPath(p) {
			return
		}
		data := s.objs[e.sha].data
		if len(data) >= maxIndexed || bytes.IndexByte(data, 0) >= 0 {
			return
		}
		toks := tokens(data)
		first := -1
		for i, t := range pq.terms {
			at := find(toks, t)
			if at < 0 {
				return
			}
			if i == 0 {
				first = at
			}
		}
		self := s.repoURL(rp) + "/contents/" + p + "?ref=" + head
		it := set(clone(item).(map[string]any), "name", path.Base(p), "path", p, "sha", e.sha, "score", 1.0, "url", self,
			"git_url", s.repoURL(rp)+"/git/blobs/"+e.sha, "html_url", htmlURL(rp)+"/blob/"+head+"/"+p, "repository", repository)
		if textMatch {
			it["text_matches"] = textMatches(self, data, toks[first:first+len(pq.terms[0])])
		}
		items = append(items, it)
	})
	page, perPage := pageParams(r.URL.Query())
	total := len(items)
	items = items[min((page-1)*perPage, total):min(page*perPage, total)]
	rep := jsonReply(http.StatusOK, set(recorded, "total_count", total, "incomplete_results", false, "items", items))
	if link := linkHeader(s.URL+r.URL.Path, r.URL.Query(), page, perPage, total); link != "" {
		rep.header.Set("Link", link)
	}
	return rep
}

// invalidSearch is GitHub's 422 for a query it will not run.
func invalidSearch(message string) reply {
	return jsonReply(http.StatusUnprocessableEntity, map[string]any{"message": "Validation Failed",
		"errors":            []map[string]any{{"message": message, "resource": "Search", "field": "q", "code": "invalid"}},
		"documentation_url": "https://docs.github.com/rest/search/search#search-code"})
}

// searchedRepo is the minimal-repository every item carries: the recorded
// item's, pointed at rp.
func (s *Server) searchedRepo(m map[string]any, rp *repo) map[string]any {
	// The recorded item's deployments and releases URLs name another repository.
	s.rebase(m, rp, "jquery/jquery", "octocat/Hello-World")
	return set(m, "id", rp.id, "node_id", fmt.Sprintf("R_%d", rp.id), "name", rp.name, "full_name", rp.owner+"/"+rp.name,
		"owner", s.user(rp.owner, "Organization", 1), "private", rp.private, "description", nil, "fork", false, "html_url", htmlURL(rp))
}

// textMatches is the text-match metadata of the first line holding the
// first term: the line as the fragment, and where in it the term is.
func textMatches(objectURL string, data []byte, match []token) []map[string]any {
	at, end := match[0].start, match[len(match)-1].end
	lineStart := bytes.LastIndexByte(data[:at], '\n') + 1
	lineEnd := bytes.IndexByte(data[at:], '\n')
	if lineEnd < 0 {
		lineEnd = len(data)
	} else {
		lineEnd += at
	}
	if end > lineEnd { // a phrase across lines: the fragment is the first
		end = lineEnd
	}
	return []map[string]any{{"object_url": objectURL, "object_type": "FileContent", "property": "content", "fragment": string(data[lineStart:lineEnd]),
		"matches": []map[string]any{{"text": string(data[at:end]), "indices": []int{at - lineStart, end - lineStart}}}}}
}

// pageParams reads page and per_page: 1 and 30 by default, per_page at
// most 100, as GitHub's.
func pageParams(q url.Values) (page, perPage int) {
	page, perPage = 1, 30
	if n, err := strconv.Atoi(q.Get("page")); err == nil && n > 0 {
		page = n
	}
	if n, err := strconv.Atoi(q.Get("per_page")); err == nil && n > 0 {
		perPage = min(n, 100)
	}
	return page, perPage
}

// linkHeader is GitHub's Link header for page of total items: next and
// last after it, first and prev before it.
func linkHeader(base string, q url.Values, page, perPage, total int) string {
	last := max((total+perPage-1)/perPage, 1)
	link := func(p int, rel string) string {
		v := url.Values{}
		for k, vs := range q {
			v[k] = vs
		}
		v.Set("page", strconv.Itoa(p))
		v.Set("per_page", strconv.Itoa(perPage))
		return fmt.Sprintf(`<%s?%s>; rel="%s"`, base, v.Encode(), rel)
	}
	var parts []string
	if page < last {
		parts = append(parts, link(page+1, "next"), link(last, "last"))
	}
	if page > 1 {
		parts = append(parts, link(1, "first"), link(page-1, "prev"))
	}
	return strings.Join(parts, ", ")
}

// rateLimit answers rate-limit/get from rate-limit-overview, with the
// fake's core and search limits; it does not count against them.
func (s *Server) rateLimit(*http.Request, *repo) reply {
	m := exampleObject("rate-limit-overview")
	resources := obj(m, "resources")
	for _, name := range []string{"core", "search"} {
		l := s.limit(name)
		resources[name] = map[string]any{"limit": l.Limit, "remaining": l.Remaining, "used": l.Limit - l.Remaining, "reset": l.Reset.Unix()}
	}
	return jsonReply(http.StatusOK, set(m, "rate", resources["core"]))
}
