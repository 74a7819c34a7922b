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

// The handlers below answer with the shapes of GitHub's OpenAPI
// description (github/rest-api-description, api.github.com.2022-11-28):
// the schemas full-repository, branch-with-protection, git-ref, commit,
// git-commit, git-tree, blob, content-file, content-directory,
// content-symlink, content-submodule and code-search-result-item. Fields a
// client of trees, blobs and search never reads (owners' avatars, commit
// authors' details) are left out. They run with s.mu held.

func (s *Server) repoURL(rp *repo) string {
	return s.URL + "/repos/" + rp.owner + "/" + rp.name
}

func (s *Server) getRepo(_ *http.Request, rp *repo) reply {
	full := rp.owner + "/" + rp.name
	return jsonReply(http.StatusOK, map[string]any{
		"id": rp.id, "node_id": fmt.Sprintf("R_%d", rp.id), "name": rp.name, "full_name": full,
		"owner":   map[string]any{"login": rp.owner, "id": 1, "type": "Organization"},
		"private": rp.private, "visibility": map[bool]string{true: "private", false: "public"}[rp.private],
		"html_url": "https://github.com/" + full, "url": s.repoURL(rp),
		"default_branch": rp.defaultBranch, "fork": false, "archived": false,
		"permissions": map[string]bool{"admin": false, "maintain": false, "push": false, "triage": false, "pull": true},
	})
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

func (s *Server) commitJSON(rp *repo, sha string) map[string]any {
	o := s.objs[sha]
	who := map[string]any{"name": "Quiver Test", "email": "test@quiver.invalid", "date": o.when.UTC().Format(time.RFC3339)}
	return map[string]any{
		"sha": sha, "node_id": "C_" + sha[:10], "url": s.repoURL(rp) + "/commits/" + sha,
		"commit": map[string]any{
			"message": "commit", "url": s.repoURL(rp) + "/git/commits/" + sha, "author": who, "committer": who,
			"tree": map[string]any{"sha": o.tree, "url": s.repoURL(rp) + "/git/trees/" + o.tree},
		},
	}
}

func (s *Server) getBranch(r *http.Request, rp *repo) reply {
	name := r.PathValue("branch")
	sha, ok := rp.branches[name]
	if !ok {
		return errorReply(http.StatusNotFound, "Branch not found", "https://docs.github.com/rest/branches/branches#get-a-branch")
	}
	return jsonReply(http.StatusOK, map[string]any{"name": name, "commit": s.commitJSON(rp, sha), "protected": false})
}

var fullRef = regexp.MustCompile(`^(heads|tags)/.+`)

func (s *Server) getRef(r *http.Request, rp *repo) reply {
	ref := r.PathValue("ref")
	if !fullRef.MatchString(ref) {
		return notFound()
	}
	sha, ok := s.resolve(rp, ref)
	if !ok {
		return notFound()
	}
	return jsonReply(http.StatusOK, map[string]any{
		"ref": "refs/" + ref, "node_id": "REF_" + sha[:10], "url": s.repoURL(rp) + "/git/refs/" + ref,
		"object": map[string]any{"type": "commit", "sha": sha, "url": s.repoURL(rp) + "/git/commits/" + sha},
	})
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

func (s *Server) getGitCommit(r *http.Request, rp *repo) reply {
	sha := r.PathValue("sha")
	o := s.objs[sha]
	if o == nil || o.kind != "commit" {
		return notFound()
	}
	who := map[string]any{"name": "Quiver Test", "email": "test@quiver.invalid", "date": o.when.UTC().Format(time.RFC3339)}
	return jsonReply(http.StatusOK, map[string]any{
		"sha": sha, "url": s.repoURL(rp) + "/git/commits/" + sha, "message": "commit", "author": who, "committer": who,
		"tree": map[string]any{"sha": o.tree, "url": s.repoURL(rp) + "/git/trees/" + o.tree},
	})
}

// getTree answers git/get-tree. tree_sha may be a tree, a commit or a ref
// name. A recursive tree over TreeLimit entries, or a non-recursive one
// over DirLimit, comes back truncated, as GitHub's does.
func (s *Server) getTree(r *http.Request, rp *repo) reply {
	sha := r.PathValue("sha")
	if o := s.objs[sha]; o == nil || o.kind != "tree" {
		c, ok := s.resolve(rp, sha)
		if !ok {
			return notFound()
		}
		sha = s.objs[c].tree
	}
	type item struct {
		Path string `json:"path"`
		Mode string `json:"mode"`
		Type string `json:"type"`
		SHA  string `json:"sha"`
		Size *int   `json:"size,omitempty"`
		URL  string `json:"url,omitempty"`
	}
	toItem := func(p string, e entry) item {
		it := item{Path: p, Mode: e.mode, Type: e.kind, SHA: e.sha}
		switch e.kind {
		case "blob":
			size := e.size
			it.Size, it.URL = &size, s.repoURL(rp)+"/git/blobs/"+e.sha
		case "tree":
			it.URL = s.repoURL(rp) + "/git/trees/" + e.sha
		}
		return it
	}
	items := []item{}
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
	return jsonReply(http.StatusOK, map[string]any{"sha": sha, "url": s.repoURL(rp) + "/git/trees/" + sha, "tree": items, "truncated": truncated})
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

func (s *Server) getBlob(r *http.Request, rp *repo) reply {
	sha := r.PathValue("sha")
	o := s.objs[sha]
	if o == nil || o.kind != "blob" {
		return notFound()
	}
	if wantsRaw(r) {
		return rawReply(o.data)
	}
	return jsonReply(http.StatusOK, map[string]any{
		"sha": sha, "node_id": "B_" + sha[:10], "size": len(o.data), "url": s.repoURL(rp) + "/git/blobs/" + sha,
		"content": wrapped(o.data), "encoding": "base64",
	})
}

// maxContentSize is the largest file the contents API returns inline: a
// larger one comes with empty content and encoding "none".
const maxContentSize = 1 << 20

func (s *Server) getContents(r *http.Request, rp *repo) reply {
	ref := r.URL.Query().Get("ref")
	if ref == "" {
		ref = rp.defaultBranch
	}
	c, ok := s.resolve(rp, ref)
	if !ok {
		return errorReply(http.StatusNotFound, "No commit found for the ref "+ref, "https://docs.github.com/rest/repos/contents#get-repository-content")
	}
	p := strings.Trim(r.PathValue("path"), "/")
	e, ok := s.objs.lookup(s.objs[c].tree, p)
	if !ok {
		return notFound()
	}
	if e.kind == "tree" {
		var items []map[string]any
		for _, c := range s.objs[e.sha].entries {
			items = append(items, s.contentItem(rp, path.Join(p, c.name), c, false))
		}
		if items == nil {
			items = []map[string]any{}
		}
		return jsonReply(http.StatusOK, items)
	}
	if wantsRaw(r) && e.kind == "blob" {
		return rawReply(s.objs[e.sha].data)
	}
	return jsonReply(http.StatusOK, s.contentItem(rp, p, e, true))
}

// contentItem is one content object: with its content when full and it is
// a file (content-file), else the directory listing's entry.
func (s *Server) contentItem(rp *repo, p string, e entry, full bool) map[string]any {
	self := s.repoURL(rp) + "/contents/" + p
	m := map[string]any{"name": path.Base(p), "path": p, "sha": e.sha, "size": e.size, "url": self,
		"html_url": "https://github.com/" + rp.owner + "/" + rp.name + "/blob/" + rp.defaultBranch + "/" + p,
		"git_url":  s.repoURL(rp) + "/git/blobs/" + e.sha, "download_url": nil,
		"_links": map[string]any{"self": self, "git": s.repoURL(rp) + "/git/blobs/" + e.sha}}
	switch e.mode {
	case ModeDir:
		m["type"], m["git_url"] = "dir", s.repoURL(rp)+"/git/trees/"+e.sha
	case ModeSymlink:
		m["type"] = "symlink"
		if full {
			m["target"] = string(s.objs[e.sha].data)
		}
	case ModeSubmodule:
		m["type"], m["git_url"], m["submodule_git_url"] = "submodule", nil, "https://github.com/example/submodule.git"
	default:
		m["type"] = "file"
		if full {
			if data := s.objs[e.sha].data; len(data) <= maxContentSize {
				m["content"], m["encoding"] = wrapped(data), "base64"
			} else {
				m["content"], m["encoding"] = "", "none"
			}
		}
	}
	return m
}
