package github

import (
	"context"
	"fmt"
	"strings"

	gh "github.com/google/go-github/v75/github"
)

// CodeHit is one file GitHub's code search found.
type CodeHit struct {
	Path      string
	SHA       string   // the blob the index holds, which may be older than the ref's
	Fragments []string // the text-match fragments GitHub sent
}

// SearchCode asks GitHub's code search for the files of the repository
// holding every word of words, following its pages (100 a page) until
// limit hits or the end; qualifiers (path:, extension:, filename:) narrow
// it. GitHub indexes the default branch only, files under 384 KB, and
// matches words, not substrings: the caller checks hits against the
// ref's own blobs, and falls back to them where search does not answer.
func (c *Client) SearchCode(ctx context.Context, words string, qualifiers []string, limit int) ([]CodeHit, error) {
	q := strings.Join(append([]string{words, "repo:" + c.Repo()}, qualifiers...), " ")
	opts := &gh.SearchOptions{TextMatch: true, ListOptions: gh.ListOptions{PerPage: 100}}
	var hits []CodeHit
	for {
		var res *gh.CodeSearchResult
		var next int
		err := c.call(ctx, "search", fmt.Sprintf("the code search %q", q), func() (*gh.Response, error) {
			r, resp, err := c.gh.Search.Code(ctx, q, opts)
			res = r
			if resp != nil {
				next = resp.NextPage
			}
			return resp, err
		})
		if err != nil {
			return nil, err
		}
		for _, r := range res.CodeResults {
			h := CodeHit{Path: r.GetPath(), SHA: r.GetSHA()}
			for _, tm := range r.TextMatches {
				h.Fragments = append(h.Fragments, tm.GetFragment())
			}
			hits = append(hits, h)
			if len(hits) >= limit {
				return hits, nil
			}
		}
		if next == 0 {
			return hits, nil
		}
		opts.Page = next
	}
}
