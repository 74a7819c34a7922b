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

// maxIndexed is the largest file GitHub's code search indexes (384 KB).
const maxIndexed = 384 << 10

// query is a parsed code search: words every file must hold, and the
// qualifiers the fake knows.
type query struct {
	terms                           []string
	repo, path, filename, extension string
}

func parseQuery(q string) (query, error) {
	var pq query
	for _, tok := range splitQuery(q) {
		key, val, qualified := strings.Cut(tok, ":")
		if !qualified || strings.HasPrefix(tok, `"`) {
			pq.terms = append(pq.terms, strings.ToLower(strings.Trim(tok, `"`)))
			continue
		}
		switch key {
		case "repo":
			pq.repo = strings.ToLower(val)
		case "path":
			pq.path = strings.Trim(val, "/")
		case "filename":
			pq.filename = val
		case "extension":
			pq.extension = strings.TrimPrefix(val, ".")
		case "in", "language":
			// in:file is the default; the fake knows no languages.
		default:
			pq.terms = append(pq.terms, strings.ToLower(tok))
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
	base := path.Base(p)
	switch {
	case pq.path != "" && path.Dir(p) != pq.path && !strings.HasPrefix(p, pq.path+"/"):
		return false
	case pq.filename != "" && base != pq.filename:
		return false
	case pq.extension != "" && path.Ext(base) != "."+pq.extension:
		return false
	}
	return true
}

// searchCode answers search/code over the default branch of the repository
// the query names, as GitHub's code search does: files under 384 KB that
// hold every term, case-insensitively, with text_matches when Accept asks
// for application/vnd.github.text-match+json; paginated with Link headers.
func (s *Server) searchCode(r *http.Request, _ *repo) reply {
	pq, err := parseQuery(r.URL.Query().Get("q"))
	if err != nil {
		return jsonReply(http.StatusUnprocessableEntity, map[string]any{"message": "Validation Failed",
			"errors":            []map[string]any{{"message": err.Error(), "resource": "Search", "field": "q", "code": "invalid"}},
			"documentation_url": "https://docs.github.com/rest/search/search#search-code"})
	}
	rp := s.repos[pq.repo]
	if rp == nil {
		return jsonReply(http.StatusUnprocessableEntity, map[string]any{"message": "Validation Failed",
			"errors":            []map[string]any{{"message": "The listed users and repositories cannot be searched either because the resources do not exist or you do not have permission to view them.", "resource": "Search", "field": "q", "code": "invalid"}},
			"documentation_url": "https://docs.github.com/rest/search/search#search-code"})
	}
	textMatch := strings.Contains(r.Header.Get("Accept"), "text-match")
	var items []map[string]any
	s.objs.walk(s.objs[rp.branches[rp.defaultBranch]].tree, "", func(p string, e entry) {
		if e.kind != "blob" || e.mode == ModeSymlink || !pq.matchPath(p) {
			return
		}
		data := s.objs[e.sha].data
		if len(data) > maxIndexed || bytes.IndexByte(data, 0) >= 0 {
			return
		}
		lower := bytes.ToLower(data)
		for _, t := range pq.terms {
			if !bytes.Contains(lower, []byte(t)) {
				return
			}
		}
		item := map[string]any{"name": path.Base(p), "path": p, "sha": e.sha, "score": 1.0,
			"url":        s.repoURL(rp) + "/contents/" + p + "?ref=" + rp.branches[rp.defaultBranch],
			"git_url":    s.repoURL(rp) + "/git/blobs/" + e.sha,
			"html_url":   "https://github.com/" + rp.owner + "/" + rp.name + "/blob/" + rp.branches[rp.defaultBranch] + "/" + p,
			"repository": map[string]any{"id": rp.id, "name": rp.name, "full_name": rp.owner + "/" + rp.name, "private": rp.private, "owner": map[string]any{"login": rp.owner}},
		}
		if textMatch {
			item["text_matches"] = textMatches(data, lower, pq.terms[0])
		}
		items = append(items, item)
	})
	page, perPage := pageParams(r.URL.Query())
	total := len(items)
	items = items[min((page-1)*perPage, total):min(page*perPage, total)]
	if items == nil {
		items = []map[string]any{}
	}
	rep := jsonReply(http.StatusOK, map[string]any{"total_count": total, "incomplete_results": false, "items": items})
	if link := linkHeader(s.URL+r.URL.Path, r.URL.Query(), page, perPage, total); link != "" {
		rep.header.Set("Link", link)
	}
	return rep
}

// textMatches is the text-match metadata of the first line holding term:
// the fragment and where in it the term is.
func textMatches(data, lower []byte, term string) []map[string]any {
	i := bytes.Index(lower, []byte(term))
	start := bytes.LastIndexByte(data[:i], '\n') + 1
	end := bytes.IndexByte(data[i:], '\n')
	if end < 0 {
		end = len(data)
	} else {
		end += i
	}
	return []map[string]any{{"object_type": "FileContent", "property": "content", "fragment": string(data[start:end]),
		"matches": []map[string]any{{"text": string(data[i : i+len(term)]), "indices": []int{i - start, i - start + len(term)}}}}}
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

func (s *Server) rateLimit(*http.Request, *repo) reply {
	res := map[string]any{}
	for _, name := range []string{"core", "search"} {
		l := s.limit(name)
		res[name] = map[string]any{"limit": l.Limit, "remaining": l.Remaining, "used": l.Limit - l.Remaining, "reset": l.Reset.Unix(), "resource": name}
	}
	return jsonReply(http.StatusOK, map[string]any{"resources": res, "rate": res["core"]})
}
