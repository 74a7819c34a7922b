package github_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/quiverkit/quiver/internal/githubtest"
	"github.com/quiverkit/quiver/tool"
	"github.com/quiverkit/quiver/workspace/github"
)

// clock is the fake time both the fake and the client read: a sleep
// advances it and is recorded, so that no test waits.
type clock struct {
	mu     sync.Mutex
	now    time.Time
	sleeps []time.Duration
}

func newClock() *clock { return &clock{now: time.Unix(1_800_000_000, 0)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Sleep(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sleeps = append(c.sleeps, d)
	c.now = c.now.Add(d)
	return ctx.Err()
}

func (c *clock) Sleeps() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Duration(nil), c.sleeps...)
}

type env struct {
	srv   *githubtest.Server
	clock *clock
	cache string
	head  string
}

func setup(t *testing.T, opts githubtest.Options, files []githubtest.File) *env {
	t.Helper()
	e := &env{clock: newClock(), cache: t.TempDir()}
	opts.Now = e.clock.Now
	e.srv = githubtest.New(t, opts)
	head, err := e.srv.AddRepo(githubtest.Repo{Owner: "acme", Name: "app", Files: files, Private: true})
	if err != nil {
		t.Fatal(err)
	}
	e.head = head
	return e
}

func (e *env) client(t *testing.T, mod func(*github.Config)) *github.Client {
	t.Helper()
	cfg := github.Config{Repo: "acme/app", Token: githubtest.Token, APIURL: e.srv.URL, CacheDir: e.cache,
		Now: e.clock.Now, Sleep: e.clock.Sleep}
	if mod != nil {
		mod(&cfg)
	}
	c, err := github.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func manyFiles(n int) []githubtest.File {
	files := make([]githubtest.File, 0, n)
	for i := range n {
		files = append(files, githubtest.File{Path: fmt.Sprintf("dir%02d/sub%d/file%05d.txt", i%50, i%7, i), Content: fmt.Appendf(nil, "file %d\n", i)})
	}
	return files
}

func wantCode(t *testing.T, err error, code tool.Code) *tool.Error {
	t.Helper()
	te := tool.AsError(err)
	if te == nil || te.Code != code {
		t.Fatalf("error %v, want code %s", err, code)
	}
	return te
}

// TestCountedRequests is issue 29's acceptance: on a 10,000-file
// repository listing the tree costs one request, reading one file twice
// one blob request, and a second process with warm ETags gets 304s.
func TestCountedRequests(t *testing.T) {
	e := setup(t, githubtest.Options{}, manyFiles(10_000))
	ctx := context.Background()
	c := e.client(t, nil)
	h, err := c.Head(ctx)
	root := h.Tree
	if err != nil {
		t.Fatal(err)
	}
	all, err := c.Walk(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 10_000+50+50*7 {
		t.Errorf("walked %d entries", len(all))
	}
	if _, err := c.Walk(ctx, root); err != nil {
		t.Fatal(err)
	}
	var f github.Entry
	for _, en := range all {
		if en.Path == "dir03/sub3/file00003.txt" {
			f = en
		}
	}
	for range 2 {
		b, err := c.Blob(ctx, f.SHA, f.Size)
		if err != nil || string(b) != "file 3\n" {
			t.Fatalf("blob: %q, %v", b, err)
		}
	}
	if d := cmp.Diff(map[string]int{"repo 200": 1, "commit 200": 1, "gitcommit 200": 1, "tree 200": 1, "blob 200": 1}, e.srv.Counts()); d != "" {
		t.Errorf("first process (-want +got):\n%s", d)
	}

	e.srv.ResetLog()
	second := e.client(t, nil)
	if _, err := second.Head(ctx); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(map[string]int{"repo 304": 1, "commit 304": 1, "gitcommit 304": 1, "tree 200": 1}, e.srv.Counts()); d != "" {
		t.Errorf("second process (-want +got):\n%s", d)
	}

	// The ref is checked again after RefreshAfter, conditionally; a push is
	// seen. The push moved the repository's pushed_at, so GitHub answers the
	// repository anew too.
	e.srv.ResetLog()
	e.clock.Sleep(ctx, 2*time.Minute)
	if _, err := e.srv.Push("acme/app", "main", githubtest.Files("only.txt", "x")); err != nil {
		t.Fatal(err)
	}
	if h2, err := second.Head(ctx); err != nil || h2.Tree == root {
		t.Errorf("after a push: root %s (was %s), %v", h2.Tree, root, err)
	}
	if d := cmp.Diff(map[string]int{"repo 200": 1, "commit 200": 1, "gitcommit 200": 1, "tree 200": 1}, e.srv.Counts()); d != "" {
		t.Errorf("refresh (-want +got):\n%s", d)
	}
}

func TestConnectionErrors(t *testing.T) {
	e := setup(t, githubtest.Options{}, githubtest.Files("a", "a"))
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		mod  func(*github.Config)
	}{
		{"no token", func(c *github.Config) { c.Token = "" }},
		{"a token GitHub refuses", func(c *github.Config) { c.Token = "ghp_wrong" }},
		{"a repository the token cannot see", func(c *github.Config) { c.Repo = "acme/secret" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := e.client(t, tc.mod).Head(ctx)
			te := wantCode(t, err, tool.CodeNoConnection)
			if te.Message != "No active GitHub connection found" || te.Details["reason"] == "" {
				t.Errorf("message %q, details %v", te.Message, te.Details)
			}
		})
	}
	if n := len(e.srv.Requests()); n != 2 {
		t.Errorf("%d requests; no token sends none", n)
	}
	_, err := e.client(t, func(c *github.Config) { c.Ref = "no-such-branch" }).Head(ctx)
	wantCode(t, err, tool.CodeNotFound)
	if _, err := e.client(t, nil).Blob(ctx, strings.Repeat("0", 40), 1); tool.CodeOf(err) != tool.CodeNotFound {
		t.Errorf("a missing blob: %v", err)
	}
	for _, bad := range []github.Config{{Repo: "acme"}, {Repo: "a/b/c"}, {Repo: "a/b", APIURL: "ftp://x"}} {
		if _, err := github.New(bad); tool.CodeOf(err) != tool.CodeInvalidArguments {
			t.Errorf("New(%+v): %v", bad, err)
		}
	}
}

func TestRefs(t *testing.T) {
	e := setup(t, githubtest.Options{}, githubtest.Files("a", "main"))
	feature, err := e.srv.Push("acme/app", "feature", githubtest.Files("a", "feature"))
	if err != nil {
		t.Fatal(err)
	}
	e.srv.Tag("acme/app", "v1", feature)
	ctx := context.Background()
	for _, ref := range []string{"feature", "v1", feature} {
		commit, err := e.client(t, func(c *github.Config) { c.Ref = ref }).Head(ctx)
		if err != nil || commit.SHA != feature {
			t.Errorf("ref %s: %s, %v", ref, commit, err)
		}
	}
	if commit, err := e.client(t, nil).Head(ctx); err != nil || commit.SHA != e.head || !commit.Time.Equal(time.Unix(1_700_000_000, 0)) {
		t.Errorf("default branch: %s, %v", commit, err)
	}
}

func TestTruncatedTrees(t *testing.T) {
	files := manyFiles(700)
	want := func() []github.Entry {
		e := setup(t, githubtest.Options{}, files)
		c := e.client(t, nil)
		h, err := c.Head(context.Background())
		root := h.Tree
		if err != nil {
			t.Fatal(err)
		}
		all, err := c.Walk(context.Background(), root)
		if err != nil {
			t.Fatal(err)
		}
		return all
	}()

	// 700 files in 50 directories of 7: over 100 entries the recursive
	// listing is truncated, so the root is listed alone, then each of
	// its 50 directories recursively (the 7 subdirectories of each fit).
	e := setup(t, githubtest.Options{TreeLimit: 100}, files)
	c := e.client(t, nil)
	ctx := context.Background()
	h, err := c.Head(ctx)
	root := h.Tree
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.Walk(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("walked per directory (-whole +got):\n%s", d)
	}
	if n := e.srv.Counts()["tree 200"]; n != 1+1+50 {
		t.Errorf("%d tree requests, want 52 (the recursive root, the plain root, one per directory)", n)
	}

	e = setup(t, githubtest.Options{TreeLimit: 100}, files)
	h, _ = e.client(t, nil).Head(ctx)
	root = h.Tree
	_, err = e.client(t, func(c *github.Config) { c.MaxTreeRequests = 10 }).Walk(ctx, root)
	wantCode(t, err, tool.CodeTreeTruncated)

	e = setup(t, githubtest.Options{TreeLimit: 100, DirLimit: 20}, files)
	c = e.client(t, nil)
	h, _ = c.Head(ctx)
	root = h.Tree
	_, err = c.Walk(ctx, root)
	wantCode(t, err, tool.CodeTreeTruncated)
}

func TestBlobs(t *testing.T) {
	big := strings.Repeat("0123456789abcdef", 70_000) // 1.1 MB
	files := append(githubtest.Files("big.txt", big, "small.txt", "small\n"),
		githubtest.File{Path: "link", Content: []byte("small.txt"), Mode: githubtest.ModeSymlink},
		githubtest.File{Path: "mod", Mode: githubtest.ModeSubmodule, Commit: strings.Repeat("ab", 20)})
	e := setup(t, githubtest.Options{}, files)
	c := e.client(t, nil)
	ctx := context.Background()
	h, err := c.Head(ctx)
	root := h.Tree
	if err != nil {
		t.Fatal(err)
	}
	es, err := c.Dir(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]string{}
	for _, en := range es {
		kinds[en.Name] = fmt.Sprintf("%s symlink=%v submodule=%v", en.Type, en.IsSymlink(), en.IsSubmodule())
		if en.Type != github.TypeBlob {
			continue
		}
		b, err := c.Blob(ctx, en.SHA, en.Size)
		if err != nil || int64(len(b)) != en.Size {
			t.Errorf("%s: %d bytes, %v", en.Name, len(b), err)
		}
	}
	if d := cmp.Diff(map[string]string{"big.txt": "blob symlink=false submodule=false", "small.txt": "blob symlink=false submodule=false",
		"link": "blob symlink=true submodule=false", "mod": "commit symlink=false submodule=true"}, kinds); d != "" {
		t.Errorf("entries (-want +got):\n%s", d)
	}
	accepts := map[string]int{}
	for _, r := range e.srv.Requests() {
		if r.Route == githubtest.RouteBlob {
			accepts[r.Accept]++
		}
	}
	if accepts["application/vnd.github.raw"] != 1 || len(accepts) != 2 {
		t.Errorf("blob requests by Accept: %v, want the big one raw", accepts)
	}
}

func TestRateLimits(t *testing.T) {
	e := setup(t, githubtest.Options{}, githubtest.Files("a", "a"))
	ctx := context.Background()
	c := e.client(t, nil)
	h, err := c.Head(ctx)
	root := h.Tree
	if err != nil {
		t.Fatal(err)
	}
	es, _ := c.Dir(ctx, root)
	blob := es[0]

	// A secondary limit with Retry-After within MaxWait: waited, retried.
	e.srv.Fail(githubtest.Failure{Route: githubtest.RouteBlob, RetryAfter: 7, Secondary: true})
	e.srv.Fail(githubtest.Failure{Route: githubtest.RouteBlob, Status: 429, RetryAfter: 3})
	e.srv.Fail(githubtest.Failure{Route: githubtest.RouteBlob, Status: 502})
	if _, err := c.Blob(ctx, blob.SHA, blob.Size); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]time.Duration{7 * time.Second, 3 * time.Second, time.Second}, e.clock.Sleeps()); d != "" {
		t.Errorf("waits (-want +got):\n%s", d)
	}

	// A primary limit resetting within MaxWait: waited until the reset.
	reset := e.clock.Now().Add(10 * time.Second)
	e.srv.SetRateLimit(githubtest.RateLimit{Resource: "core", Limit: 5000, Remaining: 0, Reset: reset})
	fresh := e.client(t, nil)
	if _, err := fresh.Head(ctx); err != nil {
		t.Fatal(err)
	}
	if got := e.clock.Sleeps()[3]; got != 11*time.Second {
		t.Errorf("waited %v for a reset 10 s away", got)
	}

	// A reset an hour away: RATE_LIMITED with the time, and no further request.
	far := e.clock.Now().Add(time.Hour)
	e.srv.SetRateLimit(githubtest.RateLimit{Resource: "core", Limit: 5000, Remaining: 0, Reset: far, Status: 429})
	limited := e.client(t, func(c *github.Config) { c.Ref = strings.Repeat("1", 40) })
	e.srv.ResetLog()
	for range 2 {
		_, err := limited.Dir(ctx, strings.Repeat("2", 40))
		te := wantCode(t, err, tool.CodeRateLimited)
		if te.Details["reset_at"] != far.Add(time.Second).UTC().Format(time.RFC3339) || !te.Retriable {
			t.Errorf("details %v, want reset_at %s", te.Details, far)
		}
	}
	if n := len(e.srv.Requests()); n != 1 {
		t.Errorf("%d requests; the second call should send none", n)
	}

	// Server errors past MaxRetries: EXECUTION_FAILED, not a wait forever.
	e.srv.SetRateLimit(githubtest.RateLimit{Resource: "core", Limit: 5000, Remaining: 5000, Reset: far})
	e.srv.Fail(githubtest.Failure{Route: githubtest.RouteTree, Status: 503, Times: 10})
	_, err = e.client(t, func(c *github.Config) { c.MaxRetries = 2 }).Dir(ctx, strings.Repeat("3", 40))
	wantCode(t, err, tool.CodeExecutionFailed)
}

func TestSearchCode(t *testing.T) {
	var files []githubtest.File
	for i := range 150 {
		files = append(files, githubtest.File{Path: fmt.Sprintf("src/f%03d.ts", i), Content: []byte("export const auth = 1\n")})
	}
	e := setup(t, githubtest.Options{}, append(files, githubtest.Files("README.md", "auth docs\n")...))
	c := e.client(t, nil)
	hits, err := c.SearchCode(context.Background(), "auth", []string{"extension:ts"}, 120)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 120 || hits[0].Path != "src/f000.ts" || len(hits[0].Fragments) != 1 {
		t.Errorf("%d hits, first %+v", len(hits), hits[0])
	}
	if n := e.srv.Count(githubtest.RouteSearch); n != 2 {
		t.Errorf("%d search requests, want 2 pages", n)
	}
}
