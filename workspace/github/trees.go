package github

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"path"
	"regexp"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	gh "github.com/google/go-github/v75/github"
	"golang.org/x/sync/errgroup"

	"github.com/quiverkit/quiver/tool"
)

// The kinds of entry in a tree, as git and the API name them.
const (
	TypeBlob   = "blob"
	TypeTree   = "tree"
	TypeCommit = "commit" // a submodule
)

// Entry is one entry of a tree.
type Entry struct {
	Name string // its base name
	Path string // its path from the tree Walk began at; Name in a Dir
	Mode string // 100644, 100755, 040000, 120000 (a symlink), 160000 (a submodule)
	Type string // TypeBlob, TypeTree or TypeCommit
	SHA  string
	Size int64 // a blob's size; 0 for the others
}

// IsSymlink reports whether e is a symbolic link; its blob is the target.
func (e Entry) IsSymlink() bool { return e.Mode == "120000" }

// IsSubmodule reports whether e is a submodule; SHA is its commit.
func (e Entry) IsSubmodule() bool { return e.Type == TypeCommit }

var hexSHA = regexp.MustCompile(`^[0-9a-f]{40}$`)

// Commit is the commit the configured ref names.
type Commit struct {
	SHA  string
	Tree string    // its root tree
	Time time.Time // its committer's time: the modification time of every file
}

// Head returns the commit the configured ref names, resolving the ref when
// it was not yet or is older than RefreshAfter: the repository first, for
// its default branch, when no ref is configured; then the ref's commit;
// then, for a commit not seen before, its tree and time. Those requests
// are conditional. A new commit's whole tree is listed with it, in one
// request.
func (c *Client) Head(ctx context.Context) (Commit, error) {
	c.mu.Lock()
	h := c.head
	c.mu.Unlock()
	fresh := c.cfg.RefreshAfter < 0 || c.cfg.Now().Sub(h.at) < c.cfg.RefreshAfter
	if h.commit.SHA != "" && fresh {
		return h.commit, nil
	}
	v, err, _ := c.flight.Do("head", func() (any, error) {
		sha, err := c.resolve(ctx)
		if err != nil {
			return nil, err
		}
		commit := h.commit
		if sha != commit.SHA {
			if commit, err = c.gitCommit(ctx, sha); err != nil {
				return nil, err
			}
			if err := c.listWhole(ctx, commit.Tree); err != nil {
				return nil, err
			}
		}
		c.mu.Lock()
		c.head = resolved{commit: commit, at: c.cfg.Now()}
		c.mu.Unlock()
		return commit, nil
	})
	if err != nil {
		return Commit{}, err
	}
	return v.(Commit), nil
}

// resolve returns the sha of the commit the ref names.
func (c *Client) resolve(ctx context.Context) (string, error) {
	ref := c.cfg.Ref
	if ref == "" {
		body, err := c.getConditional(ctx, "core", "the repository "+c.Repo(), "repos/"+c.owner+"/"+c.name, "application/vnd.github+json")
		if err != nil {
			return "", repoError(err)
		}
		var repo gh.Repository
		if err := json.Unmarshal(body, &repo); err != nil || repo.GetDefaultBranch() == "" {
			return "", tool.Errorf(tool.CodeExecutionFailed, "GitHub's answer for %s has no default branch (%v)", c.Repo(), err)
		}
		ref = repo.GetDefaultBranch()
	}
	if hexSHA.MatchString(ref) {
		return ref, nil
	}
	body, err := c.getConditional(ctx, "core", "the ref "+ref, "repos/"+c.owner+"/"+c.name+"/commits/"+escapeRef(ref), "application/vnd.github.sha")
	if err != nil {
		return "", err
	}
	sha := strings.TrimSpace(string(body))
	if !hexSHA.MatchString(sha) {
		return "", tool.Errorf(tool.CodeExecutionFailed, "GitHub's answer for the ref %s is not a commit sha: %.80q", ref, sha)
	}
	return sha, nil
}

// escapeRef escapes each segment of a ref, keeping its slashes
// (feature/x), which the API takes as they are.
func escapeRef(ref string) string {
	segs := strings.Split(ref, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/")
}

// gitCommit reads the commit object sha (conditionally: it never changes,
// and a second process then gets a 304).
func (c *Client) gitCommit(ctx context.Context, sha string) (Commit, error) {
	body, err := c.getConditional(ctx, "core", "the commit "+sha, "repos/"+c.owner+"/"+c.name+"/git/commits/"+sha, "application/vnd.github+json")
	if err != nil {
		return Commit{}, err
	}
	var gc gh.Commit
	if err := json.Unmarshal(body, &gc); err != nil || gc.GetTree().GetSHA() == "" {
		return Commit{}, tool.Errorf(tool.CodeExecutionFailed, "GitHub's answer for the commit %s has no tree (%v)", sha, err)
	}
	return Commit{SHA: sha, Tree: gc.GetTree().GetSHA(), Time: gc.GetCommitter().GetDate().Time}, nil
}

// repoError makes NOT_FOUND of the repository itself NO_CONNECTION: GitHub
// answers 404 for a private repository the token cannot read.
func repoError(err error) error {
	if tool.CodeOf(err) == tool.CodeNotFound {
		return noConnection("the repository is not there or the token cannot read it (404)", err)
	}
	return err
}

// listWhole lists the whole tree root in one recursive request, and keeps
// it unless GitHub truncated it (the directories are then listed as they
// are needed).
func (c *Client) listWhole(ctx context.Context, root string) error {
	c.mu.Lock()
	done := c.complete[root]
	c.mu.Unlock()
	if done {
		return nil
	}
	tree, err := c.getTree(ctx, root, true)
	if err != nil {
		return err
	}
	c.keepRecursive(root, tree)
	return nil
}

// keepRecursive keeps a recursive listing of the tree sha, or remembers
// that GitHub truncates it.
func (c *Client) keepRecursive(sha string, tree *gh.Tree) {
	if tree.GetTruncated() {
		c.mu.Lock()
		c.truncated[sha] = true
		c.mu.Unlock()
		return
	}
	c.storeRecursive(sha, tree.Entries)
}

// getTree is one git/get-tree request.
func (c *Client) getTree(ctx context.Context, sha string, recursive bool) (*gh.Tree, error) {
	var tree *gh.Tree
	err := c.call(ctx, "core", "the tree "+sha, func() (*gh.Response, error) {
		var resp *gh.Response
		var err error
		tree, resp, err = c.gh.Git.GetTree(ctx, c.owner, c.name, sha, recursive)
		return resp, err
	})
	return tree, err
}

// storeRecursive keeps the entries of a complete recursive listing of the
// tree root as the entries of each of its directories.
func (c *Client) storeRecursive(root string, entries []*gh.TreeEntry) {
	shaOf := map[string]string{".": root}
	children := map[string][]Entry{".": nil}
	for _, te := range entries {
		p := te.GetPath()
		e := entryOf(te)
		e.Name, e.Path = path.Base(p), path.Base(p)
		children[path.Dir(p)] = append(children[path.Dir(p)], e)
		if e.Type == TypeTree {
			shaOf[p] = e.SHA
			if _, ok := children[p]; !ok {
				children[p] = nil
			}
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for dir, es := range children {
		if sha, ok := shaOf[dir]; ok {
			c.trees[sha] = es
			c.complete[sha] = true
		}
	}
}

func entryOf(te *gh.TreeEntry) Entry {
	return Entry{Name: te.GetPath(), Path: te.GetPath(), Mode: te.GetMode(), Type: te.GetType(), SHA: te.GetSHA(), Size: int64(te.GetSize())}
}

// Dir returns the entries of the tree sha, in git's order: cached, or
// listed with one request. A directory GitHub truncates is TREE_TRUNCATED.
func (c *Client) Dir(ctx context.Context, sha string) ([]Entry, error) {
	c.mu.Lock()
	es, ok := c.trees[sha]
	c.mu.Unlock()
	if ok {
		return es, nil
	}
	v, err, _ := c.flight.Do("tree:"+sha, func() (any, error) {
		tree, err := c.getTree(ctx, sha, false)
		if err != nil {
			return nil, err
		}
		if tree.GetTruncated() {
			return nil, (&tool.Error{Code: tool.CodeTreeTruncated,
				Message: fmt.Sprintf("a directory of %s holds more entries than GitHub lists (%d shown): it cannot be listed whole", c.Repo(), len(tree.Entries))}).WithDetail("tree", sha)
		}
		es := make([]Entry, 0, len(tree.Entries))
		for _, te := range tree.Entries {
			es = append(es, entryOf(te))
		}
		c.mu.Lock()
		c.trees[sha] = es
		c.mu.Unlock()
		return es, nil
	})
	if err != nil {
		return nil, err
	}
	return v.([]Entry), nil
}

// Walk returns every entry under the tree sha, with paths from it, sorted
// by path. A subtree not yet cached is listed recursively in one request;
// one GitHub truncates is listed directory by directory, each subdirectory
// recursively again, several at once, within MaxTreeRequests requests for
// the walk: past them it is TREE_TRUNCATED.
func (c *Client) Walk(ctx context.Context, sha string) ([]Entry, error) {
	var spent atomic.Int64
	if err := c.fill(ctx, sha, &spent); err != nil {
		return nil, err
	}
	var out []Entry
	c.mu.Lock()
	c.collect(sha, "", &out)
	c.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

// collect appends the cached subtree of sha under prefix; c.mu is held.
func (c *Client) collect(sha, prefix string, out *[]Entry) {
	for _, e := range c.trees[sha] {
		e.Path = path.Join(prefix, e.Name)
		*out = append(*out, e)
		if e.Type == TypeTree {
			c.collect(e.SHA, e.Path, out)
		}
	}
}

// walkParallel is how many directories a walk of a truncated tree lists at
// once.
const walkParallel = 8

// fill makes the whole subtree of sha cached.
func (c *Client) fill(ctx context.Context, sha string, spent *atomic.Int64) error {
	c.mu.Lock()
	done, truncated := c.complete[sha], c.truncated[sha]
	c.mu.Unlock()
	if done {
		return nil
	}
	if !truncated {
		if err := c.spend(sha, spent); err != nil {
			return err
		}
		tree, err := c.getTree(ctx, sha, true)
		if err != nil {
			return err
		}
		if c.keepRecursive(sha, tree); !tree.GetTruncated() {
			return nil
		}
	}
	c.mu.Lock()
	_, listed := c.trees[sha]
	c.mu.Unlock()
	if !listed {
		if err := c.spend(sha, spent); err != nil {
			return err
		}
	}
	es, err := c.Dir(ctx, sha)
	if err != nil {
		return err
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(walkParallel)
	for _, e := range es {
		if e.Type == TypeTree {
			g.Go(func() error { return c.fill(gctx, e.SHA, spent) })
		}
	}
	if err := g.Wait(); err != nil {
		return err
	}
	c.mu.Lock()
	c.complete[sha] = true
	c.mu.Unlock()
	return nil
}

// spend counts one request of a walk against MaxTreeRequests.
func (c *Client) spend(sha string, spent *atomic.Int64) error {
	if spent.Add(1) > int64(c.cfg.MaxTreeRequests) {
		return (&tool.Error{Code: tool.CodeTreeTruncated,
			Message: fmt.Sprintf("the tree of %s is larger than GitHub lists at once, and walking it directory by directory took more than %d requests: list a narrower path", c.Repo(), c.cfg.MaxTreeRequests)}).WithDetail("tree", sha)
	}
	return nil
}

// RootEntry is the entry of the tree root itself.
func RootEntry(root string) Entry {
	return Entry{Name: ".", Path: ".", Mode: "040000", Type: TypeTree, SHA: root}
}

func find(es []Entry, name string) (Entry, bool) {
	for _, e := range es {
		if e.Name == name {
			return e, true
		}
	}
	return Entry{}, false
}
