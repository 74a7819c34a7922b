package githubtest

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"path"
	"regexp"
	"strings"
	"time"
)

// The handlers below answer as GitHub's OpenAPI description says
// (testdata/openapi: github/rest-api-description, version 2022-11-28): each
// answer starts from the example GitHub records for the operation and
// overlays the fake's own values, so a field GitHub sends is there even when
// no client of the fake reads it. They run with s.mu held.

func (s *Server) repoURL(rp *repo) string {
	return s.URL + "/repos/" + rp.owner + "/" + rp.name
}

// htmlURL is the web address of the repository, as GitHub's answers give it.
func htmlURL(rp *repo) string {
	return "https://github.com/" + rp.owner + "/" + rp.name
}

// getRepo answers repos/get from full-repository-default-response: a
// repository that is not a fork, has no license and no stars.
func (s *Server) getRepo(_ *http.Request, rp *repo) reply {
	m := exampleObject("full-repository-default-response")
	s.rebase(m, rp, "octocat/Hello-World")
	when := rp.time.UTC().Format(time.RFC3339)
	set(m, "id", rp.id, "node_id", fmt.Sprintf("R_%d", rp.id), "name", rp.name, "full_name", rp.owner+"/"+rp.name,
		"owner", s.user(rp.owner, "Organization", 1), "private", rp.private,
		"visibility", map[bool]string{true: "private", false: "public"}[rp.private],
		"description", nil, "homepage", nil, "mirror_url", nil, "language", nil, "license", nil,
		"default_branch", rp.defaultBranch, "fork", false, "archived", false, "disabled", false, "is_template", false,
		"topics", []any{}, "has_pages", false, "temp_clone_token", nil,
		"created_at", when, "updated_at", when, "pushed_at", when,
		"permissions", map[string]bool{"admin": false, "maintain": false, "push": false, "triage": false, "pull": true})
	for _, k := range []string{"size", "forks", "forks_count", "stargazers_count", "watchers", "watchers_count",
		"open_issues", "open_issues_count", "subscribers_count", "network_count"} {
		m[k] = 0
	}
	return jsonReply(http.StatusOK, m)
}

// resolve finds the commit ref names: a branch, a tag, heads/x, tags/x,
// refs/heads/x, or a commit sha.
func (s *Server) resolve(rp *repo, ref string) (string, bool) {
	ref = strings.TrimPrefix(ref, "refs/")
	if b, ok := strings.CutPrefix(ref, "heads/"); ok {
		sha, ok := rp.branches[b]
		return sha, ok
	}
	if t, ok := strings.CutPrefix(ref, "tags/"); ok {
		sha, ok := rp.tags[t]
		return sha, ok
	}
	if sha, ok := rp.branches[ref]; ok {
		return sha, true
	}
	if sha, ok := rp.tags[ref]; ok {
		return sha, true
	}
	if o := s.objs[ref]; o != nil && o.kind == "commit" {
		return ref, true
	}
	return "", false
}

// gitUser is a commit's author or committer: the fake's one, at when.
func gitUser(when time.Time) map[string]any {
	return map[string]any{"name": "Quiver Test", "email": "test@quiver.invalid", "date": when.UTC().Format(time.RFC3339)}
}

// commitJSON is the commit sha, from the recorded example commit: the fake
// records no parents and computes no diff, so parents is empty and stats
// and files are not there.
func (s *Server) commitJSON(rp *repo, sha string) map[string]any {
	o := s.objs[sha]
	m := exampleObject("commit")
	s.rebase(m, rp, "octocat/Hello-World")
	set(m, "sha", sha, "node_id", "C_"+sha[:10], "url", s.repoURL(rp)+"/commits/"+sha, "html_url", htmlURL(rp)+"/commit/"+sha,
		"comments_url", s.repoURL(rp)+"/commits/"+sha+"/comments", "author", s.user("quiver-test", "User", 2),
		"committer", s.user("quiver-test", "User", 2), "parents", []any{})
	set(obj(m, "commit"), "url", s.repoURL(rp)+"/git/commits/"+sha, "author", gitUser(o.when), "committer", gitUser(o.when),
		"message", "commit", "comment_count", 0, "tree", map[string]any{"sha": o.tree, "url": s.repoURL(rp) + "/git/trees/" + o.tree})
	return m
}

// getBranch answers repos/get-branch from branch-get: an unprotected branch.
func (s *Server) getBranch(r *http.Request, rp *repo) reply {
	name := r.PathValue("branch")
	sha, ok := rp.branches[name]
	if !ok {
		return errorReply(http.StatusNotFound, "Branch not found", "https://docs.github.com/rest/branches/branches#get-a-branch")
	}
	m := exampleObject("branch-get")
	s.rebase(m, rp, "octocat/Hello-World")
	return jsonReply(http.StatusOK, set(m, "name", name, "commit", s.commitJSON(rp, sha), "protected", false,
		"_links", map[string]any{"self": s.repoURL(rp) + "/branches/" + name, "html": htmlURL(rp) + "/tree/" + name},
		"protection_url", s.repoURL(rp)+"/branches/"+name+"/protection"))
}

var fullRef = regexp.MustCompile(`^(heads|tags)/.+`)

// getRef answers git/get-ref from git-ref.
func (s *Server) getRef(r *http.Request, rp *repo) reply {
	ref := r.PathValue("ref")
	if !fullRef.MatchString(ref) {
		return notFound()
	}
	sha, ok := s.resolve(rp, ref)
	if !ok {
		return notFound()
	}
	m := exampleObject("git-ref")
	s.rebase(m, rp, "octocat/Hello-World")
	return jsonReply(http.StatusOK, set(m, "ref", "refs/"+ref, "node_id", "REF_"+sha[:10], "url", s.repoURL(rp)+"/git/refs/"+ref,
		"object", map[string]any{"type": "commit", "sha": sha, "url": s.repoURL(rp) + "/git/commits/" + sha}))
}

// getCommit answers repos/get-commit; with Accept application/vnd.github.sha
// it answers the bare sha, the cheapest way to resolve a ref.
func (s *Server) getCommit(r *http.Request, rp *repo) reply {
	sha, ok := s.resolve(rp, r.PathValue("ref"))
	if !ok {
		return errorReply(http.StatusUnprocessableEntity, "No commit found for SHA: "+r.PathValue("ref"), "https://docs.github.com/rest/commits/commits#get-a-commit")
	}
	if strings.Contains(r.Header.Get("Accept"), "vnd.github.sha") || strings.Contains(r.Header.Get("Accept"), "vnd.github.v3.sha") {
		return reply{status: http.StatusOK, header: http.Header{"Content-Type": {"application/vnd.github.sha; charset=utf-8"}}, body: []byte(sha)}
	}
	return jsonReply(http.StatusOK, s.commitJSON(rp, sha))
}

// getGitCommit answers git/get-commit from git-commit-2.
func (s *Server) getGitCommit(r *http.Request, rp *repo) reply {
	sha := r.PathValue("sha")
	o := s.objs[sha]
	if o == nil || o.kind != "commit" {
		return notFound()
	}
	m := exampleObject("git-commit-2")
	s.rebase(m, rp, "octocat/Hello-World")
	return jsonReply(http.StatusOK, set(m, "sha", sha, "node_id", "C_"+sha[:10], "url", s.repoURL(rp)+"/git/commits/"+sha,
		"html_url", htmlURL(rp)+"/commit/"+sha, "author", gitUser(o.when), "committer", gitUser(o.when), "message", "commit",
		"tree", map[string]any{"sha": o.tree, "url": s.repoURL(rp) + "/git/trees/" + o.tree}, "parents", []any{}))
}

// getTree answers git/get-tree from git-tree-default-response, each entry
// shaped as the example's entry of its kind. tree_sha may be a tree, a
// commit or a ref name. A recursive tree over TreeLimit entries, or a
// non-recursive one over DirLimit, comes back truncated, as GitHub's does.
func (s *Server) getTree(r *http.Request, rp *repo) reply {
	sha := r.PathValue("sha")
	if o := s.objs[sha]; o == nil || o.kind != "tree" {
		c, ok := s.resolve(rp, sha)
		if !ok {
			return notFound()
		}
		sha = s.objs[c].tree
	}
	m := exampleObject("git-tree-default-response")
	recorded := m["tree"].([]any)
	blobItem, treeItem := recorded[0].(map[string]any), recorded[1].(map[string]any)
	toItem := func(p string, e entry) any {
		var it map[string]any
		switch e.kind {
		case "blob":
			it = set(clone(blobItem).(map[string]any), "size", e.size, "url", s.repoURL(rp)+"/git/blobs/"+e.sha)
		case "tree":
			it = set(clone(treeItem).(map[string]any), "url", s.repoURL(rp)+"/git/trees/"+e.sha)
		default: // a submodule's commit: GitHub gives it no url
			it = clone(treeItem).(map[string]any)
			delete(it, "url")
		}
		return set(it, "path", p, "mode", e.mode, "type", e.kind, "sha", e.sha)
	}
	items := []any{}
	limit, truncated := s.opts.DirLimit, false
	if r.URL.Query().Has("recursive") {
		limit = s.opts.TreeLimit
		s.objs.walk(sha, "", func(p string, e entry) { items = append(items, toItem(p, e)) })
	} else {
		for _, e := range s.objs[sha].entries {
			items = append(items, toItem(e.name, e))
		}
	}
	if limit > 0 && len(items) > limit {
		items, truncated = items[:limit], true
	}
	return jsonReply(http.StatusOK, set(m, "sha", sha, "url", s.repoURL(rp)+"/git/trees/"+sha, "tree", items, "truncated", truncated))
}

// wantsRaw reports whether Accept asks for a raw media type
// (application/vnd.github.raw, its +json form, or the v3 spelling).
func wantsRaw(r *http.Request) bool {
	a := r.Header.Get("Accept")
	return strings.Contains(a, "vnd.github.raw") || strings.Contains(a, "vnd.github.v3.raw")
}

func rawReply(data []byte) reply {
	return reply{status: http.StatusOK, header: http.Header{"Content-Type": {"application/vnd.github.raw"}}, body: data}
}

// wrapped is base64 in lines of 60 characters, as GitHub sends content.
func wrapped(data []byte) string {
	enc := base64.StdEncoding.EncodeToString(data)
	var b strings.Builder
	for len(enc) > 60 {
		b.WriteString(enc[:60] + "\n")
		enc = enc[60:]
	}
	b.WriteString(enc)
	if enc != "" {
		b.WriteString("\n")
	}
	return b.String()
}

// getBlob answers git/get-blob from blob, or with the raw bytes for the raw
// media types.
func (s *Server) getBlob(r *http.Request, rp *repo) reply {
	sha := r.PathValue("sha")
	o := s.objs[sha]
	if o == nil || o.kind != "blob" {
		return notFound()
	}
	if wantsRaw(r) {
		return rawReply(o.data)
	}
	m := exampleObject("blob")
	return jsonReply(http.StatusOK, set(m, "sha", sha, "node_id", "B_"+sha[:10], "size", len(o.data),
		"url", s.repoURL(rp)+"/git/blobs/"+sha, "content", wrapped(o.data), "encoding", "base64"))
}

// maxContentSize is the largest file the contents API returns inline: a
// larger one comes with empty content and encoding "none".
const maxContentSize = 1 << 20

// getContents answers repos/get-content: a directory's listing, a file, a
// symlink or a submodule, each from the example GitHub records for it. A
// symlink to a regular file in the repository answers that file, as
// GitHub's does.
func (s *Server) getContents(r *http.Request, rp *repo) reply {
	ref := r.URL.Query().Get("ref")
	if ref == "" {
		ref = rp.defaultBranch
	}
	c, ok := s.resolve(rp, ref)
	if !ok {
		return errorReply(http.StatusNotFound, "No commit found for the ref "+ref, "https://docs.github.com/rest/repos/contents#get-repository-content")
	}
	root := s.objs[c].tree
	p := strings.Trim(r.PathValue("path"), "/")
	e, ok := s.objs.lookup(root, p)
	if !ok {
		return notFound()
	}
	if e.mode == ModeSymlink {
		if to, te, ok := s.objs.follow(root, p, string(s.objs[e.sha].data)); ok {
			p, e = to, te
		}
	}
	switch {
	case e.kind == "tree":
		items := []any{}
		for _, c := range s.objs[e.sha].entries {
			items = append(items, s.listed(rp, ref, path.Join(p, c.name), c))
		}
		return jsonReply(http.StatusOK, items)
	case wantsRaw(r) && e.kind == "blob":
		return rawReply(s.objs[e.sha].data)
	case e.mode == ModeSymlink:
		m := s.content(exampleObject("content-file-response-if-content-is-a-symlink"), rp, ref, p, e)
		return jsonReply(http.StatusOK, set(m, "target", string(s.objs[e.sha].data)))
	case e.mode == ModeSubmodule:
		m := s.content(exampleObject("content-file-response-if-content-is-a-submodule"), rp, ref, p, e)
		return jsonReply(http.StatusOK, submodule(m))
	}
	m := s.content(exampleObject("content-file-response-if-content-is-a-file"), rp, ref, p, e)
	if data := s.objs[e.sha].data; len(data) <= maxContentSize {
		set(m, "content", wrapped(data), "encoding", "base64")
	} else {
		set(m, "content", "", "encoding", "none")
	}
	return jsonReply(http.StatusOK, m)
}

// content overlays the fields every content object has on the example m.
func (s *Server) content(m map[string]any, rp *repo, ref, p string, e entry) map[string]any {
	self := s.repoURL(rp) + "/contents/" + p + "?ref=" + ref
	git, html := s.repoURL(rp)+"/git/blobs/"+e.sha, htmlURL(rp)+"/blob/"+ref+"/"+p
	if e.kind == "tree" {
		git, html = s.repoURL(rp)+"/git/trees/"+e.sha, htmlURL(rp)+"/tree/"+ref+"/"+p
	}
	return set(m, "name", path.Base(p), "path", p, "sha", e.sha, "size", e.size, "url", self,
		"git_url", git, "html_url", html, "download_url", nil,
		"_links", map[string]any{"self": self, "git": git, "html": html})
}

// submodule clears a content object's git and web addresses, which GitHub
// gives only for a submodule hosted on github.com.
func submodule(m map[string]any) map[string]any {
	set(m, "git_url", nil, "html_url", nil, "download_url", nil, "submodule_git_url", "https://github.com/example/submodule.git")
	set(obj(m, "_links"), "git", nil, "html", nil)
	return m
}

// listed is one entry of a directory's listing, shaped as the recorded
// listing's entry of its kind. A submodule is listed as a "file", as
// GitHub's listings do for backward compatibility.
func (s *Server) listed(rp *repo, ref, p string, e entry) map[string]any {
	recorded := example("content-file-response-if-content-is-a-directory").([]any)
	if e.kind == "tree" {
		return set(s.content(recorded[1].(map[string]any), rp, ref, p, e), "type", "dir", "size", 0)
	}
	m := s.content(recorded[0].(map[string]any), rp, ref, p, e)
	switch e.mode {
	case ModeSymlink:
		m["type"] = "symlink"
	case ModeSubmodule:
		submodule(m)
		delete(m, "submodule_git_url")
	}
	return m
}
